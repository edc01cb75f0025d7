// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_TIMER in the kernel module: an hrtimer (or a jiffies timer)
 * per probe, or a tick on every CPU (profile); runtime/timer.c arms them
 * from the table entry's period and flags.
 */
#include "codegen/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_TIMER";
}

static void head_fields(struct cg *cg, int i, FILE *out)
{
	fprintf(out, ",\n\t  .period_ns = %" PRIu64 "ULL",
		cg->prog->probes[i]->attach.timer.period_ns);
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_timer *t = &cg->prog->probes[i]->attach.timer;

	if (t->randomize_ns)
		fprintf(out, ", .randomize_ns = %" PRIu64 "ULL",
			t->randomize_ns);
	if (t->jiffies)
		fputs(", .timer_flags = STP_TIMER_JIFFIES", out);
	if (t->profile)
		fputs(", .timer_flags = STP_TIMER_PROFILE", out);
}

const struct kind_emit emit_timer = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.head_fields = head_fields,
	.fields = fields,
};
