/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe table a generated module hands to the runtime, and the
 * STP_MODULE_PROBES() macro that turns it into module init/exit.
 */
#ifndef RUNTIME_PROBES_H
#define RUNTIME_PROBES_H

enum stp_probe_type {
	STP_PROBE_BEGIN,		/* runs on "start", by priority */
	STP_PROBE_END,			/* runs on "stop", by priority */
	STP_PROBE_ERROR,		/* runs on "stop" after a fatal error */
	STP_PROBE_TIMER,		/* hrtimer every period_ns (one, or
					 * one per CPU: STP_TIMER_PROFILE) */
	STP_PROBE_TRACEPOINT,		/* kernel tracepoint tp_name */
	STP_PROBE_KFUNC,		/* kernel function entry (kfunc.c) */
	STP_PROBE_KRETFUNC,		/* kernel function return (kfunc.c) */
	STP_PROBE_PROCFS,		/* procfs file read/write (procfs.c) */
};

/* stp_probe.timer_flags */
#define STP_TIMER_JIFFIES 0x1		/* period_ns/randomize_ns in jiffies */
#define STP_TIMER_PROFILE 0x2		/* on every CPU, with the interrupted
					 * registers (get_irq_regs) */

/* stp_probe.kf_flags */
#define STP_KF_KPROBE	0x1		/* entry by kprobe, not ftrace */
#define STP_KF_INLINE	0x2		/* an inlined copy: kprobe at kf_addr */
#define STP_KF_STMT	0x4		/* kernel.statement: kprobe at kf_addr */

/*
 * One lock an event handler takes: the rwlock of a global that event
 * probes share (codegen/locks.c), for writing or reading; for a
 * statistic, its per-CPU locks instead (pcpu): `<<<` takes this CPU's
 * (read mode), a probe that reads the statistic every CPU's (write
 * mode), so writers on different CPUs never share a lock's cache line.
 * A handler's list is in the global order every handler follows.
 */
struct stp_lock {
	rwlock_t *lock;
	bool write;
	atomic_t __percpu *pcpu;	/* a statistic's, instead of lock */
};

/*
 * One step of a $a->b chain (see codegen): read size bytes at addr into
 * *out, sign-extended when is_signed; non-zero on a fault.
 */
static __always_inline int stp_tp_read(u64 *out, unsigned long addr,
				       unsigned int size, bool is_signed)
{
	union { u8 b; u16 h; u32 w; u64 q; } u;

	if (copy_from_kernel_nofault(&u, (const void *)addr, size))
		return -EFAULT;
	switch (size) {
	case 1: *out = is_signed ? (u64)(s64)(s8)u.b : u.b; break;
	case 2: *out = is_signed ? (u64)(s64)(s16)u.h : u.h; break;
	case 4: *out = is_signed ? (u64)(s64)(s32)u.w : u.w; break;
	default: *out = u.q; break;
	}
	return 0;
}

/*
 * A kernel.function variable written in guru mode ($x = v): size bytes of
 * val at kernel address addr (a register's pt_regs slot, or memory); a
 * user or non-canonical address, or a fault, is -EFAULT and nothing is
 * written. copy_to_kernel_nofault is not exported, so the access is the
 * exception-table one it uses itself.
 */
static __always_inline int stp_kf_write(unsigned long addr, u64 val,
					unsigned int size)
{
	u8 b = val;
	u16 h = val;
	u32 w = val;

	if (addr < TASK_SIZE_MAX + PAGE_SIZE ||
	    !__is_canonical_address(addr, boot_cpu_data.x86_virt_bits))
		return -EFAULT;
	pagefault_disable();
	switch (size) {
	case 1: __put_kernel_nofault((void *)addr, &b, u8, fault); break;
	case 2: __put_kernel_nofault((void *)addr, &h, u16, fault); break;
	case 4: __put_kernel_nofault((void *)addr, &w, u32, fault); break;
	default: __put_kernel_nofault((void *)addr, &val, u64, fault); break;
	}
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	return -EFAULT;
}

/* A bitfield: nbits bits from bit shift of the bytes at addr. */
static __always_inline int stp_tp_read_bits(u64 *out, unsigned long addr,
					    unsigned int shift,
					    unsigned int nbits, bool is_signed)
{
	unsigned int nbytes = (shift + nbits + 7) / 8;
	u64 raw = 0;

	if (nbytes > 8 || copy_from_kernel_nofault(&raw, (const void *)addr,
						   nbytes))
		return -EFAULT;
	raw >>= shift;
	if (nbits < 64) {
		raw &= (1ULL << nbits) - 1;
		if (is_signed && (raw >> (nbits - 1)) & 1)
			raw |= ~0ULL << nbits;
	}
	*out = raw;
	return 0;
}

