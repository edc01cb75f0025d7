// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netfilter.hook("HOOK").pf("PF")[.priority("N")] and
 * netfilter.pf("PF").hook("HOOK")[.priority("N")]: a netfilter hook in
 * every network namespace (ATTACH_NETFILTER) that runs the probe for each
 * packet passing it. Its context variables are SystemTap 4.8's: $hooknum,
 * $skb, $in, $out, $okfn (read-only, as longs), and $verdict (the hook's
 * answer, NF_ACCEPT unless the probe sets it; guru mode only, read or
 * written). The names are SystemTap's: the protocol families
 * NFPROTO_IPV4/IPV6/ARP/BRIDGE and each one's hooks; with -g any other
 * name is passed to the C compiler as written (a kernel constant).
 */
#include "probes/probes.h"

struct nf_name {
	const char *name;
	int value;
};

static const struct nf_name nf_pfs[] = {
	{ "NFPROTO_IPV4", 2 }, { "NFPROTO_IPV6", 10 }, { "NFPROTO_ARP", 3 },
	{ "NFPROTO_BRIDGE", 7 },
};

/* each family's hooks (uapi netfilter headers), by pf */
static const struct nf_name nf_ipv4_hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 },
	{ "NF_INET_FORWARD", 2 }, { "NF_INET_LOCAL_OUT", 3 },
	{ "NF_INET_POST_ROUTING", 4 },
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 },
	{ "NF_IP_FORWARD", 2 }, { "NF_IP_LOCAL_OUT", 3 },
	{ "NF_IP_POST_ROUTING", 4 }, { NULL, 0 },
};
static const struct nf_name nf_ipv6_hooks[] = {
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 },
	{ "NF_IP6_FORWARD", 2 }, { "NF_IP6_LOCAL_OUT", 3 },
	{ "NF_IP6_POST_ROUTING", 4 }, { NULL, 0 },
};
static const struct nf_name nf_arp_hooks[] = {
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 },
	{ NULL, 0 },
};
static const struct nf_name nf_bridge_hooks[] = {
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 },
	{ "NF_BR_FORWARD", 2 }, { "NF_BR_LOCAL_OUT", 3 },
	{ "NF_BR_POST_ROUTING", 4 }, { NULL, 0 },
};

static const struct nf_name *hooks_of(int pf)
{
	switch (pf) {
	case 2: return nf_ipv4_hooks;
	case 10: return nf_ipv6_hooks;
	case 3: return nf_arp_hooks;
	case 7: return nf_bridge_hooks;
	default: return NULL;
	}
}

