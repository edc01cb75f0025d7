/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf probes (perf.c): the module's table of them, each a perf event
 * on every online CPU (or, with .process, on every task of a program),
 * sampled or counting.
 */
#ifndef RUNTIME_PERF_H
#define RUNTIME_PERF_H

struct stp_perf_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	u32 type;			/* perf_event_attr's type, config */
	u64 config;
	u64 sample;			/* period (or frequency); 0: counter */
	bool freq;			/* sample is a frequency */
	bool counter;			/* counts only: @perf reads it */
	/* .process: an event per task of the program instead (its
	 * executable's path, or NULL: the -c/-x target process) */
	bool task;
	const char *exe;
};

extern const struct stp_kind_ops stp_perf_kind;

/* @perf: the count of entry k's event on this CPU (0 when it has none) */
int64_t stp_perf_read(unsigned int k);

#endif /* RUNTIME_PERF_H */
