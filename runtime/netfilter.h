/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netfilter probes (netfilter.c): the module's table of hooks, and the
 * context variables of the packet being hooked.
 */
#ifndef RUNTIME_NETFILTER_H
#define RUNTIME_NETFILTER_H

struct stp_nf_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	int pf;				/* NFPROTO_* */
	int hooknum;			/* NF_INET_*, NF_ARP_*, ... */
	int priority;
};

extern const struct stp_kind_ops stp_netfilter_kind;

/* The hook's arguments, as SystemTap 4.8's context variables. */
enum stp_nf_var {
	STP_NF_HOOKNUM, STP_NF_SKB, STP_NF_IN, STP_NF_OUT, STP_NF_OKFN,
	STP_NF_VERDICT,
};

/* A variable of the packet being hooked on this CPU (0 outside a hook). */
int64_t stp_nf_var(enum stp_nf_var v);
/* $verdict = v: the hook's answer (NF_DROP 0, NF_ACCEPT 1, ...). */
void stp_nf_set_verdict(int64_t v);

#endif /* RUNTIME_NETFILTER_H */
