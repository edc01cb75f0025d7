/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracepoint probes (tracepoint.c): the module's table of them, and the
 * callbacks the generated code defines.
 */
#ifndef RUNTIME_TRACEPOINT_H
#define RUNTIME_TRACEPOINT_H

struct stp_tp_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	const char *name;		/* e.g. "sched_switch" */
	const char *system;		/* its system ($$system): "sched" */
	/* $$parms / $$vars, plain, '$' and '$$' (NULL: not used) */
	const struct stp_tp_parm *parms[STP_PARMS_MODES];
	void *callback;			/* typed or lean callback, NULL:
					 * generic */
	bool shared;			/* run by another entry's callback (a
					 * dispatch on an argument): never
					 * registered itself */
	bool in_module;			/* defined by a module, not vmlinux:
					 * armed while that module is loaded */
};

extern const struct stp_kind_ops stp_tracepoint_kind;

/* The tracepoint entry of the probe c runs ($$name, $$system, $$parms). */
static __always_inline const struct stp_tp_probe *
stp_tp_of(const struct stp_context *c)
{
	return c->probe->attach;
}

/* p's tracepoint entry, or NULL: p is no tracepoint probe */
const struct stp_tp_probe *stp_tp_probe_of(const struct stp_probe *p);

/* pretty.c: $$parms in mode 0..2 of the current tracepoint hit */
void __maybe_unused stp_tp_parms(struct stp_context *c, char *dst, int mode,
				 char *scratch);

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

#endif /* RUNTIME_TRACEPOINT_H */
