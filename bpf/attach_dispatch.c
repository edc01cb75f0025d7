// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A dispatch of filtered tracepoint probes on BPF (syscall.*): the
 * syscall tapset's aliases each start with `if ($id != N) next`
 * (semantic/filter.h), so without a dispatch `syscall.*` is some 400
 * programs on raw_syscalls:sys_enter, every one run at every system call
 * only to find that the number is not its own (about 55 us a call on
 * this machine). Here the probes of one tracepoint that filter on one
 * argument make a group: one program on the tracepoint (stp_dispG) reads
 * the argument and tail-calls (bpf_tail_call) through a program array
 * (stp_dispmG_M) at that number into the one probe's program that takes it
 * (stp_jN, loaded, never attached: the loader puts it in the array,
 * stp_jumps). The module backend switches on the same filter in one
 * callback (module/emit_tracepoint.c).
 *
 * A group whose probes tell 64-bit tasks from 32-bit ones (`||
 * __sysc_compat()`, `|| !__sysc_compat()`) has an array for each: the
 * dispatch asks the task's kind once. A tail call reaches one program:
 * of the probes that take one number (`syscall.*` and `syscall.read` in
 * one script, or 4.8's two names of a 32-bit call) the first is in the
 * group of rank 0, the second in a group of rank 1, and so on, each its
 * own dispatch on the tracepoint, in the probes' order; a group of
 * fewer than DISPATCH_MIN probes stays on the tracepoint, each program
 * checking its filter. The taken probe's body still checks its filter,
 * which then holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "semantic/filter.h"
#include "semantic/semantic.h"

/* Fewer dispatched probes run as cheaply on the tracepoint themselves. */
#define DISPATCH_MIN 4
/* The numbers a program array holds (x86-64's system calls are < 600). */
#define DISPATCH_MAX_KEY 4096

struct group_try {
	const char *tp;			/* the tracepoint */
	const char *arg;		/* the filtered value's name */
	bool compat;			/* tells 64-bit from 32-bit tasks */
	int rank;			/* probes of the same number before */
};

static bool same_try(const struct group_try *a, const struct group_try *b)
{
	return !strcmp(a->tp, b->tp) && !strcmp(a->arg, b->arg) &&
	       a->compat == b->compat;
}

void bpf_dispatch_plan(const struct program *prog, struct bpf_dispatch *d)
{
	int n = prog->nprobes;
	struct group_try *try = xmalloc(((size_t)n + 1) * sizeof(*try));
	struct group_try *gt = xmalloc(((size_t)n + 1) * sizeof(*gt));

	memset(d, 0, sizeof(*d));
	d->group = xmalloc(((size_t)n + 1) * sizeof(*d->group));
	d->key = xmalloc(((size_t)n + 1) * sizeof(*d->key));
	d->array = xmalloc(((size_t)n + 1) * sizeof(*d->array));
	d->groups = xmalloc(((size_t)n + 1) * sizeof(*d->groups));
	for (int i = 0; i < n; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct symbol *arg;
		const char *tp = NULL;
		int64_t value;
		int compat;

		d->group[i] = -1;
		if (bpf_place_of(dp, &tp, NULL) != BPF_PLACE_TRACE ||
		    !probe_number_filter(dp, &arg, &value, &compat) ||
		    value < 0 || value >= DISPATCH_MAX_KEY)
			continue;
		d->key[i] = value;
		d->array[i] = compat < 0 ? 0 : compat;
		try[i] = (struct group_try){ tp, arg->name, compat >= 0, 0 };
		/* a number several probes take: the first is in the
		 * dispatch of rank 0, the next in that of rank 1 ... (a
		 * tail call reaches one program), each dispatch a program
		 * on the tracepoint, in the probes' order */
		for (int j = 0; j < i; j++)
			if (d->group[j] >= 0 && d->key[j] == d->key[i] &&
			    d->array[j] == d->array[i] &&
			    same_try(&try[j], &try[i]))
				try[i].rank++;
		int g = 0;
		while (g < d->ngroups && (!same_try(&gt[g], &try[i]) ||
					  gt[g].rank != try[i].rank))
			g++;
		if (g == d->ngroups) {
			gt[g] = try[i];
			d->groups[g] = (struct bpf_dgroup){ .first = -1,
				.compat = compat >= 0 };
			d->ngroups++;
		}
		d->group[i] = g;
	}
	for (int i = 0; i < n; i++) {
		if (d->group[i] < 0)
			continue;
		struct bpf_dgroup *g = &d->groups[d->group[i]];
		g->count++;
		if (g->first < 0)
			g->first = i;
		if (d->key[i] + 1 > g->size)
			g->size = (int)d->key[i] + 1;
	}
	/* groups too small run on the tracepoint as they are */
	for (int i = 0; i < n; i++)
		if (d->group[i] >= 0 &&
		    d->groups[d->group[i]].count < DISPATCH_MIN)
			d->group[i] = -1;
	for (int g = 0; g < d->ngroups; g++)
		if (d->groups[g].count < DISPATCH_MIN)
			d->groups[g].first = -1;
	free(try);
	free(gt);
}

void bpf_dispatch_free(struct bpf_dispatch *d)
{
	free(d->group);
	free(d->key);
	free(d->array);
	free(d->groups);
	memset(d, 0, sizeof(*d));
}

void bpf_dispatch_arrays(const struct bpf_dispatch *d, int g, FILE *out)
{
	for (int m = 0; m <= (d->groups[g].compat ? 1 : 0); m++)
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_PROG_ARRAY); "
			"__uint(max_entries, %d); __type(key, __u32); "
			"__type(value, __u32); } stp_dispm%d_%d SEC(\".maps\");\n",
			d->groups[g].size, g, m);
}

void bpf_emit_dispatch_table(const struct program *prog, FILE *out)
{
	struct bpf_dispatch d;
	int np = 0;

	bpf_dispatch_plan(prog, &d);
	fputs("const struct { const char *prog, *map; unsigned key; } "
	      "stp_jumps[] = { ", out);
	for (int j = 0; j < prog->nprobes; j++) {
		if (!bpf_place_in_kernel(bpf_place_of(prog->probes[j], NULL,
						      NULL)))
			continue;
		if (d.group[j] >= 0)
			fprintf(out, "{ \"stp_j%d\", \"stp_dispm%d_%d\", %lldU }, ",
				np, d.group[j], d.array[j],
				(long long)d.key[j]);
		np++;
	}
	fputs("{ NULL, NULL, 0 } };\n", out);
	bpf_dispatch_free(&d);
}
