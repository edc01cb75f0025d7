// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf probes: one perf event per online CPU for each entry of the
 * module's table (struct stp_perf_probe, perf.h), made with
 * perf_event_create_kernel_counter. A sampled event's overflow handler
 * runs the probe with the interrupted registers (in the event's
 * interrupt: an hrtimer for the clocks, an NMI for hardware counters, the
 * counted code itself for the other software events). A counter has no
 * handler; @perf reads this CPU's count (stp_perf_read) while the
 * events are armed: 0 in begin and end probes.
 *
 * A CPU that comes online after the arm has no events (SystemTap 4.8's
 * system-wide events are made for the CPUs online then, too).
 *
 * .process("PATH") (or .process: the -c/-x target): an event per task of
 * the program instead, made in the task itself (task_work, on its way
 * back to user space) when it execs the program, for each thread it
 * then creates, and at the arm for those running it already; @perf in
 * a probe reads the current task's event. An event
 * the kernel cannot make (a hardware event with no PMU, as under qemu's
 * TCG) fails the session with SystemTap's message, before any probe of
 * this kind runs.
 */
#include <linux/perf_event.h>
#include <linux/task_work.h>

struct stp_perf {
	const struct stp_perf_probe *k;
	struct perf_event *__percpu *events;
	/* .process: the tasks' events, and the program's inode */
	struct stp_perf_task *tasks;
	unsigned int ntasks;
	struct path exe_path;
	struct inode *exe;
};

/* One task's event of a .process entry (the task is an identity). */
struct stp_perf_task {
	struct task_struct *task;
	struct perf_event *event;
};

#define STP_PERF_MAX_TASKS 256	/* per entry: later tasks count nothing */

static struct stp_perf *stp_perfs;
static size_t stp_nperfs;
/* the entries @perf may read: all once armed, none from the disarm on
 * (which then waits for the readers, running with interrupts off) */
static size_t stp_perf_readable;

static void stp_perf_overflow(struct perf_event *event,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	const struct stp_perf_probe *k = event->overflow_handler_context;

	stp_probe_run_regs(k->probe, regs);
}

/* ---- .process: per-task events -------------------------------------- */

static DEFINE_SPINLOCK(stp_perf_task_lock);	/* the entries' tasks[] */
static bool stp_perf_any_task;		/* some entry is a .process one */
static bool stp_perf_task_on;		/* new tasks get events */
static atomic_t stp_perf_task_works = ATOMIC_INIT(0);	/* pending */
static struct tracepoint *stp_perf_tp_exec, *stp_perf_tp_fork;
static bool stp_perf_tp_exec_on, stp_perf_tp_fork_on;

/* Entry pf's event of task t, or NULL (interrupts are off). */
static struct perf_event *stp_perf_task_event(struct stp_perf *pf,
					      struct task_struct *t)
{
	struct perf_event *ev = NULL;

	spin_lock(&stp_perf_task_lock);
	for (unsigned int i = 0; i < pf->ntasks; i++)
		if (pf->tasks[i].task == t) {
			ev = pf->tasks[i].event;
			break;
		}
	spin_unlock(&stp_perf_task_lock);
	return ev;
}

static int stp_perf_task_prepare(struct stp_perf *pf)
{
	pf->tasks = kcalloc(STP_PERF_MAX_TASKS, sizeof(*pf->tasks),
			    GFP_KERNEL);
	if (!pf->tasks)
		return -ENOMEM;
	if (pf->k->exe && !kern_path(pf->k->exe, LOOKUP_FOLLOW, &pf->exe_path))
		pf->exe = d_inode(pf->exe_path.dentry);
	stp_perf_any_task = true;
	return 0;
}

static void stp_perf_task_release(struct stp_perf *pf)
{
	if (!pf->tasks)
		return;
	for (unsigned int i = 0; i < pf->ntasks; i++) {
		perf_event_release_kernel(pf->tasks[i].event);
		put_task_struct(pf->tasks[i].task);
	}
	kfree(pf->tasks);
	pf->tasks = NULL;
	pf->ntasks = 0;
	if (pf->exe)
		path_put(&pf->exe_path);
	pf->exe = NULL;
}

/* Does task t (its executable exe) belong to entry pf's program? */
static bool stp_perf_task_match(const struct stp_perf *pf,
				struct task_struct *t, struct inode *exe)
{
	if (!pf->k->task)
		return false;
	if (!pf->k->exe)
		return stp_target() && t->tgid == stp_target();
	return pf->exe && exe == pf->exe;
}

static struct inode *stp_perf_exe_of(struct task_struct *t)
{
	struct inode *inode = NULL;
	struct file *f;

	task_lock(t);
	if (t->mm) {
		rcu_read_lock();
		f = rcu_dereference(t->mm->exe_file);
		if (f)
			inode = file_inode(f);
		rcu_read_unlock();
	}
	task_unlock(t);
	return inode;
}