/*
 * What a handler uses of its context (stp_probe.use), as pass 3 finds it
 * in the C it generates for the body and its functions: a hit sets up
 * only that (stp_probe_fast). A body that calls a script function, or
 * has embedded C, uses everything.
 */
#define STP_USE_ERROR	0x01		/* may raise an error: last_error
					 * cleared before, reported after */
#define STP_USE_ACTION	0x02		/* may run out of MAXACTION */
#define STP_USE_PRINT	0x04		/* may print: commit the buffer */
#define STP_USE_CALL	0x08		/* calls functions: nesting, next */
#define STP_USE_ITER	0x10		/* foreach: iter_top */
#define STP_USE_MATCH	0x20		/* =~: last_match */
#define STP_USE_REGS	0x40		/* reads the registers (a kernel
					 * function's ops saves them) */
#define STP_USE_CTX	0x80		/* reads probe, tp or regs of the
					 * context, or calls the runtime */
#define STP_USE_ALL	0xff
#define STP_USE_NOLOCKS	0x100		/* not a use: the entry has no
					 * locks (a fast path shared by
					 * several entries, which cannot fold
					 * p->nlocks, skips them) */

/* One counter statement of a lean probe: stp_counters[slot] += delta. */
struct stp_count {
	u32 slot;
	u64 delta;
};

struct stp_probe {
	enum stp_probe_type type;	/* STP_PROBE_* */
	void (*handler)(struct stp_context *c); /* generated body */
	size_t frame_size;		/* its locals (0: STP_FRAME_SIZE) */
	/* an event probe whose body only adds constants to counters
	 * (stat.h) is run as those adds: no context, locks or registers */
	bool lean;
	const struct stp_count *counts;
	unsigned int ncounts;
	/* an event probe's handler: what it uses (STP_USE_*), and its hit
	 * with only that set up (generated, STP_PROBE_HIT); NULL: the
	 * runtime's stp_probe_run_ctx, which sets up everything (and use
	 * is taken to be STP_USE_ALL) */
	unsigned int use;
	void (*hit)(const struct stp_probe *p, const struct stp_tp_args *args,
		    struct pt_regs *regs);
	const char *pp;			/* probe point, for messages */
	const char *pn;			/* as the script named it: pn() */
	int64_t priority;		/* begin/end/error order, ascending */
	/* "FILE:LINE:COL" of the probe (lost output, -t), -t: " from: POINT" */
	const char *location, *derivation;
	/* lost output is reported once per point the script wrote (a
	 * wildcard's entries are many): the entry whose warning counts this
	 * one's losses, and in that entry the point as written */
	unsigned int lost_to;
	const char *point;
	u64 period_ns;			/* STP_PROBE_TIMER: period */
	u64 randomize_ns;		/* STP_PROBE_TIMER: +/- jitter, or 0 */
	unsigned int timer_flags;	/* STP_TIMER_* */
	const char *tp_name;		/* STP_PROBE_TRACEPOINT: e.g. "sched_switch" */
	const char *tp_system;		/* its system ($$system): "sched" */
	/* $$parms / $$vars, plain, '$' and '$$' (NULL: not used) */
	const struct stp_tp_parm *tp_parms[STP_PARMS_MODES];
	void *tp_callback;		/* typed or lean callback, NULL:
					 * generic */
	bool tp_shared;			/* run by another entry's callback (a
					 * dispatch on an argument): never
					 * registered itself */
	bool tp_in_module;		/* defined by a module, not vmlinux:
					 * armed while that module is loaded */
	const struct stp_lock *locks;	/* event probes: the globals' locks
					 * the handler needs, in order */
	unsigned int nlocks;
	const char *kf_symbol;		/* STP_PROBE_KFUNC/KRETFUNC: the
					 * function's symbol, or */
	unsigned long kf_addr;		/* its link-time address (needs
					 * STP_KFUNC_ANCHOR_SYM/_LINK) */
	int kf_maxactive;		/* KRETFUNC: instances, 0: max(15, 6 * CPUs) */
	unsigned int kf_flags;		/* STP_KF_* */
	/* KFUNC, lean: an ftrace_ops function that runs this probe's
	 * counts (STP_KF_LEAN_HIT), for an ops that serves only it */
	void *kf_lean_hit;
	/* KFUNC with a handler: an ftrace_ops function that runs it
	 * (STP_KF_HIT), for an ops that serves only this probe */
	void *kf_hit;
	/* KRETFUNC: bytes of kretprobe instance data, and a function run
	 * at entry with them (values a return probe saves at entry) */
	size_t kf_data_size;
	void (*kf_entry)(const struct stp_probe *p, struct pt_regs *regs,
			 void *data);
	/* KFUNC/KRETFUNC whose body reads context variables ($count,
	 * $file->f_pos): computes them from the registers at the function's
	 * entry (v[k] and bit k of *faults, as struct stp_tp_args); for a
	 * return probe it runs at the entry and the values are kept in the
	 * kretprobe instance (kf_nvals of them) until the return */
	void (*kf_vals)(struct pt_regs *regs, int64_t *v, u64 *faults);
	unsigned int kf_nvals;
	/* KRETFUNC: @entry(expr) values computed by the handler itself at
	 * the entry (c->kf_entry_out), kept after the kf_nvals values */
	unsigned int kf_nentry;
	const char *procfs_path;	/* STP_PROBE_PROCFS: under
					 * /proc/systemtap/MODULE/ */
	bool procfs_write;		/* a .write probe (else .read) */
	u32 procfs_bufsize;		/* .read.maxsize(N), 0: MAXSTRINGLEN */
	u16 procfs_umask;		/* .umask(N) */
};

