// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_ONCE in the kernel module: begin, end and error probes, which
 * the runtime runs itself (at start, at stop, at stop after a fatal
 * error) by ascending priority; never has no table entry.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	switch (dp->attach.once.when) {
	case ONCE_BEGIN: return "STP_PROBE_BEGIN";
	case ONCE_END: return "STP_PROBE_END";
	case ONCE_ERROR: return "STP_PROBE_ERROR";
	default: return NULL;	/* never: checked, then dropped */
	}
}

static void head_fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_once *o = &cg->prog->probes[i]->attach.once;

	if (o->priority)
		fprintf(out, ",\n\t  .priority = %" PRId64 "LL", o->priority);
}

const struct kind_emit emit_once = {
	.probe_type = probe_type,
	.head_fields = head_fields,
};
