// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process.* probes, as SystemTap's task finder runs them, on what an
 * unpatched kernel offers: the tracepoints sched_process_fork, _exec,
 * _exit and raw_syscalls' sys_enter and sys_exit.
 *
 * - A task's begin (process.begin for a new process, .thread.begin for a
 *   new thread) runs in the task itself, as SystemTap's does once the
 *   task is quiescent: fork marks the child pending, and the child's
 *   first system call event (its return from fork, sys_exit) runs it.
 *   Tasks already running when the module starts are pending too: each
 *   begins at its next system call event (a task blocked in one, when
 *   that call returns).
 * - exec is the old image's end (SystemTap takes the parent's
 *   executable for it, we the task's own before the exec) and the new
 *   image's begin, in the task.
 * - exit: .thread.end, or .end for the last thread of the process,
 *   matched on the executable the task had (exit has dropped its mm).
 * - .syscall and .syscall.return: sys_enter and sys_exit, with $syscall,
 *   $arg1..6 and $return.
 *
 * A filter is a process ID (the thread group's), an executable (by
 * inode: the path resolved when the module starts; a path that does not
 * exist matches nothing) or nothing. The tasks' table (tid -> executable
 * inode, pending begin) is kept only when a begin or end probe exists;
 * the inodes are identities, never dereferenced.
 */

struct stp_proc {
	const struct stp_probe *p;
	const struct stp_proc_probe *k;
	struct path exe_path;		/* k->exe resolved, when found */
	struct inode *exe;		/* its inode, or NULL */
};

struct stp_proc_task {
	struct hlist_node node;
	pid_t tid;
	struct inode *exe;		/* the executable, identity only */
	u8 pending;			/* 1: process begin, 2: thread begin */
	u8 leader_gone;			/* the leader passed its exit while
					 * other threads lived */
};

enum { STP_PEND_PROCESS = 1, STP_PEND_THREAD = 2 };

static struct stp_proc *stp_procs;
static size_t stp_nprocs;
static unsigned int stp_proc_events;	/* bit e: some probe of event e */
static DEFINE_HASHTABLE(stp_proc_tasks, 10);
static DEFINE_SPINLOCK(stp_proc_lock);
static atomic_t stp_proc_pending = ATOMIC_INIT(0);
static bool stp_proc_track;		/* the tasks' table is kept */

/* the tracepoints: found by name, registered when some probe needs them */
enum { TP_FORK, TP_EXEC, TP_EXIT, TP_ENTER, TP_RETURN, TP_N };
static const char *const stp_proc_tp_names[TP_N] = {
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
	"sys_enter", "sys_exit",
};
static struct tracepoint *stp_proc_tps[TP_N];
static bool stp_proc_tp_on[TP_N];

#define STP_PROC_HAS(e) (stp_proc_events & (1u << (e)))

/* The executable of task t (t's own mm, or current's), or NULL. */
static struct inode *stp_proc_exe_of(struct mm_struct *mm)
{
	struct inode *inode = NULL;
	struct file *f;

	if (!mm)
		return NULL;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	if (f)
		inode = file_inode(f);
	rcu_read_unlock();
	return inode;
}

static bool stp_proc_match(const struct stp_proc *pr, struct task_struct *t,
			   struct inode *exe)
{
	if (pr->k->pid && t->tgid != pr->k->pid)
		return false;
	if (pr->k->exe && (!pr->exe || exe != pr->exe))
		return false;
	return true;
}

/* Run the probes of event e whose filter matches task t (current). */
static void stp_proc_fire(enum stp_proc_event e, struct task_struct *t,
			  struct inode *exe, const int64_t *raw)
{
	for (size_t i = 0; i < stp_nprocs; i++) {
		const struct stp_proc *pr = &stp_procs[i];
		int64_t v[STP_PROC_NVALUES];
		struct stp_tp_args args = { .v = v };

		if (pr->k->event != e || !stp_proc_match(pr, t, exe))
			continue;
		if (pr->k->vals && raw) {
			pr->k->vals(raw, v);
			stp_probe_run_tp(pr->p, &args);
		} else {
			stp_probe_run(pr->p);
		}
	}
}

