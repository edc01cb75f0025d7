/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BPF backend (--runtime=bpf): pass 3 writes one C file that is
 * compiled twice, with clang -target bpf for the probes that run in the
 * kernel (kernel.trace) and with cc -shared for those that need no kernel
 * context and run in the loader (begin, end, timer.s/ms). Both halves share
 * the maps and the globals; the loader (loader.c, libbpf) loads the
 * object, attaches, formats the ring buffer's print records and runs the
 * loader-side probes.
 */
#ifndef BPF_BPF_H
#define BPF_BPF_H

#include <stdbool.h>
#include <stdio.h>

#include "semantic/backend.h"

struct program;
struct derived_probe;

extern const struct backend bpf_backend;

/* Where a probe runs on this backend. */
enum bpf_place {
	BPF_PLACE_NONE,		/* refused */
	BPF_PLACE_NEVER,	/* never: nothing to emit */
	BPF_PLACE_BEGIN,	/* loader, before the events */
	BPF_PLACE_END,		/* loader, after them */
	BPF_PLACE_TIMER,	/* loader, every period */
	BPF_PLACE_TRACE,	/* kernel: a raw tracepoint (tp_btf typed) */
	BPF_PLACE_KFUNC,	/* kernel: fentry */
	BPF_PLACE_KRETURN,	/* kernel: fexit */
	BPF_PLACE_PERF,		/* kernel: a cpu-clock perf event (timers
				 * that need kernel context, timer.profile) */
};

/* What dp is to this backend (from dp->attach, attach.c); *tp: the
 * tracepoint's or function's name, *period_ns: the timer's period. */
enum bpf_place bpf_place_of(const struct derived_probe *dp, const char **tp,
			    unsigned long long *period_ns);
bool bpf_place_in_kernel(enum bpf_place p);
/* A body that asks who is running (pid(), execname() ...). */
bool bpf_body_needs_kernel(const struct derived_probe *dp);
/* Pass 2: why this backend cannot attach dp or read its context values. */
const char *bpf_refuses_attach(const struct derived_probe *dp);
/* Pass 3: the kernel programs (one per kernel probe, reading its context
 * values, then running its body) and the loader's table of perf events;
 * 0, or 1 after a message. */
int bpf_emit_programs(struct session *s, struct program *prog, FILE *out);
void bpf_emit_perf_table(struct session *s, struct program *prog, FILE *out);

/* Pass 2: why dp cannot run on BPF, or NULL. */
const char *bpf_refuses(const struct derived_probe *dp);

/* Pass 3: the program's C (both halves) to out; 0 or 1 after errors. */
int bpf_emit(struct session *s, struct program *prog, FILE *out);

/* Pass 5: load DIR/prog.bpf.o and DIR/prog.so, run; the exit status. */
int bpf_load_and_run(const char *dir, bool verbose);

/* The size of every string on this backend (SystemTap's MAXSTRINGLEN). */
#define BPF_STRLEN 128

/*
 * The interface the generated user half sees: the loader fills it before
 * calling stp_user_init. The generated C declares the same struct (emit.c,
 * bpf_rt_decl): keep the two in step.
 */
struct stp_rt {
	int *map_fds;			/* by array number */
	void *globals;			/* the mmapped .bss: struct stp_globals */
	void (*print)(const void *rec, unsigned len);
	void (*exit)(void);
	void (*error)(unsigned id);	/* a run-time error: stp_errors[id] */
};

/*
 * The start of the program's globals (.bss, struct stp_globals in the
 * generated C): what the kernel half tells the loader without the ring
 * buffer, so a full buffer loses no exit() and no count of what it lost.
 */
struct stp_globals_head {
	long long time_off;		/* CLOCK_REALTIME - ktime, ns */
	unsigned long long lost;	/* print records the buffer refused */
	unsigned long long lost_errors;	/* run-time errors it refused */
	unsigned long long exit;	/* exit() was called */
};

#endif /* BPF_BPF_H */
