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
#include <stdint.h>
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
	BPF_PLACE_UPROBE,	/* kernel: a uprobe or uretprobe on a user
				 * binary (attach_uprobe.c) */
	BPF_PLACE_PROCESS,	/* kernel: process.* events, on the shared
				 * fork/exec/exit/syscall programs
				 * (attach_process.c) */
};

/* What dp is to this backend (from dp->attach, attach.c); *tp: the
 * tracepoint's or function's name, *period_ns: the timer's period. */
enum bpf_place bpf_place_of(const struct derived_probe *dp, const char **tp,
			    unsigned long long *period_ns);
/* A timer's .randomize(M) in ns (0: none): its period is then period_ns
 * +/- up to that, redrawn at every expiry, as the module's */
unsigned long long bpf_timer_randomize_ns(const struct derived_probe *dp);
/* The target kernel's HZ (its config's CONFIG_HZ), 0 when unknown. */
unsigned long bpf_kernel_hz(void);
bool bpf_place_in_kernel(enum bpf_place p);
/* A body that asks who is running (pid(), execname() ...). */
bool bpf_body_needs_kernel(const struct derived_probe *dp);
/* Pass 2: why this backend cannot attach dp or read its context values. */
const char *bpf_refuses_attach(const struct derived_probe *dp);
const char *bpf_unplaceable(const struct derived_probe *dp);
/* Pass 3: the kernel programs (one per kernel probe, reading its context
 * values, then running its body) and the loader's table of perf events;
 * 0, or 1 after a message. */
int bpf_emit_programs(struct session *s, struct program *prog, FILE *out);
void bpf_emit_perf_table(struct program *prog, FILE *out);

/* The dispatch of filtered tracepoint probes (attach_dispatch.c):
 * group[probe] is the group a probe's program is tail-called from, or
 * -1 (its program is on the tracepoint); key and array, where. */
struct bpf_dgroup {
	int first;		/* the probe before whose program the
				 * dispatch comes; -1: no dispatch */
	int count;		/* probes dispatched */
	int size;		/* the arrays' entries: the largest key + 1 */
	bool compat;		/* an array for 64-bit tasks (0), one for
				 * 32-bit tasks (1) */
};
struct bpf_dispatch {
	int *group;
	int64_t *key;
	int *array;
	struct bpf_dgroup *groups;
	int ngroups;
};
void bpf_dispatch_plan(const struct program *prog, struct bpf_dispatch *d);
void bpf_dispatch_free(struct bpf_dispatch *d);
/* Group g's program arrays (stp_dispmG_M), and the loader's table of what
 * goes in them (stp_jumps: program, array, key). */
void bpf_dispatch_arrays(const struct bpf_dispatch *d, int g, FILE *out);
void bpf_emit_dispatch_table(const struct program *prog, FILE *out);
/* The loader's table of fentry/fexit programs and their probe points
 * (stp_kfuncs: a refusal at attach is a warning, attach.c). */
void bpf_emit_kfunc_table(struct program *prog, FILE *out);

/* The uprobe kind (attach_uprobe.c): pass 2's refusal of dp's values,
 * or NULL; pass 3's program(s) for dp, number np (*declared: the
 * shared declarations were written; set_ip: it sets the probe's
 * address, kstack.c); the loader's table of them. */
const char *bpf_uprobe_refuses(const struct derived_probe *dp);
int bpf_uprobe_program(struct session *s, const struct derived_probe *dp,
		       int np, bool *declared, FILE *out,
		       bool set_ip);
void bpf_emit_uprobe_table(struct program *prog, FILE *out);
/* $$name (0) or $$provider (1) of a uprobe (n an N_TARGET), else -1; the
 * kernel half's table of them by probe (S->probe), before the bodies. */
struct node;
int bpf_uprobe_name(const struct derived_probe *dp, const struct node *n);
void bpf_emit_uprobe_names(struct program *prog, FILE *out);
/* Whether pp() and pn() of a body the n probes dps share are the
 * kernel half's table's, by S->probe (user-space probes). */
bool bpf_user_probe_names(const struct derived_probe *const *dps, int n);
/* Whether sym is a typed value of user memory (autocast of a local
 * holding a user pointer, @cast(p, "T", "PATH")) read by member steps
 * a user-space probe dp's body can walk (no pretty printing, no
 * computed index); the steps' C over v (f: a fault, v its address). */
struct symbol;
struct member_path;
bool bpf_user_typed(const struct derived_probe *dp, const struct symbol *sym);
/* n is a tracepoint's $$system, $$name, or $$parms/$$vars (mode 0),
 * which this backend has in dp's body. */
bool bpf_tp_special(const struct derived_probe *dp, const struct node *n);
/* A typed value of the kernel's memory (a @cast of the kernel's types,
 * a member chain on it, its address). */
