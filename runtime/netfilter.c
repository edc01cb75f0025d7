// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netfilter probes: one struct nf_hook_ops per entry of the module's
 * table (struct stp_nf_probe, netfilter.h), registered in every network
 * namespace, those that exist at the arm and those made later, through a
 * pernet_operations whose init and exit register and unregister them.
 *
 * The hook runs the probe with the packet (skb) and the hook's state in
 * a per-CPU slot the context variables read; its verdict starts as
 * NF_ACCEPT and $verdict (-g) sets it. Hooks run in softirq or process
 * context with preemption possibly on: it is off around the run.
 */
#include <linux/netfilter.h>
#include <net/net_namespace.h>

struct stp_nf_hit {
	struct sk_buff *skb;
	const struct nf_hook_state *state;
	unsigned int verdict;
};

static DEFINE_PER_CPU(struct stp_nf_hit *, stp_nf_cur);
static struct nf_hook_ops *stp_nf_ops;
static size_t stp_nnf_ops;
static bool stp_nf_registered;

int64_t stp_nf_var(enum stp_nf_var v)
{
	const struct stp_nf_hit *h = this_cpu_read(stp_nf_cur);

	if (!h)
		return 0;
	switch (v) {
	case STP_NF_HOOKNUM:
		return h->state->hook;
	case STP_NF_SKB:
		return (int64_t)(unsigned long)h->skb;
	case STP_NF_IN:
		return (int64_t)(unsigned long)h->state->in;
	case STP_NF_OUT:
		return (int64_t)(unsigned long)h->state->out;
	case STP_NF_OKFN:
		return (int64_t)(unsigned long)h->state->okfn;
	case STP_NF_VERDICT:
		return h->verdict;
	}
	return 0;
}

void stp_nf_set_verdict(int64_t v)
{
	struct stp_nf_hit *h = this_cpu_read(stp_nf_cur);

	if (h)
		h->verdict = (unsigned int)v;
}

static unsigned int stp_nf_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	const struct stp_nf_probe *k = priv;
	struct stp_nf_hit hit = {
		.skb = skb, .state = state, .verdict = NF_ACCEPT,
	};
	struct stp_nf_hit *outer;

	if (k->probe->lean) {	/* counts only: no variables, no verdict */
		stp_probe_lean(k->probe);
		return NF_ACCEPT;
	}
	preempt_disable_notrace();
	outer = this_cpu_read(stp_nf_cur);
	this_cpu_write(stp_nf_cur, &hit);
	stp_probe_run(k->probe);
	this_cpu_write(stp_nf_cur, outer);
	preempt_enable_notrace();
	return hit.verdict;
}

static int __net_init stp_nf_net_init(struct net *net)
{
	return nf_register_net_hooks(net, stp_nf_ops, stp_nnf_ops);
}

static void __net_exit stp_nf_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, stp_nf_ops, stp_nnf_ops);
}

static struct pernet_operations stp_nf_net_ops = {
	.init = stp_nf_net_init,
	.exit = stp_nf_net_exit,
};

static void stp_netfilter_disarm(void)
{
	if (stp_nf_registered)
		unregister_pernet_subsys(&stp_nf_net_ops);
	stp_nf_registered = false;
	kfree(stp_nf_ops);
	stp_nf_ops = NULL;
	stp_nnf_ops = 0;
}

static int stp_netfilter_arm(const void *table, size_t n)
{
	const struct stp_nf_probe *tab = table;
	int ret;

	if (!n)
		return 0;
	stp_nf_ops = kcalloc(n, sizeof(*stp_nf_ops), GFP_KERNEL);
	if (!stp_nf_ops)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		stp_nf_ops[i].hook = stp_nf_hook;
		stp_nf_ops[i].pf = tab[i].pf;
		stp_nf_ops[i].hooknum = tab[i].hooknum;
		stp_nf_ops[i].priority = tab[i].priority;
		stp_nf_ops[i].priv = (void *)&tab[i];
	}
	stp_nnf_ops = n;
	ret = register_pernet_subsys(&stp_nf_net_ops);
	if (ret) {
		char rc[96];

		snprintf(rc, sizeof(rc),
			 " registration error [man warning::pass5] (rc %d)\n",
			 ret);
		stp_ctl_stderr("ERROR: probe ", tab[0].probe->pp, rc, NULL);
		return ret;
	}
	stp_nf_registered = true;
	return 0;
}

const struct stp_kind_ops stp_netfilter_kind = {
	.name = "netfilter",
	.entry_size = sizeof(struct stp_nf_probe),
	.arm = stp_netfilter_arm,
	.disarm = stp_netfilter_disarm,
};