/* ---- the tasks' table -------------------------------------------------- */

static struct stp_proc_task *stp_proc_find(pid_t tid)
{
	struct stp_proc_task *e;

	hash_for_each_possible(stp_proc_tasks, e, node, tid)
		if (e->tid == tid)
			return e;
	return NULL;
}

/* Record task tid (a new one, or one found running); under no lock. */
static void stp_proc_add(pid_t tid, struct inode *exe, u8 pending)
{
	struct stp_proc_task *e;
	unsigned long flags;

	if (!STP_PROC_HAS(STP_PROC_BEGIN) && !STP_PROC_HAS(STP_PROC_THREAD_BEGIN))
		pending = 0;	/* no begin to run */
	spin_lock_irqsave(&stp_proc_lock, flags);
	e = stp_proc_find(tid);
	if (!e) {
		e = kzalloc(sizeof(*e), GFP_ATOMIC | __GFP_NOWARN);
		if (e) {
			e->tid = tid;
			hash_add(stp_proc_tasks, &e->node, tid);
		}
	}
	if (e) {
		e->exe = exe;
		if (pending && !e->pending)
			atomic_inc(&stp_proc_pending);
		e->pending = pending;
	}
	spin_unlock_irqrestore(&stp_proc_lock, flags);
}

/* Take task tid's entry's pending begin (0: none), and its executable. */
static u8 stp_proc_take_pending(pid_t tid)
{
	struct stp_proc_task *e;
	unsigned long flags;
	u8 pending = 0;

	spin_lock_irqsave(&stp_proc_lock, flags);
	e = stp_proc_find(tid);
	if (e && e->pending) {
		pending = e->pending;
		e->pending = 0;
		atomic_dec(&stp_proc_pending);
	}
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	return pending;
}

/* Task tid's executable as recorded (set it to exe when exe), and with
 * drop the entry. */
static struct inode *stp_proc_swap_exe(pid_t tid, struct inode *exe,
				       bool drop)
{
	struct stp_proc_task *e;
	struct inode *old = NULL;
	unsigned long flags;

	spin_lock_irqsave(&stp_proc_lock, flags);
	e = stp_proc_find(tid);
	if (e) {
		old = e->exe;
		if (exe)
			e->exe = exe;
		if (drop) {
			if (e->pending)
				atomic_dec(&stp_proc_pending);
			hash_del(&e->node);
			kfree(e);
		}
	}
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	return old;
}

static void stp_proc_table_free(void)
{
	struct stp_proc_task *e;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&stp_proc_lock, flags);
	hash_for_each_safe(stp_proc_tasks, bkt, tmp, e, node) {
		hash_del(&e->node);
		kfree(e);
	}
	atomic_set(&stp_proc_pending, 0);
	spin_unlock_irqrestore(&stp_proc_lock, flags);
}

/* ---- the tracepoints' callbacks ---------------------------------------- */

/* A pending begin of current, at its first system call event. */
static void stp_proc_begin_pending(void)
{
	u8 pending;

	if (likely(!atomic_read(&stp_proc_pending)))
		return;
	pending = stp_proc_take_pending(current->pid);
	if (!pending)
		return;
	stp_proc_fire(pending == STP_PEND_PROCESS ? STP_PROC_BEGIN :
		      STP_PROC_THREAD_BEGIN, current,
		      stp_proc_exe_of(current->mm), NULL);
}

static void notrace stp_proc_on_enter(void *data, struct pt_regs *regs,
				      long id)
{
	int64_t raw[STP_PROC_NVALUES] = { 0 };
	unsigned long args[6];

	if (!current->mm)
		return;
	stp_proc_begin_pending();
	if (!STP_PROC_HAS(STP_PROC_SYSCALL))
		return;
	syscall_get_arguments(current, regs, args);
	raw[0] = id;
	for (int i = 0; i < 6; i++)
		raw[1 + i] = (int64_t)args[i];
	stp_proc_fire(STP_PROC_SYSCALL, current, stp_proc_exe_of(current->mm),
		      raw);
}