static const struct nf_name *nf_find(const struct nf_name *t, size_t n,
				     const char *name)
{
	for (size_t i = 0; t && i < n && t[i].name; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* A decimal integer, all of s (SystemTap's priorities are strings). */
static bool nf_number(const char *s, int64_t *out)
{
	char *end;

	if (!*s)
		return false;
	*out = strtoll(s, &end, 10);
	return !*end;
}

static int derive(struct sema *se, struct node *point,
		  struct derived_probe *dp)
{
	struct node *c = point->point.comps->next, *hook = NULL, *pf = NULL;
	struct node *prio = NULL;
	struct attach_netfilter *nf = &dp->attach.netfilter;
	struct arena *a = &se->s->arena;

	for (int i = 0; i < 2; i++, c = c ? c->next : NULL) {
		if (comp_is(c, "hook") && is_str_arg(c) && !hook)
			hook = c;
		else if (comp_is(c, "pf") && is_str_arg(c) && !pf)
			pf = c;
		else
			return -1;
	}
	if (comp_is(c, "priority") && is_str_arg(c)) {
		prio = c;
		c = c->next;
	}
	if (c)
		return -1;
	dp->attach.kind = ATTACH_NETFILTER;
	const char *pf_name = pf->comp.arg->str.value;
	const struct nf_name *p = nf_find(nf_pfs, sizeof(nf_pfs) /
					  sizeof(nf_pfs[0]), pf_name);
	if (p) {
		nf->pf = arena_printf(a, "%d", p->value);
	} else if (se->s->guru) {
		nf->pf = pf_name;
	} else {
		return point_error(se, point, pf, arena_printf(a, "unsupported "
				   "netfilter protocol family '%s' "
				   "(NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP or "
				   "NFPROTO_BRIDGE)", pf_name));
	}
	const char *hook_name = hook->comp.arg->str.value;
	const struct nf_name *h = p ? nf_find(hooks_of(p->value), 16,
					      hook_name) : NULL;
	if (h)
		nf->hook = arena_printf(a, "%d", h->value);
	else if (se->s->guru)
		nf->hook = hook_name;
	else
		return point_error(se, point, hook, arena_printf(a,
				   "unsupported netfilter hook \"%s\" for "
				   "protocol family \"%s\"; need stap -g",
				   hook_name, nf->pf));
	int64_t v = 0;
	const char *prio_name = prio ? prio->comp.arg->str.value : "0";
	if (nf_number(prio_name, &v))
		nf->priority = arena_printf(a, "%" PRId64, v);
	else if (se->s->guru)
		nf->priority = prio_name;
	else
		return point_error(se, point, prio, arena_printf(a,
				   "unsupported netfilter priority \"%s\" for "
				   "protocol family \"%s\"; need stap -g",
				   prio_name, nf->pf));
	return true;
}

static const char *const nf_vars[] = {
	"$hooknum", "$skb", "$in", "$out", "$okfn", "$verdict",
};

/* $hooknum ... $verdict, read (op 0) or assigned with op: SystemTap's
 * checks and messages. */
static enum type nf_value(struct sema *se, struct node *n, int op)
{
	const char *root = context_root(n);
	const char *msg = NULL;
	bool known = false;

	if (!root)
		return n->type = TY_LONG;
	for (size_t i = 0; i < sizeof(nf_vars) / sizeof(nf_vars[0]); i++)
		known |= !strcmp(root, nf_vars[i]);
	const struct node *step = context_step(n);
	if (!known)
		msg = arena_printf(&se->s->arena, "unsupported context "
				   "variable '%s' in a netfilter probe ($hooknum, "
				   "$skb, $in, $out, $okfn, $verdict)", root);
	else if (!strcmp(root, "$verdict") && !se->s->guru)
		msg = "write to netfilter verdict requires guru mode; need "
		      "stap -g";
	else if (step)
		msg = arena_printf(&se->s->arena, "netfilter variable '%s' "
				   "cannot be used as %s: it is a long (read "
				   "its fields with @cast)", root,
				   step->kind == N_TMEMBER ? "a structure" :
				   "an array");
	else if (op && strcmp(root, "$verdict"))
		msg = "write to netfilter parameter not permitted";
	else if (op && op != OP_ASSIGN)
		msg = "only '=' assigns the netfilter verdict";
	if (msg && se->report)
		diag_error(se->s, n->loc, "%s", msg);
	return n->type = TY_LONG;
}

static enum type context(struct sema *se, struct node *n, bool addr_of)
{
	(void)addr_of;
	return nf_value(se, n, 0);
}

static bool context_assign(struct sema *se, struct node *assign,
			   enum type *type)
{
	struct node *rhs = assign->binary.rhs;

	*type = nf_value(se, assign->binary.lhs, assign->binary.op);
	expect(se, rhs, infer(se, rhs, *type), *type);
	return true;
}

static const char *const roots[] = { "netfilter", NULL };
static const char *const probe_types[] = {
	"netfilter.hook(string).pf(string)",
	"netfilter.hook(string).pf(string).priority(string)",
	"netfilter.pf(string).hook(string)",
	"netfilter.pf(string).hook(string).priority(string)",
	NULL,
};

const struct probe_family netfilter_family = {
	.point_size = sizeof(struct derived_probe),
	.name = "netfilter",
	.roots = roots,
	.tapset_aliases = true,		/* netfilter.ipv4.* ... */
	.probe_types = probe_types,
	.derive = derive,
	.context = context,
	.first_claims = true,
	.context_assign = context_assign,
	.writable = true,
};
