// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_TIMER in the kernel module: an hrtimer (or a jiffies timer)
 * per probe, or a tick on every CPU (profile); runtime/timer.c arms them
 * from the table entry's period and flags.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_timer *t = &cg->prog->probes[i]->attach.timer;

	fprintf(out, ", .period_ns = %" PRIu64 "ULL", t->period_ns);
	if (t->randomize_ns)
		fprintf(out, ", .randomize_ns = %" PRIu64 "ULL",
			t->randomize_ns);
	if (t->jiffies)
		fputs(", .flags = STP_TIMER_JIFFIES", out);
	if (t->profile)
		fputs(", .flags = STP_TIMER_PROFILE", out);
}

const struct kind_emit emit_timer = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.table_type = "struct stp_timer_probe",
	.table_name = "stp_timer_probes",
	.table_ops = "stp_timer_kind",
	.fields = fields,
};