static void notrace stp_proc_on_return(void *data, struct pt_regs *regs,
				       long ret)
{
	int64_t raw[STP_PROC_NVALUES] = { 0 };

	if (!current->mm)
		return;
	stp_proc_begin_pending();
	if (!STP_PROC_HAS(STP_PROC_SYSCALL_RETURN))
		return;
	raw[0] = syscall_get_nr(current, regs);
	raw[7] = ret;
	stp_proc_fire(STP_PROC_SYSCALL_RETURN, current,
		      stp_proc_exe_of(current->mm), raw);
}

/* In the parent: the child begins at its first system call event. */
static void notrace stp_proc_on_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	if (!child->mm || (child->flags & PF_KTHREAD))
		return;
	stp_proc_add(child->pid, stp_proc_exe_of(child->mm),
		     thread_group_leader(child) ? STP_PEND_PROCESS :
						  STP_PEND_THREAD);
}

static void notrace stp_proc_on_exec(void *data, struct task_struct *p,
				     pid_t old_pid, struct linux_binprm *bprm)
{
	struct inode *exe = stp_proc_exe_of(current->mm);
	struct inode *old = stp_proc_swap_exe(current->pid, exe, false);
	bool forked;

	/* the old image ends, as SystemTap ends it: when the task has a
	 * parent other than init (and its begin ran) */
	rcu_read_lock();
	forked = current->real_parent && current->real_parent->pid > 1;
	rcu_read_unlock();
	if (stp_proc_take_pending(current->pid) != STP_PEND_PROCESS && forked)
		stp_proc_fire(STP_PROC_END, current, old, NULL);
	stp_proc_fire(STP_PROC_BEGIN, current, exe, NULL);
}

/*
 * Which exit ends the process. Several threads may find the group's live
 * count at 0: a joined thread is still in do_exit, before this
 * tracepoint, when the main thread's exit_group takes the count to 0. So
 * the leader's entry (kept until then, even after the leader itself
 * exits) decides: the leader's own exit ends the process when the group
 * is dead; another thread's does only once the leader has gone before it
 * (pthread_exit() in main), the first to take the entry. Otherwise it is
 * a thread's end.
 */
static bool stp_proc_exit_entry(struct task_struct *p, struct inode **exe)
{
	struct stp_proc_task *e, *leader;
	bool group_dead = !p->signal || !atomic_read(&p->signal->live);
	bool is_leader = p->pid == p->tgid;
	unsigned long flags;

	spin_lock_irqsave(&stp_proc_lock, flags);
	e = stp_proc_find(p->pid);
	*exe = e ? e->exe : NULL;
	leader = stp_proc_find(p->tgid);
	if (e && e->pending) {
		atomic_dec(&stp_proc_pending);
		e->pending = 0;
	}
	if (leader && !(group_dead && (is_leader || leader->leader_gone))) {
		/* not the process's end */
		if (is_leader)
			leader->leader_gone = 1;
		leader = NULL;
	}
	if (e && e != leader && !is_leader) {
		hash_del(&e->node);
		kfree(e);
	}
	if (leader) {
		if (leader->pending)
			atomic_dec(&stp_proc_pending);
		hash_del(&leader->node);
		kfree(leader);
	}
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	return leader != NULL;
}

static void notrace stp_proc_on_exit(void *data, struct task_struct *p)
{
	struct inode *exe;
	bool end;

	if (p->flags & PF_KTHREAD)
		return;
	end = stp_proc_exit_entry(p, &exe);
	stp_proc_fire(end ? STP_PROC_END : STP_PROC_THREAD_END, p, exe, NULL);
}

static void *const stp_proc_tp_funcs[TP_N] = {
	stp_proc_on_fork, stp_proc_on_exec, stp_proc_on_exit,
	stp_proc_on_enter, stp_proc_on_return,
};

static void stp_proc_tp_lookup(struct tracepoint *tp, void *priv)
{
	for (int i = 0; i < TP_N; i++)
		if (!stp_proc_tps[i] && !strcmp(tp->name, stp_proc_tp_names[i]))
			stp_proc_tps[i] = tp;
}

/* ---- arming ------------------------------------------------------------ */

