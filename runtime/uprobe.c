// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-space probes: the module's table of struct stp_uprobe_probe
 * (uprobe.h), one kernel uprobe consumer each.
 *
 * Where: the binary's path as stap resolved it (symbolic links followed,
 * a bare name found on PATH) is looked up again here, in the kernel,
 * when the session arms (kern_path): the inode it names now is the one
 * probed, so a file replaced after compiling is probed as it is. The
 * offset is the instruction's offset in the file, which is what the
 * kernel's uprobes take: it maps it into each process mapping the file.
 *
 * The kernel's API changed in 6.12: uprobe_register() takes the
 * reference counter's offset (uprobe_register_refctr() is gone) and
 * returns the struct uprobe, and unregistering is
 * uprobe_unregister_nosync() per probe, then one uprobe_unregister_sync()
 * for all (a grace period once). Before, uprobe_unregister() waits for
 * the handlers itself.
 *
 * Hits: the kernel calls a consumer's handler in the probed task, with
 * preemption on, at the breakpoint (entry) or at the function's return
 * (ret_handler, through the return address uprobes replaced at the
 * entry); c->regs are the task's user registers. A probe of one process
 * (pid) checks the task's thread group in its handler. A return probe
 * that reads the function's variables reads them at the entry (see
 * struct stp_uprobe_slot).
 */

#include <linux/uprobes.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define STP_UP_API_612 1
#else
#define STP_UP_API_612 0
#endif

/*
 * A return probe reading the function's variables gets them at the
 * entry: the consumer has an entry handler too, which computes the
 * probe's values (stp_probe.vals) into a slot of this pool, and the
 * return hit of the same task takes its most recent slot back. A pool
 * that is full reuses its oldest slot (a task that never returned: a
 * longjmp, an exit); the return whose slot was taken is skipped.
 */
#define STP_UP_SLOTS 64

struct stp_uprobe_slot {
	struct task_struct *task;	/* NULL: free */
	u64 seq;			/* entry order */
	u64 faults;
	int64_t v[];			/* stp_probe.nvals values */
};

struct stp_uprobe_rt {
	const struct stp_uprobe_probe *u;
	struct inode *inode;		/* held while registered */
	struct uprobe_consumer uc;
#if STP_UP_API_612
	struct uprobe *up;
#endif
	bool registered;
	/* a return probe's values from the entry, or NULL */
	void *slots;
	size_t slot_size;
	u64 seq;
	raw_spinlock_t lock;
};

static struct stp_uprobe_slot *stp_up_slot(struct stp_uprobe_rt *rt, int i)
{
	return (struct stp_uprobe_slot *)((char *)rt->slots +
					  (size_t)i * rt->slot_size);
}

static struct stp_uprobe_rt *stp_uprobes;	/* one per uprobe probe */
static size_t stp_nuprobes;

static __always_inline bool stp_uprobe_mine(const struct stp_uprobe_rt *rt)
{
	return !rt->u->pid || task_tgid_nr(current) == rt->u->pid;
}

static int stp_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct stp_uprobe_rt *rt = container_of(uc, struct stp_uprobe_rt, uc);

	if (!stp_uprobe_mine(rt))
		return 0;
	preempt_disable_notrace();
	stp_probe_run_regs(rt->u->probe, regs);	/* lean or not */
	preempt_enable_notrace();
	return 0;
}

/* A return probe's entry: its values, into a slot for the return. */
static int stp_uprobe_entry_hit(struct uprobe_consumer *uc,
				struct pt_regs *regs)
{
	struct stp_uprobe_rt *rt = container_of(uc, struct stp_uprobe_rt, uc);
	const struct stp_probe *p = rt->u->probe;
	struct stp_uprobe_slot *s, *pick = NULL;
	unsigned long flags;
	int i;

	if (!stp_uprobe_mine(rt) || !stp_events_on())
		return 0;
	raw_spin_lock_irqsave(&rt->lock, flags);
	for (i = 0; i < STP_UP_SLOTS; i++) {
		s = stp_up_slot(rt, i);
		if (!s->task) {
			pick = s;
			break;
		}
		if (!pick || s->seq < pick->seq)
			pick = s;	/* the oldest, if none is free */
	}
	pick->task = current;
	pick->seq = ++rt->seq;
	raw_spin_unlock_irqrestore(&rt->lock, flags);
	/* only this task's return takes the slot back */
	pick->faults = 0;
	preempt_disable_notrace();
	p->vals(regs, pick->v, &pick->faults);
	preempt_enable_notrace();
	return 0;
}

static int stp_uprobe_ret_hit(struct uprobe_consumer *uc, unsigned long func,
			      struct pt_regs *regs)
{
	struct stp_uprobe_rt *rt = container_of(uc, struct stp_uprobe_rt, uc);
	struct stp_uprobe_slot *s, *mine = NULL;
	unsigned long flags;
	int i;

