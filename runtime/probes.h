/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe table a generated module hands to the runtime, and the
 * STP_MODULE_PROBES() macro that turns it into module init/exit.
 *
 * Every probe has an entry in the one table (struct stp_probe: what every
 * probe has); an event probe also has one in the table of its attach
 * kind, whose own file under runtime/ (and its header) defines the entry
 * and arms the table: the module hands the session a list of those
 * tables (struct stp_kind_table). Nothing here names a kind.
 */
#ifndef RUNTIME_PROBES_H
#define RUNTIME_PROBES_H

enum stp_probe_type {
	STP_PROBE_BEGIN,		/* runs on "start", by priority */
	STP_PROBE_END,			/* runs on "stop", by priority */
	STP_PROBE_ERROR,		/* runs on "stop" after a fatal error */
	STP_PROBE_EVENT,		/* runs on events while the session
					 * runs: armed by its kind's table */
};

/*
 * One lock an event handler takes: the rwlock of a global that event
 * probes share (module/locks.c), for writing or reading; for a
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
	const struct stp_lock *locks;	/* event probes: the globals' locks
					 * the handler needs, in order */
	unsigned int nlocks;
	/* an event probe whose body reads context values ($count,
	 * $file->f_pos) that its kind computes from the registers at the
	 * event: v[k] and bit k of *faults (as struct stp_tp_args), nvals of
	 * them; NULL: its kind hands them over itself */
	void (*vals)(struct pt_regs *regs, int64_t *v, u64 *faults);
	unsigned int nvals;
	/* an event probe: its entry in its kind's table (the kind's
	 * header's struct), for the handler's reads of the kind's own
	 * values */
	const void *attach;
};

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
	if ((use & STP_USE_REGS) && regs && !args && p->vals) {
		/* values from the registers at the event: now */
		p->vals(regs, c->vals, &c->vals_args.faults);
		c->vals_args.v = c->vals;
		c->vals_args.all = NULL;
		c->tp = &c->vals_args;
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

/*
 * An attach kind's operations (its runtime file): arm the n entries of
 * its table (on a failure, the session disarms every kind), disarm them
 * (safe when not armed), and free what outlives a disarm (optional).
 */
struct stp_kind_ops {
	const char *name;		/* for messages */
	size_t entry_size;		/* of an entry of its table */
	int (*arm)(const void *table, size_t n);
	void (*disarm)(void);
	void (*free)(void);
};

/* One kind's table in this module; a list of them ends with ops NULL. */
struct stp_kind_table {
	const struct stp_kind_ops *ops;
	const void *table;
	size_t n;
};

int stp_session_init(const struct stp_probe *probes, size_t n,
		     const struct stp_kind_table *kinds);
/* The kind whose table has p's entry, or NULL (begin, end, error) */
const struct stp_kind_ops *stp_probe_kind(const struct stp_probe *p);
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
/* STP_MODULE_ANCHOR: the fields of stp_module that the kinds' headers
 * fill in (the kernel image's load offset), or nothing */

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
		STP_MODULE_MODSYMS					\
	}

/* The module: its stp_module, and init/exit running the table and
 * the kinds' tables */
#define STP_MODULE_PROBES(table, kinds)					\
	STP_MODULE_DESC();						\
	static int __init stp_module_init(void)				\
	{								\
		return stp_session_init(table, ARRAY_SIZE(table), kinds); \
	}								\
	static void __exit stp_module_exit(void)			\
	{								\
		stp_session_exit();					\
	}								\
	module_init(stp_module_init);					\
	module_exit(stp_module_exit);					\
	MODULE_LICENSE("GPL")

#endif /* RUNTIME_PROBES_H */