/* Every task running now: begins pending (a leader's is its process's). */
static void stp_proc_scan(void)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		struct inode *exe = NULL;

		if (t->flags & PF_KTHREAD)
			continue;
		task_lock(t);
		if (t->mm)
			exe = stp_proc_exe_of(t->mm);
		task_unlock(t);
		if (!exe)
			continue;
		stp_proc_add(t->pid, exe, thread_group_leader(t) ?
			     STP_PEND_PROCESS : STP_PEND_THREAD);
	}
	rcu_read_unlock();
}

static void stp_process_disarm(void)
{
	bool unregistered = false;

	for (int i = 0; i < TP_N; i++) {
		if (!stp_proc_tp_on[i])
			continue;
		tracepoint_probe_unregister(stp_proc_tps[i],
					    stp_proc_tp_funcs[i], NULL);
		stp_proc_tp_on[i] = false;
		unregistered = true;
	}
	if (unregistered)
		tracepoint_synchronize_unregister();
	stp_proc_table_free();
	for (size_t i = 0; i < stp_nprocs; i++)
		if (stp_procs[i].exe)
			path_put(&stp_procs[i].exe_path);
	kfree(stp_procs);
	stp_procs = NULL;
	stp_nprocs = 0;
	stp_proc_events = 0;
	stp_proc_track = false;
}

static int stp_process_arm(const void *table, size_t n)
{
	const struct stp_proc_probe *tab = table;
	bool need[TP_N] = { false };
	int ret = 0;

	if (!n)
		return 0;
	stp_procs = kcalloc(n, sizeof(*stp_procs), GFP_KERNEL);
	if (!stp_procs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct stp_proc *pr = &stp_procs[stp_nprocs++];

		pr->p = tab[i].probe;
		pr->k = &tab[i];
		if (pr->k->exe && !kern_path(pr->k->exe, LOOKUP_FOLLOW,
					     &pr->exe_path))
			pr->exe = d_inode(pr->exe_path.dentry);
		stp_proc_events |= 1u << tab[i].event;
	}
	stp_proc_track = STP_PROC_HAS(STP_PROC_BEGIN) ||
			 STP_PROC_HAS(STP_PROC_THREAD_BEGIN) ||
			 STP_PROC_HAS(STP_PROC_END) ||
			 STP_PROC_HAS(STP_PROC_THREAD_END);
	need[TP_FORK] = need[TP_EXEC] = need[TP_EXIT] = stp_proc_track;
	need[TP_ENTER] = STP_PROC_HAS(STP_PROC_SYSCALL) ||
			 STP_PROC_HAS(STP_PROC_BEGIN) ||
			 STP_PROC_HAS(STP_PROC_THREAD_BEGIN);
	need[TP_RETURN] = STP_PROC_HAS(STP_PROC_SYSCALL_RETURN) ||
			  STP_PROC_HAS(STP_PROC_BEGIN) ||
			  STP_PROC_HAS(STP_PROC_THREAD_BEGIN);
	for_each_kernel_tracepoint(stp_proc_tp_lookup, NULL);
	for (int i = 0; i < TP_N; i++) {
		if (!need[i])
			continue;
		if (!stp_proc_tps[i]) {
			stp_ctl_stderr("ERROR: process probes: no tracepoint "
				       "named '", stp_proc_tp_names[i],
				       "' in this kernel\n", NULL);
			return -ENOENT;	/* the caller disarms */
		}
		ret = tracepoint_probe_register(stp_proc_tps[i],
						stp_proc_tp_funcs[i], NULL);
		if (ret) {
			stp_ctl_stderr("ERROR: process probes: cannot register "
				       "tracepoint '", stp_proc_tp_names[i],
				       "'\n", NULL);
			return ret;
		}
		stp_proc_tp_on[i] = true;
	}
	/* after fork is followed: a task forked meanwhile is in either */
	if (stp_proc_track)
		stp_proc_scan();
	return 0;
}

const struct stp_kind_ops stp_process_kind = {
	.name = "process",
	.entry_size = sizeof(struct stp_proc_probe),
	.arm = stp_process_arm,
	.disarm = stp_process_disarm,
};
