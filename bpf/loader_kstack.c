// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader's half of kernel stacks (bpf/kstack.c writes the kernel
 * half): the ranges of our programs and the kernel's BPF glue the walk
 * drops (stp_kgl, written before the attach), and a stack record's
 * addresses named from /proc/kallsyms as the module prints them. Linked
 * into stap and into stapbpf, the loader a guest runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/bpf.h"

/* libbpf's <bpf/bpf.h>, which this project's bpf/bpf.h shadows on the
 * include path */
int bpf_obj_get_info_by_fd(int bpf_fd, void *info, __u32 *info_len);

/* MAXBACKTRACE: the frames printed (kstack.c's STP_KMAX) */
#define KSTACK_MAX 20

struct ksym {
	unsigned long long addr;
	unsigned idx;
	char type;
	char *name, *mod;
};

static struct ksym *ksyms;
static size_t nksyms;

/* The kernel's own bounds: _stext, _etext, _sinittext, _einittext and
 * _end, which kallsyms lists only with CONFIG_KALLSYMS_ALL (Debian's 6.1
 * and 6.12, not this machine's 6.18). The kernel names an address of
 * its own only between them (is_ksym_addr): its text, or with that
 * option all of _stext.._end, data too. */
static const char *const kbound_names[] = {
	"_stext", "_etext", "_sinittext", "_einittext", "_end",
};
static unsigned long long kbound[5];

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
		ksyms[nksyms].type = type;
		ksyms[nksyms].name = strdup(name);
		ksyms[nksyms].mod = strcmp(mod, "kernel") ? strdup(mod) :
				    "kernel";
		for (int b = 0; b < 5 && !strcmp(mod, "kernel"); b++)
			if (!strcmp(name, kbound_names[b]))
				kbound[b] = a;
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
	/* as the kernel's lookup: its own addresses within its bounds
	 * (kbound), a module's text symbols */
	if (!lo || next == nksyms)
		return NULL;
	if (strcmp(ksyms[lo - 1].mod, "kernel") ?
	    !strchr("tTwW", ksyms[lo - 1].type) :
	    !((a >= kbound[0] && a < (kbound[4] ? kbound[4] : kbound[1])) ||
	      (a >= kbound[2] && a < kbound[3])))
		return NULL;
	lo--;
	while (lo && ksyms[lo - 1].addr == ksyms[lo].addr)
		lo--;
	*size = ksyms[next].addr - ksyms[lo].addr;
	return &ksyms[lo];
}

/* The kernel's BPF and perf code between the probed code and our
 * programs: the tracepoint's call into BPF (bpf_trace_runN; the
 * __bpf_trace_NAME callback jumps there, leaving no frame), perf's
 * overflow path from its cpu-clock hrtimer (class 1); past that hrtimer,
 * the timer interrupt's entry down to the interrupted code, which is
 * where the module's timer.profile stack starts, at the interrupted
 * registers (class 2). 0: not glue. */
static int glue(const char *name)
{
	static const char *const names[] = {
		"bpf_overflow_handler", "__perf_event_overflow",
		"perf_event_overflow", "perf_swevent_hrtimer",
	};
	static const char *const irq[] = {
		"__hrtimer_run_queues", "hrtimer_interrupt",
		"__sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt",
		"asm_sysvec_apic_timer_interrupt",
	};

	if (!strncmp(name, "bpf_trace_run", 13))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	for (size_t i = 0; i < sizeof(irq) / sizeof(irq[0]); i++)
		if (!strcmp(name, irq[i]))
			return 2;
	return 0;
}

struct kglue {
	unsigned long long lo, hi, perf_lo, perf_hi;
	unsigned n, nirq;
	unsigned long long g[32][2];
};

