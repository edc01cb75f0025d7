// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel stacks on the BPF backend: print_backtrace() in kernel probes
 * (tracepoints, perf timers), printed as the module backend prints it
 * (runtime/stack.c's stp_stack_print: " 0xADDR : name+0xoff/0xsize
 * [mod]" a frame, " 0xADDR" without a symbol, at most MAXBACKTRACE 20).
 *
 * The kernel half takes the current task's kernel stack with
 * bpf_get_task_stack() (the kernel's own unwinder, as the module's
 * walk; it needs no program context, so a body's function can call it)
 * into a ring buffer record of raw addresses (kind 6); the loader names
 * them from /proc/kallsyms when it prints, as printk's %pS does in the
 * module. The walk starts inside the helper and our BPF program; as the
 * module drops its own frames (handler, tracepoint callback), the loader
 * drops every frame up to the last of our programs' (bpf_prog_*) and
 * the kernel's BPF glue after it (bpf_trace_runN, __bpf_trace_NAME:
 * the tracepoint callback; perf's overflow path to its hrtimer), so the
 * first frame is the kernel code that ran the probe.
 *
 * Not here yet: backtrace(), sprint_backtrace() and symname() in kernel
 * probes (strings the script goes on using: they need the names or the
 * glue's addresses in the kernel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "semantic/semantic.h"

/* frames taken: MAXBACKTRACE's 20 and the helper's and glue's below */
#define KSTACK_RAW 48
#define KSTACK_MAX 20

static const char kstack_c[] =
	"struct stp_krec { struct stp_hdr h; __u64 pcs[STP_KRAW]; };\n"
	"__attribute__((noinline)) int stp_kprint(void)\n{\n"
	"\tstruct stp_krec *x = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0);\n"
	"\tlong n;\n"
	"\tif (!x) {\n\t\t__sync_fetch_and_add(&G.stp_lost, 1);\n"
	"\t\treturn 0;\n\t}\n"
	"\tn = bpf_get_task_stack(bpf_get_current_task_btf(), x->pcs, "
	"sizeof(x->pcs), 0);\n"
	"\tx->h.kind = 6;\n\tx->h.id = n > 0 ? (unsigned)n / 8 : 0;\n"
	"\tbpf_ringbuf_submit(x, 0);\n\treturn 0;\n}\n"
	"#define STP_KPRINT() ({ stp_kprint(); 0; })\n";

void bpf_emit_kstack(struct program *prog, FILE *out)
{
	bool used = false;

	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		used |= f->used && f->sym &&
			!strcmp(f->sym->name, "print_backtrace");
	}
	if (used)
		fprintf(out, "/* kernel stacks (bpf/kstack.c) */\n"
			"#define STP_KRAW %d\n%s", KSTACK_RAW, kstack_c);
}

/* ---- the loader: /proc/kallsyms, read at the first stack printed ---- */

struct ksym {
	unsigned long long addr;
	unsigned idx;
	char *name, *mod;
};

static struct ksym *ksyms;
static size_t nksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void ksyms_read(void)
{
	static bool done;
	char line[512];
	size_t cap = 0;
	FILE *f;

	if (done)
		return;
	done = true;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256], mod[128] = "kernel";
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name,
			   mod) < 3 || !a)
			continue;
		if (nksyms == cap) {
			struct ksym *n;
			cap = cap ? cap * 2 : 65536;
			n = realloc(ksyms, cap * sizeof(*n));
			if (!n)
				break;
			ksyms = n;
		}
		ksyms[nksyms].addr = a;
		ksyms[nksyms].idx = (unsigned)nksyms;
		ksyms[nksyms].name = strdup(name);
		ksyms[nksyms].mod = strcmp(mod, "kernel") ? strdup(mod) :
				    "kernel";
		nksyms++;
	}
	fclose(f);
	if (nksyms)
		qsort(ksyms, nksyms, sizeof(*ksyms), ksym_cmp);
}

/* The symbol covering a (the first listed at its address, as
 * kallsyms_lookup), its size the distance to the next address; NULL
 * when none does. */
static const struct ksym *ksym_at(unsigned long long a,
				  unsigned long long *size)
{
	size_t lo = 0, hi = nksyms, next;

	while (lo < hi) {	/* the first symbol above a */
		size_t mid = lo + (hi - lo) / 2;
		if (ksyms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	next = lo;
	if (!lo || next == nksyms)
		return NULL;
	lo--;
	while (lo && ksyms[lo - 1].addr == ksyms[lo].addr)
		lo--;
	*size = ksyms[next].addr - ksyms[lo].addr;
	return &ksyms[lo];
}

static bool prefixed(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The kernel's BPF and perf code between the probed code and our
 * program: the tracepoint's callback into BPF, perf's overflow path. */
static bool glue(const char *name)
{
	static const char *const names[] = {
		"bpf_overflow_handler", "__perf_event_overflow",
		"perf_event_overflow", "perf_swevent_hrtimer",
		"perf_swevent_event", "__bpf_prog_run",
	};

	if (prefixed(name, "bpf_trace_run") || prefixed(name, "__bpf_trace_") ||
	    prefixed(name, "bpf_prog_"))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

void bpf_kstack_print(FILE *out, const unsigned long long *pcs, unsigned n)
{
	unsigned first = 0, printed = 0;
	unsigned long long size;
	const struct ksym *k;

	ksyms_read();
	/* past the last of our programs' frames, then past the glue */
	for (unsigned i = 0; i < n; i++)
		if ((k = ksym_at(pcs[i], &size)) && prefixed(k->name,
							     "bpf_prog_"))
			first = i + 1;
	while (first < n && (k = ksym_at(pcs[first], &size)) && glue(k->name))
		first++;
	for (unsigned i = first; i < n && printed < KSTACK_MAX; i++, printed++) {
		if (!pcs[i])
			break;
		if (!(k = ksym_at(pcs[i], &size))) {
			fprintf(out, " 0x%llx\n", pcs[i]);
			continue;
		}
		fprintf(out, " 0x%llx : %s+0x%llx/0x%llx [%s]\n", pcs[i],
			k->name, pcs[i] - k->addr, size, k->mod);
	}
}