/* pretty.c: $$parms in mode 0..2 of the current tracepoint hit */
void __maybe_unused stp_tp_parms(struct stp_context *c, char *dst, int mode,
				 char *scratch);

extern atomic_t stp_events_live;
extern const struct kernel_param_ops stp_param_ops_int64;

/* Event probes run: armed, and no exit(), failure or stop yet (one load
 * on the hot path). */
static __always_inline bool stp_events_on(void)
{
	return atomic_read(&stp_events_live);
}

/* A hit with a context: the handler, its locks, errors (probes.c). */
void stp_probe_run_ctx(const struct stp_probe *p,
		       const struct stp_tp_args *args, struct pt_regs *regs,
		       int64_t *entry_out);

/*
 * A lean probe's hit: its counts into this CPU's slots, while events are
 * on. Lock-free and preemption-safe (this_cpu_add), calls nothing: no
 * recursion guard is needed, and a hit nested in another probe's counts
 * too, where a context would be busy.
 */
static __always_inline void stp_probe_lean(const struct stp_probe *p)
{
	const struct stp_count *cn = p->counts, *end = cn + p->ncounts;

	if (!stp_events_on())
		return;
	for (; cn < end; cn++)
		this_cpu_add(stp_counters[cn->slot], cn->delta);
}

/* probes.c: the parts of a hit the fast path leaves out of line */
bool stp_locks_take(const struct stp_lock *locks, unsigned int n);
void stp_locks_release(const struct stp_lock *locks, unsigned int n);
void stp_report_error(struct stp_context *c);
void stp_skip_check(struct stp_context *c);
void stp_probe_skipped(struct stp_context *c);

/*
 * An event probe's hit with its handler's own code (the generated code
 * passes the handler, its STP_USE_* bits and frame size as constants, so
 * all of it compiles into the callback): while events are on, take this
 * CPU's context, set up only what the handler uses, run it, then commit
 * its output and report its error if it can have any. Preemption is off
 * (the caller's). With -t (STP_TIMING) every hit is timed by the
 * runtime's own path.
 */
static __always_inline void
stp_probe_fast(const struct stp_probe *p, void (*handler)(struct stp_context *),
	       unsigned int use, size_t frame, const struct stp_tp_args *args,
	       struct pt_regs *regs)
{
#ifdef STP_TIMING
	stp_probe_run_ctx(p, args, regs, NULL);
#else
	struct stp_context *c;

