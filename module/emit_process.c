// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_PROCESS in the kernel module: one entry per probe in
 * runtime/process.c's table (the event, the task filter); the runtime
 * follows forks, execs, exits and system calls through the scheduler's
 * and raw_syscalls' tracepoints and runs the entries whose filter
 * matches. A probe whose body reads $syscall, $argN or $return gets a
 * function copying the event's values (PROC_VALUE_*) into its slots.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static const char *const events[] = {
	[PROC_BEGIN] = "STP_PROC_BEGIN", [PROC_END] = "STP_PROC_END",
	[PROC_THREAD_BEGIN] = "STP_PROC_THREAD_BEGIN",
	[PROC_THREAD_END] = "STP_PROC_THREAD_END",
	[PROC_SYSCALL] = "STP_PROC_SYSCALL",
	[PROC_SYSCALL_RETURN] = "STP_PROC_SYSCALL_RETURN",
};

/* The value copiers of the probes whose bodies read values. */
static void support(struct cg *cg, FILE *out)
{
	for (int i = 0; i < cg->prog->nprobes; i++) {
		const struct attach *at = &cg->prog->probes[i]->attach;
		if (at->kind != ATTACH_PROCESS || !at->nvalues)
			continue;
		fprintf(out, "static void stp_proc_vals_%d(const int64_t *raw, "
			"int64_t *v)\n{\n", i);
		for (int k = 0; k < at->nvalues; k++)
			if (at->values[k])
				fprintf(out, "\tv[%d] = raw[%d];\n", k,
					at->values[k]->arg);
		fputs("}\n\n", out);
	}
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach *at = &cg->prog->probes[i]->attach;

	fprintf(out, ", .event = %s", events[at->process.event]);
	if (at->filter.pid)
		fprintf(out, ", .pid = %lld", (long long)at->filter.pid);
	if (at->filter.exe)
		fprintf(out, ", .exe = %s", c_string(cg, at->filter.exe,
						    strlen(at->filter.exe)));
	if (at->nvalues)
		fprintf(out, ", .vals = stp_proc_vals_%d", i);
}

const struct kind_emit emit_process = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.support = support,
	.table_type = "struct stp_proc_probe",
	.table_name = "stp_proc_probes",
	.table_ops = "stp_process_kind",
	.fields = fields,
};
