// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor of the overhead benchmark: the least a tracepoint probe can
 * cost. A plain module that attaches to raw_syscalls:sys_enter and only
 * increments an atomic counter; no runtime, no context, no locks.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static atomic64_t floor_hits;
static struct tracepoint *floor_tp;

/* The tracepoint's own arguments are not read: x86_64 passes them in
 * registers, so a callback declaring only the first is safe here. */
static void floor_probe(void *data)
{
	atomic64_inc(&floor_hits);
}

static void floor_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		floor_tp = tp;
}

static int __init floor_init(void)
{
	for_each_kernel_tracepoint(floor_find, NULL);
	if (!floor_tp)
		return -ENOENT;
	return tracepoint_probe_register(floor_tp, (void *)floor_probe, NULL);
}

static void __exit floor_exit(void)
{
	tracepoint_probe_unregister(floor_tp, (void *)floor_probe, NULL);
	tracepoint_synchronize_unregister();
	pr_info("floor: %lld hits\n", (long long)atomic64_read(&floor_hits));
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