	if (!stp_uprobe_mine(rt))
		return 0;
	if (!rt->slots) {
		preempt_disable_notrace();
		stp_probe_run_regs(rt->u->probe, regs);
		preempt_enable_notrace();
		return 0;
	}
	raw_spin_lock_irqsave(&rt->lock, flags);
	for (i = 0; i < STP_UP_SLOTS; i++) {
		s = stp_up_slot(rt, i);
		if (s->task == current && (!mine || s->seq > mine->seq))
			mine = s;
	}
	raw_spin_unlock_irqrestore(&rt->lock, flags);
	if (!mine) {
		if (stp_events_on())
			atomic_inc(&stp_skipped);	/* its slot was reused */
		return 0;
	}
	{
		struct stp_tp_args a = { .v = mine->v, .faults = mine->faults };

		preempt_disable_notrace();
		stp_probe_run_ctx(rt->u->probe, &a, regs, NULL);
		preempt_enable_notrace();
	}
	WRITE_ONCE(mine->task, NULL);
	return 0;
}

static void stp_uprobe_warn(const struct stp_uprobe_rt *rt, int err)
{
	char tail[128];

	snprintf(tail, sizeof(tail),
		 " (%s offset 0x%lx) registration error [man warning::pass5] (rc %d)\n",
		 rt->u->path, rt->u->offset, err);
	stp_ctl_stderr("WARNING: probe ", rt->u->probe->pp, tail, NULL);
}

static int stp_uprobe_register(struct stp_uprobe_rt *rt)
{
	const struct stp_uprobe_probe *u = rt->u;
	struct path path;
	int ret;

	ret = kern_path(u->path, LOOKUP_FOLLOW, &path);
	if (ret)
		return ret;
	rt->inode = igrab(d_inode(path.dentry));
	path_put(&path);
	if (!rt->inode)
		return -ENOENT;
	if (u->flags & STP_UP_RETURN) {
		rt->uc.ret_handler = stp_uprobe_ret_hit;
		if (u->probe->vals) {
			rt->slot_size = sizeof(struct stp_uprobe_slot) +
					u->probe->nvals * sizeof(int64_t);
			rt->slots = kvcalloc(STP_UP_SLOTS, rt->slot_size,
					     GFP_KERNEL);
			if (!rt->slots)
				return -ENOMEM;
			raw_spin_lock_init(&rt->lock);
			rt->uc.handler = stp_uprobe_entry_hit;
		}
	} else {
		rt->uc.handler = stp_uprobe_hit;
	}
#if STP_UP_API_612
	rt->up = uprobe_register(rt->inode, u->offset, u->ref_ctr_offset,
				 &rt->uc);
	ret = IS_ERR(rt->up) ? PTR_ERR(rt->up) : 0;
#else
	ret = uprobe_register_refctr(rt->inode, u->offset, u->ref_ctr_offset,
				     &rt->uc);
#endif
	if (ret) {
		iput(rt->inode);
		rt->inode = NULL;
		return ret;
	}
	rt->registered = true;
	return 0;
}

static void stp_uprobe_disarm(void)
{
	size_t i;
	bool any = false;

	for (i = 0; i < stp_nuprobes; i++) {
		struct stp_uprobe_rt *rt = &stp_uprobes[i];

		if (!rt->registered)
			continue;
#if STP_UP_API_612
		uprobe_unregister_nosync(rt->up, &rt->uc);
#else
		uprobe_unregister(rt->inode, rt->u->offset, &rt->uc);
#endif
		any = true;
	}
#if STP_UP_API_612
	/* no handler runs past this: one wait for all of them */
	if (any)
		uprobe_unregister_sync();
#endif
	for (i = 0; i < stp_nuprobes; i++) {
		struct stp_uprobe_rt *rt = &stp_uprobes[i];

		if (rt->inode)
			iput(rt->inode);
		rt->inode = NULL;
		rt->registered = false;
	}
}

static void stp_uprobe_free(void)
{
	size_t i;

	for (i = 0; i < stp_nuprobes; i++)
		kvfree(stp_uprobes[i].slots);
	kvfree(stp_uprobes);
	stp_uprobes = NULL;
	stp_nuprobes = 0;
}

/*
 * Register every uprobe of the table. A place the kernel refuses (the
 * file gone, an instruction uprobes cannot step) is a warning, as in
 * SystemTap, and the other probes run.
 */
static int stp_uprobe_arm(const void *table, size_t n)
{
	const struct stp_uprobe_probe *tab = table;
	size_t i, ok = 0;
	u64 t0 = ktime_get_ns();
	int ret;

	if (!n || stp_uprobes)
		return 0;
	stp_uprobes = kvcalloc(n, sizeof(*stp_uprobes), GFP_KERNEL);
	if (!stp_uprobes)
		return -ENOMEM;
	stp_nuprobes = n;
	for (i = 0; i < n; i++) {
		struct stp_uprobe_rt *rt = &stp_uprobes[i];

		rt->u = &tab[i];
		ret = stp_uprobe_register(rt);
		if (ret)
			stp_uprobe_warn(rt, ret);
		else
			ok++;
		cond_resched();
	}
	if (stp_verbose) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "Pass 5: %zu of %zu uprobes attached in %llu ms.\n",
			 ok, n, (ktime_get_ns() - t0) / NSEC_PER_MSEC);
		stp_ctl_stderr(msg, NULL);
	}
	return 0;
}

const struct stp_kind_ops stp_uprobe_kind = {
	.name = "uprobe",
	.entry_size = sizeof(struct stp_uprobe_probe),
	.arm = stp_uprobe_arm,
	.disarm = stp_uprobe_disarm,
	.free = stp_uprobe_free,
};
