// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor for uprobes: the least a uprobe on one instruction can cost.
 * A plain module with one uprobe consumer (path and offset as module
 * parameters, the file looked up at load) whose handler only increments
 * an atomic counter; no runtime, no context. ret=1 puts it on the
 * function's return (a uretprobe) instead.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>
#include <linux/version.h>

static char *path;
module_param(path, charp, 0444);
static unsigned long offset;
module_param(offset, ulong, 0444);
static bool ret;
module_param(ret, bool, 0444);

static atomic64_t ufloor_hits;
static struct inode *ufloor_inode;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static struct uprobe *ufloor_up;
#endif

static int ufloor_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	atomic64_inc(&ufloor_hits);
	return 0;
}

static int ufloor_ret(struct uprobe_consumer *uc, unsigned long func,
		      struct pt_regs *regs)
{
	atomic64_inc(&ufloor_hits);
	return 0;
}

static struct uprobe_consumer ufloor_uc;

static int __init ufloor_init(void)
{
	struct path p;
	int err = kern_path(path, LOOKUP_FOLLOW, &p);

	if (err)
		return err;
	ufloor_inode = igrab(d_inode(p.dentry));
	path_put(&p);
	if (ret)
		ufloor_uc.ret_handler = ufloor_ret;
	else
		ufloor_uc.handler = ufloor_hit;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	ufloor_up = uprobe_register(ufloor_inode, offset, 0, &ufloor_uc);
	err = IS_ERR(ufloor_up) ? PTR_ERR(ufloor_up) : 0;
#else
	err = uprobe_register(ufloor_inode, offset, &ufloor_uc);
#endif
	if (err)
		iput(ufloor_inode);
	return err;
}

static void __exit ufloor_exit(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(ufloor_up, &ufloor_uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(ufloor_inode, offset, &ufloor_uc);
#endif
	iput(ufloor_inode);
	pr_info("ufloor: %lld hits\n", (long long)atomic64_read(&ufloor_hits));
}

module_init(ufloor_init);
module_exit(ufloor_exit);
MODULE_LICENSE("GPL");
