// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_PERF in the kernel module: a perf event per CPU for each probe
 * (runtime/perf.c), sampled (its overflow runs the probe) or a counter
 * that @perf("NAME") reads in any probe: this CPU's count.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_perf *pe = &cg->prog->probes[i]->attach.perf;

	fprintf(out, ", .type = %" PRIu32 ", .config = %" PRIu64 "ULL, "
		".sample = %" PRIu64 "ULL", pe->type, pe->config, pe->sample);
	if (pe->freq)
		fputs(", .freq = true", out);
	if (pe->counter)
		fputs(", .counter = true", out);
	/* .process: a per-task event of this program (""= the target) */
	const char *exe = cg->prog->probes[i]->attach.filter.exe;
	if (exe)
		fputs(", .task = true", out);
	if (exe && *exe)
		fprintf(out, ", .exe = %s", c_string(cg, exe, strlen(exe)));
}

/* @perf("NAME"): the count of the perf table's entry declaring NAME */
static const char *at_perf(struct cg *cg, struct node *n)
{
	const struct program *prog = cg->prog;
	const struct node *arg = n->call.args;
	const char *t;
	int k = 0;

	if (strcmp(n->call.name, "@perf"))
		return NULL;
	for (int i = 0; i < prog->nprobes; i++) {
		const struct attach *a = &prog->probes[i]->attach;

		if (a->kind != ATTACH_PERF)
			continue;
		if (a->perf.counter && !strcmp(a->perf.counter, arg->str.value))
			break;
		k++;
	}
	t = tmp_long(cg);
	emit(cg, "int64_t %s = stp_perf_read(%d);", t, k);
	return t;
}

const struct kind_emit emit_perf = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.table_type = "struct stp_perf_probe",
	.table_name = "stp_perf_probes",
	.table_ops = "stp_perf_kind",
	.fields = fields,
	.at_func = at_perf,
};
