/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-CPU probe contexts: the state a handler runs with (action budget,
 * error, call frames, print buffer) plus the statement/error helpers the
 * generated code calls.  A context is owned by whoever set its busy flag;
 * only the owner touches it or the CPU's ring buffer.
 */
#ifndef RUNTIME_CONTEXT_H
#define RUNTIME_CONTEXT_H

struct stp_probe;
struct stp_map_entry;

#define STP_MAXVALS 64   		/* context values of one probe (faults
					 * is a 64-bit mask) */

/*
 * A typed tracepoint callback's arguments, on its stack for the hit:
 * v[k] is the body's context value k ($x in the order pass 2 numbered
 * them), all[i] the tracepoint's i-th argument (for $$parms). Also a
 * hit's context values read from the registers (see stp_probe.vals).
 */
struct stp_tp_args {
	const int64_t *v;
	const int64_t *all;
	u64 faults;			/* bit k: reading v[k] faulted at the
					 * address v[k] holds ($a->b chains) */
};

struct stp_context {
	atomic_t busy;			/* 1 while a probe owns this context */
	long actionremaining;		/* statements left in this hit */
	int nesting;			/* current call depth, probe = 0 */
	const char *last_error;		/* NULL, or error_buf */
	const char *last_where;		/* location of the error, or NULL */
	const struct stp_probe *probe;	/* probe being run */
	const struct stp_tp_args *tp;	/* typed tracepoint hit, or NULL */
	struct pt_regs *regs;		/* kernel function hit, or NULL */
	bool next;			/* 'next' in a function: leave the probe */
	struct stp_map_entry **iter;	/* foreach snapshots, STP_ITER_SLOTS */
	u32 iter_top;			/* slots in use */
	char *tok_pos;			/* tokenize(): rest of tok_buf or NULL */
	char tok_buf[MAXSTRINGLEN];
	char *frames;			/* (STP_MAXNESTING + 1) frames */
	char *pbuf;			/* print buffer, STP_PRINT_BUF_SIZE */
	size_t plen;			/* bytes used in pbuf */
	u16 ptype;			/* record type pbuf is committed as */
	unsigned int cpu;		/* CPU this context belongs to */
	/* a copy of the first error message; error_buffer is SystemTap's
	 * name, for embedded C that raises an error by hand */
	union {
		char error_buf[MAXSTRINGLEN];
		char error_buffer[MAXSTRINGLEN];
	};
	struct stp_re_match last_match;	/* the last =~ (for matched()) */
	/* a hit's context values read from the registers (c->tp points
	 * at vals_args): filled by the probe's vals before the handler */
	int64_t vals[STP_MAXVALS];
	struct stp_tp_args vals_args;
	/* non-NULL: a return probe's handler runs at the entry, to store
	 * its @entry(...) values here and leave */
	int64_t *entry_out;
};

static __always_inline void *stp_frame(struct stp_context *c, int depth)
{
	return c->frames + (size_t)depth * STP_FRAME_SIZE;
}

void stp_error(struct stp_context *c, const char *msg, const char *where);
__printf(2, 3) void stp_errorf(struct stp_context *c, const char *fmt, ...);
void stp_request_exit(struct stp_context *c);
void stp_warn(struct stp_context *c, const char *msg);
void stp_system(struct stp_context *c, const char *cmd);
void stp_switch_file(struct stp_context *c);

/*
 * Charge n statements; when the budget is gone, raise "MAXACTION exceeded"
 * and leave the handler through its "out" label.
 */
#define STP_ACTION(c, n, where)						\
	do {								\
		(c)->actionremaining -= (n);				\
		if (unlikely((c)->actionremaining <= 0)) {		\
			stp_error((c), "MAXACTION exceeded", (where));	\
			goto out;					\
		}							\
	} while (0)

/* The same, leaving through label instead (inside try, or a function). */
#define STP_ACTION_TO(c, n, where, label)				\
	do {								\
		(c)->actionremaining -= (n);				\
		if (unlikely((c)->actionremaining <= 0)) {		\
			stp_error((c), "MAXACTION exceeded", (where));	\
			goto label;					\
		}							\
	} while (0)

int stp_contexts_alloc(void);
void stp_contexts_free(void);
struct stp_context *stp_context_get(void);
void stp_context_put(struct stp_context *c);

/* This CPU's context (set at load, one per possible CPU). */
DECLARE_PER_CPU(struct stp_context *, stp_ctx);

/*
 * Take this CPU's context with preemption off; NULL when a probe on this
 * CPU owns it already (this hit interrupted it). The busy flag is only
 * ever taken on its own CPU, and an interrupting hit gives it back before
 * the interrupted one goes on, so a plain load and store do: no atomic
 * instruction.
 */
static __always_inline struct stp_context *stp_context_enter(void)
{
	struct stp_context *c = this_cpu_read(stp_ctx);

	if (atomic_read(&c->busy))
		return NULL;
	atomic_set(&c->busy, 1);
	barrier();
	return c;
}

static __always_inline void stp_context_exit(struct stp_context *c)
{
	barrier();
	atomic_set(&c->busy, 0);
}

#endif /* RUNTIME_CONTEXT_H */