/* Make the events of task t (sleeps: the task's own context, or the
 * arm's). */
static void stp_perf_task_make(struct task_struct *t)
{
	struct inode *exe = stp_perf_exe_of(t);

	for (size_t i = 0; i < stp_nperfs; i++) {
		struct stp_perf *pf = &stp_perfs[i];
		const struct stp_perf_probe *k = pf->k;
		struct perf_event_attr attr = {
			.type = k->type,
			.size = sizeof(attr),
			.config = k->config,
			.sample_period = k->sample,
			.freq = k->freq,
		};
		struct perf_event *ev;

		unsigned long flags;
		bool has;

		if (!stp_perf_task_match(pf, t, exe))
			continue;
		local_irq_save(flags);
		has = stp_perf_task_event(pf, t) != NULL;
		local_irq_restore(flags);
		if (has)
			continue;
		ev = perf_event_create_kernel_counter(&attr, -1, t,
			k->counter ? NULL : stp_perf_overflow, (void *)k);
		if (IS_ERR(ev))
			continue;	/* this task counts nothing */
		spin_lock_irq(&stp_perf_task_lock);
		if (READ_ONCE(stp_perf_task_on) &&
		    pf->ntasks < STP_PERF_MAX_TASKS) {
			get_task_struct(t);
			pf->tasks[pf->ntasks].task = t;
			pf->tasks[pf->ntasks].event = ev;
			pf->ntasks++;
			ev = NULL;
		}
		spin_unlock_irq(&stp_perf_task_lock);
		if (ev)
			perf_event_release_kernel(ev);
	}
}

struct stp_perf_work {
	struct callback_head cb;
};

static void stp_perf_task_work(struct callback_head *cb)
{
	if (READ_ONCE(stp_perf_task_on) && !(current->flags & PF_EXITING))
		stp_perf_task_make(current);
	kfree(container_of(cb, struct stp_perf_work, cb));
	atomic_dec(&stp_perf_task_works);
}

/* Task t, which some entry counts: its events made on its way back to
 * user space (here nothing may sleep). */
static void stp_perf_task_queue(struct task_struct *t)
{
	struct stp_perf_work *w = kmalloc(sizeof(*w), GFP_ATOMIC);

	if (!w)
		return;
	init_task_work(&w->cb, stp_perf_task_work);
	atomic_inc(&stp_perf_task_works);
	if (task_work_add(t, &w->cb, TWA_RESUME)) {
		atomic_dec(&stp_perf_task_works);
		kfree(w);
	}
}

static bool stp_perf_task_wanted(struct task_struct *t, struct inode *exe)
{
	if (!READ_ONCE(stp_perf_task_on) || (t->flags & PF_KTHREAD))
		return false;
	for (size_t i = 0; i < stp_nperfs; i++)
		if (stp_perf_task_match(&stp_perfs[i], t, exe))
			return true;
	return false;
}

static void notrace stp_perf_on_exec(void *data, struct task_struct *p,
				     pid_t old_pid, struct linux_binprm *bprm)
{
	if (stp_perf_task_wanted(current, stp_perf_exe_of(current)))
		stp_perf_task_queue(current);
}

/* A new thread of a counted process (a forked child runs the program
 * too: counted as well, as its own task). */
static void notrace stp_perf_on_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	if (stp_perf_task_wanted(child, stp_perf_exe_of(parent)))
		stp_perf_task_queue(child);
}

static void stp_perf_tp_lookup(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		stp_perf_tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		stp_perf_tp_fork = tp;
}

/* After the arm: follow execs and forks, and count the tasks running a
 * counted program already. */
static int stp_perf_tasks_start(void)
{
	struct task_struct *g, *t, **found;
	unsigned int n = 0;
	int ret;

	if (!stp_perf_any_task)
		return 0;
	for_each_kernel_tracepoint(stp_perf_tp_lookup, NULL);
	if (!stp_perf_tp_exec || !stp_perf_tp_fork) {
		stp_ctl_stderr("ERROR: perf .process probes: no "
			       "sched_process_exec/fork tracepoint\n", NULL);
		return -ENOENT;
	}
	WRITE_ONCE(stp_perf_task_on, true);
	ret = tracepoint_probe_register(stp_perf_tp_exec, stp_perf_on_exec,
					NULL);
	if (ret)
		return ret;
	stp_perf_tp_exec_on = true;
	ret = tracepoint_probe_register(stp_perf_tp_fork, stp_perf_on_fork,
					NULL);
	if (ret)
		return ret;
	stp_perf_tp_fork_on = true;
	found = kcalloc(STP_PERF_MAX_TASKS, sizeof(*found), GFP_KERNEL);
	if (!found)
		return -ENOMEM;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (n < STP_PERF_MAX_TASKS &&
		    stp_perf_task_wanted(t, stp_perf_exe_of(t))) {
			get_task_struct(t);
			found[n++] = t;
		}
	}
	rcu_read_unlock();
	for (unsigned int i = 0; i < n; i++) {
		stp_perf_task_make(found[i]);
		put_task_struct(found[i]);
	}
	kfree(found);
	return 0;
}