void bpf_kstack_ranges(struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "stp_kgl");
	struct bpf_program *p;
	struct kglue v = { .lo = ~0ULL };
	unsigned z = 0;

	if (!m)
		return;
	/* our programs' JIT images, every function of each */
	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		__u32 nk = info.nr_jited_ksyms, nl = info.nr_jited_func_lens;
		if (!nk || nk != nl)
			continue;
		unsigned long long *ks = calloc(nk, sizeof(*ks));
		__u32 *lens = calloc(nl, sizeof(*lens));
		memset(&info, 0, sizeof(info));
		info.nr_jited_ksyms = nk;
		info.jited_ksyms = (__u64)(uintptr_t)ks;
		info.nr_jited_func_lens = nl;
		info.jited_func_lens = (__u64)(uintptr_t)lens;
		len = sizeof(info);
		if (ks && lens && !bpf_obj_get_info_by_fd(fd, &info, &len))
			for (__u32 i = 0; i < nk; i++) {
				if (ks[i] < v.lo)
					v.lo = ks[i];
				if (ks[i] + lens[i] > v.hi)
					v.hi = ks[i] + lens[i];
			}
		free(ks);
		free(lens);
	}
	ksyms_read();
	/* class 1 first, class 2 after it (the kernel's table) */
	for (int cls = 1; cls <= 2; cls++)
		for (size_t i = 0; i + 1 < nksyms && v.n + v.nirq < 32; i++) {
			if (strcmp(ksyms[i].mod, "kernel") ||
			    glue(ksyms[i].name) != cls)
				continue;
			v.g[v.n + v.nirq][0] = ksyms[i].addr;
			v.g[v.n + v.nirq][1] = ksyms[i + 1].addr;
			if (cls == 1)
				v.n++;
			else
				v.nirq++;
			if (!strcmp(ksyms[i].name, "perf_swevent_hrtimer")) {
				v.perf_lo = ksyms[i].addr;
				v.perf_hi = ksyms[i + 1].addr;
			}
		}
	bpf_map__update_elem(m, &z, sizeof(z), &v, sizeof(v), BPF_ANY);
}

void bpf_kstack_print(FILE *out, const unsigned long long *pcs, unsigned n)
{
	unsigned long long size;
	const struct ksym *k;

	ksyms_read();
	for (unsigned i = 0; i < n && i < KSTACK_MAX; i++) {
		if (!(k = ksym_at(pcs[i], &size))) {
			fprintf(out, " 0x%llx\n", pcs[i]);
			continue;
		}
		fprintf(out, " 0x%llx : %s+0x%llx/0x%llx [%s]\n", pcs[i],
			k->name, pcs[i] - k->addr, size, k->mod);
	}
}

/* The kernel's simple_strtoull in base 16 (the tapset's strtol(s, 16)):
 * an optional "0x", hex digits up to the first other character. */
static unsigned long long hex_value(const char *s)
{
	unsigned long long v = 0;
	bool neg = *s == '-';

	if (neg)
		s++;
	if (s[0] == '0' && (s[1] | 32) == 'x')
		s += 2;
	for (;; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if ((*s | 32) >= 'a' && (*s | 32) <= 'f')
			d = (*s | 32) - 'a' + 10;
		else
			break;
		v = v * 16 + (unsigned long long)d;
	}
	return neg ? -v : v;
}

/* print_stack(stk): the tapset's print_syms(), " TOKEN : symdata" a
 * token of stk separated by spaces (symdata as prelude.c's, from the
 * same /proc/kallsyms) */
void bpf_kstack_print_syms(FILE *out, const char *stk, size_t len)
{
	char tok[512];
	size_t i = 0;

	ksyms_read();
	while (i < len && stk[i]) {
		size_t n = 0;
		unsigned long long a, size;
		const struct ksym *k;

		if (stk[i] == ' ') {
			i++;
			continue;
		}
		while (i < len && stk[i] && stk[i] != ' ') {
			if (n < sizeof(tok) - 1)
				tok[n++] = stk[i];
			i++;
		}
		tok[n] = 0;
		a = hex_value(tok);
		if ((k = ksym_at(a, &size)))
			fprintf(out, " %s : %s+0x%llx/0x%llx [%s]\n", tok,
				k->name, a - k->addr, size, k->mod);
		else
			fprintf(out, " %s : 0x%llx\n", tok, a);
	}
}
