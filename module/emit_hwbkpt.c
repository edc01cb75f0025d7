// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_HWBKPT in the kernel module: a wide hardware breakpoint (one
 * debug register on every CPU) per probe, armed by runtime/hwbkpt.c; a
 * symbol's address is its link-time one plus the kernel's load offset,
 * which the entry's anchor (an exported function's address here and at
 * link time) gives.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_hwbkpt *hb = &cg->prog->probes[i]->attach.hwbkpt;

	fprintf(out, ", .addr = 0x%" PRIx64 "ULL, .len = %u, .rw = %s",
		hb->addr, hb->length, hb->rw ? "true" : "false");
	if (hb->symbol)
		fprintf(out, ",\n\t  .symbol = %s, .anchor = (unsigned long)&%s, "
			".anchor_link = 0x%" PRIx64 "ULL",
			c_string(cg, hb->symbol, strlen(hb->symbol)),
			hb->anchor_sym, hb->anchor_addr);
}

const struct kind_emit emit_hwbkpt = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.table_type = "struct stp_hwbkpt_probe",
	.table_name = "stp_hwbkpt_probes",
	.table_ops = "stp_hwbkpt_kind",
	.fields = fields,
};
