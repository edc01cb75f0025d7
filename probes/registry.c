// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe families, in the order pass 2 tries their derive hooks (and
 * offers their names as suggestions for an unknown point). This is the
 * one list of families in the compiler: a new family is its own file in
 * probes/ plus its name in the two lists here.
 */
#include "probes/probes.h"

extern const struct probe_family begin_end_family, timer_family,
	kernel_function_family, tracepoint_family, procfs_family,
	process_function_family, perf_family, hwbkpt_family, netfilter_family,
	kprobe_family, process_family, unsupported_family;

const struct probe_family *const probe_families[] = {
	&begin_end_family,
	&timer_family,
	&kernel_function_family,	/* kernel.function, kernel.statement */
	&tracepoint_family,		/* kernel.trace */
	&procfs_family,
	&process_function_family,	/* process("P").function/.plt/.mark */
	&perf_family,
	&hwbkpt_family,			/* kernel.data */
	&netfilter_family,
	&kprobe_family,			/* kprobe.*, kernel.statement(A).absolute */
	&process_family,		/* process.begin/.end/.syscall ... */
	&unsupported_family,		/* process(...).function ... */
	NULL,
};
