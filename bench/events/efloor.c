// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/events.sh's floors: the least a module can do per event of the
 * kind, an atomic increment.
 *   mode=perf: a software perf event (page faults, every one sampled) on
 *     every online CPU, whose overflow handler increments the counter;
 *   mode=nf: an IPv4 LOCAL_OUT netfilter hook in init_net that increments
 *     it and accepts the packet.
 */
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/perf_event.h>
#include <net/net_namespace.h>

static char *mode = "perf";
module_param(mode, charp, 0444);

static atomic_t hits;
static struct perf_event *events[NR_CPUS];

static void overflow(struct perf_event *e, struct perf_sample_data *d,
		     struct pt_regs *regs)
{
	atomic_inc(&hits);
}

static unsigned int hook(void *priv, struct sk_buff *skb,
			 const struct nf_hook_state *state)
{
	atomic_inc(&hits);
	return NF_ACCEPT;
}

static struct nf_hook_ops ops = {
	.hook = hook, .pf = NFPROTO_IPV4, .hooknum = NF_INET_LOCAL_OUT,
};

static int __init efloor_init(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
		.pinned = 1,
	};
	int cpu;

	if (!strcmp(mode, "nf"))
		return nf_register_net_hook(&init_net, &ops);
	for_each_online_cpu(cpu) {
		struct perf_event *e;

		e = perf_event_create_kernel_counter(&attr, cpu, NULL,
						     overflow, NULL);
		if (IS_ERR(e))
			return PTR_ERR(e);
		events[cpu] = e;
	}
	return 0;
}

static void __exit efloor_exit(void)
{
	int cpu;

	if (!strcmp(mode, "nf")) {
		nf_unregister_net_hook(&init_net, &ops);
		return;
	}
	for_each_online_cpu(cpu)
		if (events[cpu])
			perf_event_release_kernel(events[cpu]);
}

module_init(efloor_init);
module_exit(efloor_exit);
MODULE_LICENSE("GPL");