/* Before the events go: no new ones, and no task work of ours left
 * pending (its code is this module's). */
static void stp_perf_tasks_stop(void)
{
	bool unregistered = false;
	int waited = 0;

	WRITE_ONCE(stp_perf_task_on, false);
	if (stp_perf_tp_exec_on) {
		tracepoint_probe_unregister(stp_perf_tp_exec, stp_perf_on_exec,
					    NULL);
		stp_perf_tp_exec_on = false;
		unregistered = true;
	}
	if (stp_perf_tp_fork_on) {
		tracepoint_probe_unregister(stp_perf_tp_fork, stp_perf_on_fork,
					    NULL);
		stp_perf_tp_fork_on = false;
		unregistered = true;
	}
	if (unregistered)
		tracepoint_synchronize_unregister();
	/* a task runs its work on its way to user space, or at its exit */
	while (atomic_read(&stp_perf_task_works) && waited++ < 10000)
		msleep(1);
	stp_perf_any_task = false;
}

/*
 * This CPU's count of entry k, as perf_event_read_local() reads it (not
 * exported to modules): with interrupts off, an event active on this CPU
 * is brought up to date by its PMU, then its count read.
 */
int64_t stp_perf_read(unsigned int k)
{
	struct perf_event *event;
	unsigned long flags;
	u64 value = 0;

	local_irq_save(flags);
	if (k >= READ_ONCE(stp_perf_readable)) {
		local_irq_restore(flags);
		return 0;
	}
	if (stp_perfs[k].k->task)
		event = stp_perf_task_event(&stp_perfs[k], current);
	else
		event = *this_cpu_ptr(stp_perfs[k].events);
	if (event) {
		if (READ_ONCE(event->oncpu) == smp_processor_id())
			event->pmu->read(event);
		value = local64_read(&event->count);
	}
	local_irq_restore(flags);
	return (int64_t)value;
}

static void stp_perf_release(struct stp_perf *pf)
{
	int cpu;

	stp_perf_task_release(pf);
	if (!pf->events)
		return;
	for_each_possible_cpu(cpu) {
		struct perf_event **ev = per_cpu_ptr(pf->events, cpu);

		if (*ev)
			perf_event_release_kernel(*ev);
		*ev = NULL;
	}
	free_percpu(pf->events);
	pf->events = NULL;
}

static int stp_perf_make(struct stp_perf *pf)
{
	const struct stp_perf_probe *k = pf->k;
	struct perf_event_attr attr = {
		.type = k->type,
		.size = sizeof(attr),
		.config = k->config,
		.sample_period = k->sample,
		.freq = k->freq,
		.pinned = 1,
	};
	int cpu, ret = 0;

	if (k->task)
		return stp_perf_task_prepare(pf);
	pf->events = alloc_percpu(struct perf_event *);
	if (!pf->events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *ev;

		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
			k->counter ? NULL : stp_perf_overflow, (void *)k);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			break;
		}
		*per_cpu_ptr(pf->events, cpu) = ev;
	}
	cpus_read_unlock();
	if (ret) {
		char rc[96];

		snprintf(rc, sizeof(rc),
			 " registration error [man warning::pass5] (rc %d)\n",
			 ret);
		stp_ctl_stderr("ERROR: probe ", k->probe->pp, rc, NULL);
	}
	return ret;
}

static void stp_perf_disarm(void)
{
	stp_perf_tasks_stop();
	if (READ_ONCE(stp_perf_readable)) {
		WRITE_ONCE(stp_perf_readable, 0);
		synchronize_rcu();
	}
	for (size_t i = 0; i < stp_nperfs; i++)
		stp_perf_release(&stp_perfs[i]);
	kfree(stp_perfs);
	stp_perfs = NULL;
	stp_nperfs = 0;
}

static int stp_perf_arm(const void *table, size_t n)
{
	const struct stp_perf_probe *tab = table;

	if (!n)
		return 0;
	stp_perfs = kcalloc(n, sizeof(*stp_perfs), GFP_KERNEL);
	if (!stp_perfs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int ret;

		stp_perfs[i].k = &tab[i];
		stp_nperfs = i + 1;
		ret = stp_perf_make(&stp_perfs[i]);
		if (ret)
			return ret;	/* the caller disarms */
	}
	smp_wmb();
	WRITE_ONCE(stp_perf_readable, n);
	return stp_perf_tasks_start();
}

const struct stp_kind_ops stp_perf_kind = {
	.name = "perf",
	.entry_size = sizeof(struct stp_perf_probe),
	.arm = stp_perf_arm,
	.disarm = stp_perf_disarm,
};