	if (!stp_events_on())
		return;
	/* stp_context_enter(), without its NULL */
	c = this_cpu_read(stp_ctx);
	if (unlikely(atomic_read(&c->busy)))
		return;		/* inside another probe: dropped, as 4.8 */
	atomic_set(&c->busy, 1);
	barrier();
	if (use & STP_USE_ERROR) {
		c->last_error = NULL;
		c->last_where = NULL;
	}
	if (use & STP_USE_ACTION)
		c->actionremaining = MAXACTION;
	if (use & STP_USE_CALL) {
		c->nesting = 0;
		c->next = false;
	}
	if (use & STP_USE_ITER)
		c->iter_top = 0;
	if (use & STP_USE_MATCH)
		c->last_match.result = 0;
	if (use & STP_USE_CTX) {
		c->probe = p;
		c->tp = args;
		c->regs = regs;
	}
	if ((use & STP_USE_REGS) && regs && !args && p->kf_vals) {
		/* a kernel function's entry: its context values now */
		p->kf_vals(regs, c->kf_v, &c->kf_args.faults);
		c->kf_args.v = c->kf_v;
		c->kf_args.all = NULL;
		c->tp = &c->kf_args;
	}
	if (!(use & STP_USE_NOLOCKS) && p->nlocks &&
	    !stp_locks_take(p->locks, p->nlocks)) {
		c->probe = p;
		stp_probe_skipped(c);
		goto put;
	}
	if (frame > 1)
		memset(stp_frame(c, 0), 0, frame);
	handler(c);
	if (!(use & STP_USE_NOLOCKS) && p->nlocks)
		stp_locks_release(p->locks, p->nlocks);
	if ((use & STP_USE_PRINT) && c->plen)
		stp_print_commit(c);
	if ((use & STP_USE_ERROR) && unlikely(c->last_error)) {
		c->probe = p;		/* the record's probe */
		stp_report_error(c);
	}
	if (!(use & STP_USE_NOLOCKS) && p->nlocks) {
		c->probe = p;
		stp_skip_check(c);
	}
put:
	stp_context_exit(c);
#endif
}

/*
 * A body's hit for the runtime's callbacks (stp_probe.hit): the fast
 * path with preemption off. The generated code defines one per body.
 */
#define STP_PROBE_HIT(name, run)					\
	static void __maybe_unused notrace name(const struct stp_probe *p,		\
				 const struct stp_tp_args *args,	\
				 struct pt_regs *regs)			\
	{								\
		preempt_disable_notrace();				\
		run(p, args, regs);					\
		preempt_enable_notrace();				\
	}

/* One hit: a lean probe's counts, else its handler with a context. */
static __always_inline void stp_probe_hit(const struct stp_probe *p,
					  const struct stp_tp_args *args,
					  struct pt_regs *regs)
{
	if (p->lean)
		stp_probe_lean(p);
	else if (p->hit)
		p->hit(p, args, regs);
	else
		stp_probe_run_ctx(p, args, regs, NULL);
}

static __always_inline void stp_probe_run(const struct stp_probe *p)
{
	stp_probe_hit(p, NULL, NULL);
}

static __always_inline void stp_probe_run_tp(const struct stp_probe *p,
					     const struct stp_tp_args *args)
{
	stp_probe_hit(p, args, NULL);
}

static __always_inline void stp_probe_run_regs(const struct stp_probe *p,
					       struct pt_regs *regs)
{
	stp_probe_hit(p, NULL, regs);
}

/* kernel.trace (tracepoint.c) */
/* A lean probe's tracepoint callback (generated, one per lean body). */
#define STP_TP_LEAN_HIT(name, probe)					\
	static void name(void *data)					\
	{								\
		stp_probe_lean(probe);					\
	}

/* A tracepoint probe's own callback (generated, one per table entry
 * with a handler and no typed callback): the fast path, inlined. */
#define STP_TP_HIT(name, run, probe)					\
	static void name(void *data)					\
	{								\
		run(probe, NULL, NULL);					\
	}

/* kernel.function (kfunc.c) */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define STP_KF_HAVE_FTRACE 1
#else
#define STP_KF_HAVE_FTRACE 0
#endif

/* fprobe with pt_regs handlers: a feature test (runtime/features) */
#if STP_KF_HAVE_FTRACE && defined(STP_HAVE_FPROBE_PT_REGS)
#include <linux/fprobe.h>
#define STP_KF_HAVE_FPROBE 1
#else
#define STP_KF_HAVE_FPROBE 0
#endif

/*
 * The registers a kernel function's probe hands its handler hold the
 * probe's address as their ip (ip: the kprobe's address, or the fentry
 * site ftrace reports), as in SystemTap: the kernel gives ftrace's
 * callbacks the ip past the fentry call and a kprobe's the ip past its
 * int3. What stp_kf_ip_set returns goes back with stp_kf_ip_restore
 * before the callback returns: a changed ip is where ftrace returns to,
 * and what a kprobe single-steps from.
 */
static __always_inline unsigned long stp_kf_ip_set(struct pt_regs *regs,
						   unsigned long ip)
{
	unsigned long was = 0;

	if (regs) {
		was = instruction_pointer(regs);
		instruction_pointer_set(regs, ip);
	}
	return was;
}