bool bpf_kernel_typed(const struct node *n);
/* Why such a value cannot be read in a kernel probe, or NULL. */
const char *bpf_kernel_cast_refuses(const struct node *n);
/* The C of such a value's read in a kernel probe (checked at pass 2): a
 * block that sets val to it, and fault to 1 (val the address) when a
 * read fails; root: the C of the @cast's base value. */
void bpf_emit_kernel_cast(const struct node *n, const char *root,
			  const char *val, const char *fault, FILE *out);
void bpf_user_steps_c(const struct member_path *path, FILE *out);

/* The process kind (attach_process.c): pass 3's shared programs of the
 * process.* probes (kernel half), the loader's stp_proc_scan (user
 * half); pass 5's record of the tasks running at the attach (how: the
 * user half's stp_proc_scan), 0 or 1 after a message. */
void bpf_process_programs(struct program *prog, FILE *out);
void bpf_emit_process_table(struct program *prog, FILE *out);
struct bpf_object;
int bpf_process_scan(struct bpf_object *obj, int how);
/* Pass 5, before the attach: the identities of the executables the
 * filters name (the user half's stp_proc_exes), as stat() finds them. */
void bpf_process_exes(struct bpf_object *obj, const char *const *exes);

/* User stacks and symbols (ustack.c): the kernel half's macro of a
 * ucontext-unwind tapset function (bpf_tapset_expr's convention), or
 * NULL; the run-time error text of its call n, or NULL (the user string
 * fault's); whether function f has a version of this backend's instead
 * of its body (embedded C, or one of ustack.c's); pass 3's tables, walk
 * and formats, before the bodies, when the program uses them. */
struct script_func;
struct arena;
const char *bpf_ustack_expr(const char *name, bool kernel);
const char *bpf_ustack_error(struct arena *a, const struct node *n);
bool bpf_func_native(const struct script_func *f);
void bpf_emit_ustack(struct session *s, struct program *prog, FILE *out);

/* Kernel stacks (kstack.c): print_backtrace()'s walk in the kernel half
 * (pass 3, when the program uses it); the loader's lines of a kind 6
 * record's n addresses, named from /proc/kallsyms; the loader's table for
 * the kernel's walk of the frames to drop (our programs, the glue). */
void bpf_emit_kstack(struct program *prog, FILE *out);
void bpf_kstack_print(FILE *out, const unsigned long long *pcs, unsigned n);
void bpf_kstack_ranges(struct bpf_object *obj);
/* print_stack(), sprint_stack(): this backend's own versions, in both
 * halves (not the tapset's script bodies); the loader's lines of a
 * print_stack() record's string, as the tapset's print_syms() */
bool bpf_kstack_native(const char *name);
/* addr() and what reads the probe's address like it (probemod(),
 * probefunc()'s helpers): a name's need; a program's use of them or of
 * the stacks (each of its kernel programs then sets the address) */
bool bpf_kstack_needs_ip(const char *name);
bool bpf_kstack_uses_ip(const struct program *prog);
void bpf_kstack_print_syms(FILE *out, const char *stk, size_t len);
/* the kernel function of each x86_64 system call number, 64-bit and
 * 32-bit tasks' (sysc_entry.c, generated), NULL where none */
extern const char *const bpf_sysc_entry64[];
extern const int bpf_sysc_nentry64;
extern const char *const bpf_sysc_entry32[];
extern const int bpf_sysc_nentry32;

/* -D on this backend (limits.c): the number a limit (MAXACTION,
 * MAXMAPENTRIES ...) has, its default without a -D of it (-1: the
 * program's own, MAXNESTING); whether every -D is honoured (0), else
 * errors and warnings said (1 after an error); the first -D that keeps
 * the automatic choice of a backend off BPF, or NULL. */
struct session;
long long bpf_limit(const struct session *s, const char *name);
int bpf_defines_check(struct session *s);
const char *bpf_defines_refusal(struct session *s);

/* Pass 2: why dp cannot run on BPF, or NULL. */
const char *bpf_refuses(const struct derived_probe *dp);
/* A sprintf format as the kernel's bpf_snprintf takes it (emit_sprint.c):
 * NULL, or what it lacks; out (a struct strbuf *) gets it when not NULL */
struct strbuf;
const char *bpf_kernel_format(const char *fmt, size_t len,
			      struct strbuf *out);

/* Pass 3: the program's C (both halves) to out; 0 or 1 after errors. */
int bpf_emit(struct session *s, struct program *prog, FILE *out);

/* Pass 5: load DIR/prog.bpf.o and DIR/prog.so, run (cmd: -c's command,
 * started once the probes are attached; the run ends when it exits;
 * target_pid: -x's); the exit status. */
int bpf_load_and_run(const char *dir, bool verbose, const char *cmd,
		     long long target_pid);
/* The same from the user half alone (PATH.so, the kernel half inside
 * it: pass 4 puts prog.bpf.o in its stp_bpf_object), as the guest's
 * loader (stap/stapbpf) runs it. */
