// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor for kernel.function probes: the least an ftrace hook on one
 * function can cost. A plain module with its own ftrace_ops filtered to
 * __x64_sys_getppid that only increments an atomic counter; no runtime,
 * no context, no locks. regs=1 asks ftrace for the full pt_regs
 * (FTRACE_OPS_FL_SAVE_REGS), as a probe that reads registers needs.
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/module.h>

static bool regs;
module_param(regs, bool, 0444);

static atomic64_t kfloor_hits;

static void notrace kfloor_func(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic64_inc(&kfloor_hits);
}

static struct ftrace_ops kfloor_ops = {
	.func = kfloor_func,
};

static int __init kfloor_init(void)
{
	/* ftrace names an address by one of its aliases (__do_sys_,
	 * __ia32_sys_ or __x64_sys_getppid share it): match any */
	static unsigned char name[] = "*sys_getppid";
	int err;

	if (regs)
		kfloor_ops.flags |= FTRACE_OPS_FL_SAVE_REGS;
	err = ftrace_set_filter(&kfloor_ops, name, sizeof(name) - 1, 1);
	if (err)
		return err;
	return register_ftrace_function(&kfloor_ops);
}

static void __exit kfloor_exit(void)
{
	unregister_ftrace_function(&kfloor_ops);
	pr_info("kfloor: %lld hits\n", (long long)atomic64_read(&kfloor_hits));
}

module_init(kfloor_init);
module_exit(kfloor_exit);
MODULE_LICENSE("GPL");