static __always_inline void stp_kf_ip_restore(struct pt_regs *regs,
					      unsigned long was)
{
	if (regs)
		instruction_pointer_set(regs, was);
}

/*
 * A lean entry probe's own ftrace_ops function (the generated code names
 * one per lean body): when every probe of the shared ops is of that body,
 * it is the ops' function, with no search and nothing else per hit.
 */
#if STP_KF_HAVE_FTRACE
#define STP_KF_LEAN_HIT(name, probe)					\
	static void notrace name(unsigned long ip, unsigned long parent_ip, \
				 struct ftrace_ops *op,			\
				 struct ftrace_regs *fregs)		\
	{								\
		stp_probe_lean(probe);					\
	}
#define STP_KF_LEAN_REF(name) ((void *)(name))
/*
 * An entry probe's own ftrace_ops function when the ops serves only it:
 * no search, its handler inlined, the registers only when it reads them
 * (the ops saves them only then). ftrace calls it with preemption on;
 * the context's busy flag is the recursion guard (nothing before it is
 * traceable).
 */
#define STP_KF_HIT(name, run, probe, use)				\
	static void notrace name(unsigned long ip, unsigned long parent_ip, \
				 struct ftrace_ops *op,			\
				 struct ftrace_regs *fregs)		\
	{								\
		struct pt_regs *regs = ((use) & STP_USE_REGS) ?		\
				       ftrace_get_regs(fregs) : NULL;	\
		unsigned long was = stp_kf_ip_set(regs, ip);		\
									\
		preempt_disable_notrace();				\
		run(probe, NULL, regs);					\
		preempt_enable_notrace();				\
		stp_kf_ip_restore(regs, was);				\
	}
#else
#define STP_KF_LEAN_HIT(name, probe)
#define STP_KF_LEAN_REF(name) NULL
#define STP_KF_HIT(name, run, probe, use)
#endif

void stp_kf_save_entry(const struct stp_probe *p, struct pt_regs *regs,
		       void *data);
const char *stp_kfunc_how(const struct stp_probe *p);

/* procfs probes (procfs.c): the file's text during a read or write probe */
struct stp_procfs_data {
	char *buf;			/* NUL-terminated */
	size_t len, size;
};

struct stp_procfs_data *stp_procfs_data(struct stp_context *c);
void stp_procfs_set(struct stp_context *c, const char *s, bool append);

int stp_session_init(const struct stp_probe *probes, size_t n);
void stp_session_exit(void);

#ifdef STP_HAVE_GLOBALS
/* the generated code's: allocate / free its arrays and statistics */
static int stp_globals_init(void);
static void stp_globals_free(void);
#define STP_MODULE_GLOBALS .globals_init = stp_globals_init,		\
			   .globals_free = stp_globals_free,
#else
#define STP_MODULE_GLOBALS
#endif
#ifdef STP_KFUNC_ANCHOR_SYM
#define STP_MODULE_ANCHOR .kfunc_anchor = (unsigned long)&STP_KFUNC_ANCHOR_SYM, \
			  .kfunc_anchor_link = STP_KFUNC_ANCHOR_LINK,
/* a link-time address of the kernel image (a static variable's DWARF
 * location, DW_OP_addr) where it is now: moved by the KASLR offset */
#define STP_KERNEL_ADDR(link) ((u64)(link) +				\
			       (u64)((unsigned long)&STP_KFUNC_ANCHOR_SYM -	\
				     STP_KFUNC_ANCHOR_LINK))
#else
#define STP_MODULE_ANCHOR
#endif

/* stp_module: this module's constants, for the runtime object */
#define STP_MODULE_DESC()						\
	const struct stp_module_desc stp_module = {			\
		.name = STP_MODULE_NAME,				\
		.frame_size = STP_FRAME_SIZE,				\
		.maxnesting = STP_MAXNESTING,				\
		.iter_slots = STP_ITER_SLOTS,				\
		.ncounters = STP_NCOUNTERS,				\
		STP_MODULE_GLOBALS					\
		STP_MODULE_ANCHOR					\
	}

/* The module: its stp_module, and init/exit running the table */
#define STP_MODULE_PROBES(table)					\
	STP_MODULE_DESC();						\
	static int __init stp_module_init(void)				\
	{								\
		return stp_session_init(table, ARRAY_SIZE(table));	\
	}								\
	static void __exit stp_module_exit(void)			\
	{								\
		stp_session_exit();					\
	}								\
	module_init(stp_module_init);					\
	module_exit(stp_module_exit);					\
	MODULE_LICENSE("GPL")

#endif /* RUNTIME_PROBES_H */
