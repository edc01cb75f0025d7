// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_NETFILTER in the kernel module: a netfilter hook per probe in
 * every network namespace (runtime/netfilter.c). Its context variables
 * are the hook's arguments, read from the hit the runtime keeps while
 * the probe runs; $verdict (-g) is the hook's answer.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_netfilter *nf =
		&cg->prog->probes[i]->attach.netfilter;

	fprintf(out, ", .pf = %s, .hooknum = %s, .priority = %s", nf->pf,
		nf->hook, nf->priority);
}

static const struct {
	const char *name, *var;
} nf_vars[] = {
	{ "$hooknum", "STP_NF_HOOKNUM" }, { "$skb", "STP_NF_SKB" },
	{ "$in", "STP_NF_IN" }, { "$out", "STP_NF_OUT" },
	{ "$okfn", "STP_NF_OKFN" }, { "$verdict", "STP_NF_VERDICT" },
};

static const char *nf_read(struct cg *cg, struct node *n)
{
	const char *t = tmp_long(cg);

	for (size_t i = 0; i < sizeof(nf_vars) / sizeof(nf_vars[0]); i++)
		if (n->kind == N_TARGET && !strcmp(n->target.name,
						   nf_vars[i].name)) {
			emit(cg, "int64_t %s = stp_nf_var(%s);", t,
			     nf_vars[i].var);
			return t;
		}
	unsupported(cg, n, "this netfilter variable");
	return "0";
}

/* $verdict = v (pass 2 allows only that, with -g) */
static const char *nf_assign(struct cg *cg, struct node *n)
{
	const struct node *lhs = n->binary.lhs;
	const char *v;

	if (lhs->kind != N_TARGET || strcmp(lhs->target.name, "$verdict"))
		return NULL;
	v = gen_expr(cg, n->binary.rhs);
	emit(cg, "stp_nf_set_verdict(%s);", v);
	return v;
}

const struct kind_emit emit_netfilter = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.table_type = "struct stp_nf_probe",
	.table_name = "stp_nf_probes",
	.table_ops = "stp_netfilter_kind",
	.fields = fields,
	.context = nf_read,
	.assign = nf_assign,
};