int bpf_load_and_run_so(const char *so_path, bool verbose, const char *cmd,
			long long target_pid);

/* Build for kernel t and run in a guest of it (the driver: --runtime=bpf
 * with -r of another kernel, or --vm), before pass 2; whether so. */
struct target;
void bpf_set_guest_kernel(const struct target *t);
bool bpf_in_guest(void);

/* The BPF backend's own part of the run (driver.own): the guest's. */
struct bpf_run {
	int vm_memory_mb, vm_cpus;	/* --vm-memory, --vm-cpus: 0 default */
	bool forced;			/* --vm (else -r of another kernel) */
};

/* The size of every string on this backend, NUL included: the module
 * backend's MAXSTRINGLEN (runtime/defines.h), so a value is cut at the
 * same 511 bytes on both. A power of two: the kernel half bounds its
 * indexes for the verifier with & (STP_STR - 1). */
#define BPF_STRLEN 512

/* A statistic's shape and value, in both halves and the loader (the
 * generated C declares the same, emit.c's prelude: keep them in step). */
struct stp_stat_desc {
	int hist;			/* 0 none, 1 log, 2 linear */
	int variance;			/* keeps the running variance */
	int shift;			/* @variance's bit shift */
	long long lo, hi, step;		/* linear */
	int nbuckets;			/* 0, 128 or (hi - lo) / step + 3 */
};

struct stp_stat {
	long long count, sum, min, max, avg, m2, variance;
	long long hist[];
};

/*
 * The interface the generated user half sees: the loader fills it before
 * calling stp_user_init. The generated C declares the same struct from
 * the text of STP_RT_FUNCS (emit.c), so the two cannot disagree.
 */
#define STP_RT_FUNCS(X)							\
	X(void, print, (const void *rec, unsigned len))			\
	X(void, exit, (void))						\
	X(void, error, (unsigned id))					\
	X(void, error_text, (const char *msg))				\
	X(void, format, (char *dst, const void *rec, unsigned len))	\
	X(void, text, (char *out, const char *in, long long inlen,	\
		       long long outlen, int quoted))			\
	X(void, stat_merge, (const struct stp_stat_desc *d,		\
			     const void *percpu, struct stp_stat *agg))	\
	X(void, hist, (char *dst, const struct stp_stat_desc *d,	\
		       const struct stp_stat *agg))

#define STP_RT_MEMBER(ret, name, args) ret (*name) args;
struct stp_rt {
	int *map_fds;			/* by array number */
	void *globals;			/* the mmapped .bss: struct stp_globals */
	int ncpus;			/* the per-CPU maps' value count */
	STP_RT_FUNCS(STP_RT_MEMBER)
};

/* Where bpf_format writes: a FILE, or a script string (at most
 * BPF_STRLEN - 1 bytes, NUL-terminated). */
struct bpf_sink {
	FILE *f;
	char *buf;
	size_t len;
};

struct fmt_piece;
/* One print record's arguments (types: 'l' or 's' each) by the pieces of
 * its format (format.c). */
void bpf_format(struct bpf_sink *s, const struct fmt_piece *pieces, int n,
		const char *types, const char *args, const char *end);

/* The loader's tapset helpers (lib.c). */
void bpf_text(char *out, const char *in, long long inlen, long long outlen,
	      int quoted);
void bpf_stat_merge(const struct stp_stat_desc *d, const void *percpu,
		    struct stp_stat *agg);
void bpf_hist(struct bpf_sink *s, const struct stp_stat_desc *d,
	      const struct stp_stat *agg);
int bpf_ncpus(void);

/* A core tapset function's C expression in the kernel or the loader's
 * half, or NULL (tapset.c). */
const char *bpf_tapset_expr(const char *name, bool kernel);
/* The same for call n when it names such a function (embedded C) or a
 * builtin with the entry's arguments (tapset.c); known: in either half. */
const char *bpf_tapset_call(const struct node *n, bool kernel);
/* v as a C string literal, as lib's sb_c_literal writes one (tapset.c) */
void bpf_c_string(FILE *out, const char *v);
/* pp(), pn(), ppfunc(), probe_type(), is_return(): literals of each body,
 * so not in a function's (tapset.c) */
bool bpf_probe_constant_fn(const char *name);
bool bpf_tapset_known(const struct node *n);
/* Is f a tapset function with embedded C that an entry here replaces
 * whole (its body is not translated)? */
bool bpf_tapset_native(const struct script_func *f);

/* The C before every program (prelude.c). */
extern const char bpf_prelude[], bpf_prelude_regex[];
/* the syscall tapset's decoders, both halves (prelude_sysc.c) */
extern const char bpf_prelude_sysc[];
/* the tapset's memory, task and conversion functions (prelude_task.c) */
extern const char bpf_prelude_task[];

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
	long long target;		/* target(): -c's command, -x's PID */
	long long loader_pid;		/* stp_pid(): the loader's process */
};

#endif /* BPF_BPF_H */
