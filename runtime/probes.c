// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session: probe entry and exit (busy guard, session checks, action
 * budget, globals lock, error reporting), the begin/end/error sequence,
 * and arming the event probes through the module's list of attach kinds
 * (each kind's operations and table, in the kind's own file).
 *
 * Phases: LOADED -start-> STARTING (begin probes) -> RUNNING (events
 * armed unless exit() or an error came first) -stop-> STOPPING (events
 * disarmed, end probes, or error probes after a fatal error) -> DONE.
 * Event probes run only while stp_events_live: from arming until exit(),
 * a fatal error or stop, whichever comes first. exit() stops the event
 * probes at once, as SystemTap's does (its session state leaves RUNNING);
 * the end probes run later, on the loader's stop.
 * start and stop are serialized by stp_ctl_mutex.
 */

enum stp_phase {
	STP_PHASE_LOADED,
	STP_PHASE_STARTING,
	STP_PHASE_RUNNING,
	STP_PHASE_STOPPING,
	STP_PHASE_DONE,
};

static const struct stp_probe *stp_probe_tab;
static size_t stp_nprobes;
static size_t *stp_order;		/* indices by ascending priority */

static atomic_t stp_phase = ATOMIC_INIT(STP_PHASE_LOADED);
static atomic_t stp_exit_requested = ATOMIC_INIT(0);
static atomic_t stp_failed = ATOMIC_INIT(0);
atomic_t stp_events_live = ATOMIC_INIT(0);
static atomic_t stp_errors = ATOMIC_INIT(0);
static atomic_t stp_skipped = ATOMIC_INIT(0);
static atomic_t stp_skip_reported = ATOMIC_INIT(0);
/* not static: tests/runtime/test_mod.c waits on it */
DEFINE_MUTEX(stp_ctl_mutex);
int64_t stp_target_pid;			/* strings.h */

/* staprun -v: pass 5 reports how probes were attached */
static int stp_verbose;
module_param(stp_verbose, int, 0444);
MODULE_PARM_DESC(stp_verbose, "report probe attachment on stderr");

/* stap -G VAR=VALUE on a number global: a parameter of the script's type */
static int stp_param_set_int64(const char *val, const struct kernel_param *kp)
{
	return kstrtoll(val, 0, (s64 *)kp->arg);
}

static int stp_param_get_int64(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%lld\n", *(s64 *)kp->arg);
}

const struct kernel_param_ops stp_param_ops_int64 = {
	.set = stp_param_set_int64,
	.get = stp_param_get_int64,
};

void stp_request_exit(struct stp_context *c)
{
	atomic_set(&stp_events_live, 0);
	atomic_set(&stp_exit_requested, 1);
	stp_reader_kick(true);
}

static void stp_fail(void)
{
	atomic_set(&stp_events_live, 0);
	atomic_set(&stp_failed, 1);
	atomic_set(&stp_exit_requested, 1);
	stp_reader_kick(true);
}

/* Write the NULL-terminated list of strings as one STDERR record. */
static void stp_vstderr(struct stp_context *c, const char *first, va_list ap)
{
	const char *s;

	stp_print_commit(c);
	c->ptype = STP_REC_STDERR;
	for (s = first; s; s = va_arg(ap, const char *))
		stp_print_str(c, s);
	stp_print_commit(c);
	c->ptype = STP_REC_STDOUT;
}

/*
 * system(cmd): a record the loader runs as a command once the probe's
 * output so far is out, so the command's output comes in order with the
 * script's (a control record: it waits for room rather than be lost).
 */
void stp_system(struct stp_context *c, const char *cmd)
{
	stp_print_commit(c);
	c->ptype = STP_REC_SYSTEM;
	stp_print_str(c, cmd);
	stp_print_commit(c);
	c->ptype = STP_REC_STDOUT;
}

/*
 * switch_file(): a record after the probe's output so far, where the
 * loader starts the next -o file (a control record, as system()'s).
 */
void stp_switch_file(struct stp_context *c)
{
	stp_print_commit(c);
	stp_ring_write(c, STP_REC_SWITCH_FILE, "", 0);
}

static void stp_stderr(struct stp_context *c, const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	stp_vstderr(c, first, ap);
	va_end(ap);
}

/*
 * warn(msg): "WARNING: MSG" as one STDERR record, after the probe's output
 * so far, with a newline added unless MSG ends with one (as SystemTap).
 */
void stp_warn(struct stp_context *c, const char *msg)
{
	size_t n = strnlen(msg, MAXSTRINGLEN);

	stp_stderr(c, "WARNING: ", msg, n && msg[n - 1] == '\n' ? "" : "\n",
		   NULL);
}

/* The same from process context, outside any probe. */
static void stp_ctl_stderr(const char *first, ...)
{
	struct stp_context *c;
	va_list ap;

	preempt_disable();
	c = stp_context_get();
	if (c) {
		/* outside any probe: a fast hit leaves its probe set */
		c->probe = NULL;
		va_start(ap, first);
		stp_vstderr(c, first, ap);
		va_end(ap);
		stp_context_put(c);
	}
	preempt_enable();
}

static bool stp_probe_allowed(const struct stp_probe *p)
{
	switch (p->type) {
	case STP_PROBE_BEGIN:
		return atomic_read(&stp_phase) == STP_PHASE_STARTING &&
		       !atomic_read(&stp_failed) &&
		       !atomic_read(&stp_exit_requested);
	case STP_PROBE_END:
		return atomic_read(&stp_phase) == STP_PHASE_STOPPING &&
		       !atomic_read(&stp_failed);
	case STP_PROBE_ERROR:
		return atomic_read(&stp_phase) == STP_PHASE_STOPPING &&
		       atomic_read(&stp_failed);
	default:
		return stp_events_on();
	}
}

static bool stp_is_event(const struct stp_probe *p)
{
	return p->type == STP_PROBE_EVENT;
}

/*
 * Take the handler's locks in order, each by trylock with MAXTRYLOCK
 * attempts TRYLOCKDELAY apart; never blocks. On failure release what was
 * taken and return false (the hit is skipped).
 */
/*
 * A statistic's lock, one per CPU: `<<<` (read mode) takes this CPU's,
 * a reader (write mode) every CPU's in CPU order, all or none. Held by
 * the probe on this CPU only, so the holder never spins on itself.
 */
static bool stp_pcpu_trylock(atomic_t __percpu *pcpu, bool all)
{
	unsigned int cpu, k;

	if (!all)
		return !atomic_xchg_acquire(this_cpu_ptr(pcpu), 1);
	for_each_possible_cpu(cpu) {
		if (!atomic_xchg_acquire(per_cpu_ptr(pcpu, cpu), 1))
			continue;
		for_each_possible_cpu(k) {
			if (k == cpu)
				break;
			atomic_set_release(per_cpu_ptr(pcpu, k), 0);
		}
		return false;
	}
	return true;
}

static void stp_pcpu_unlock(atomic_t __percpu *pcpu, bool all)
{
	unsigned int cpu;

	if (!all) {
		atomic_set_release(this_cpu_ptr(pcpu), 0);
		return;
	}
	for_each_possible_cpu(cpu)
		atomic_set_release(per_cpu_ptr(pcpu, cpu), 0);
}

void stp_locks_release(const struct stp_lock *locks, unsigned int n)
{
	while (n--) {
		if (locks[n].pcpu)
			stp_pcpu_unlock(locks[n].pcpu, locks[n].write);
		else if (locks[n].write)
			write_unlock(locks[n].lock);
		else
			read_unlock(locks[n].lock);
	}
}

static bool stp_lock_try(const struct stp_lock *l)
{
	if (l->pcpu)
		return stp_pcpu_trylock(l->pcpu, l->write);
	return l->write ? write_trylock(l->lock) : read_trylock(l->lock);
}

bool stp_locks_take(const struct stp_lock *locks, unsigned int n)
{
	unsigned int i;
	int tries;

	for (i = 0; i < n; i++) {
		for (tries = 0;; tries++) {
			if (stp_lock_try(&locks[i]))
				break;
			if (tries + 1 >= MAXTRYLOCK) {
				stp_locks_release(locks, i);
				return false;
			}
			/* PAUSE first: a holder on a vCPU that shares the
			 * host thread gets to run (qemu TCG yields on it) */
			cpu_relax();
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
}

void stp_report_error(struct stp_context *c)
{
	if (c->last_where)
		stp_stderr(c, "ERROR: ", c->last_error, " near ",
			   c->last_where, "\n", NULL);
	else
		stp_stderr(c, "ERROR: ", c->last_error, "\n", NULL);
	if (atomic_inc_return(&stp_errors) > MAXERRORS)
		stp_fail();
}

/* More than MAXSKIPPED hits skipped: the error, once, and the session
 * fails. */
void stp_skip_check(struct stp_context *c)
{
	if (atomic_read(&stp_skipped) > MAXSKIPPED &&
	    !atomic_xchg(&stp_skip_reported, 1)) {
		stp_stderr(c, "ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.\n",
			   NULL);
		stp_fail();
	}
}

/* A hit skipped: its locks were not to be had. */
void stp_probe_skipped(struct stp_context *c)
{
	atomic_inc(&stp_skipped);
	stp_skip_check(c);
}

#ifdef STP_TIMING
/*
 * -t: the cycles of each probe's hits (get_cycles() around the locks and
 * the handler, as SystemTap times them), a statistic per probe, printed
 * after the end probes in SystemTap's "probe hit report" format.
 */
static const struct stp_stat_desc stp_timing_desc = {
	.hist = STP_HIST_NONE, .variance = true,
};
static struct stp_pstat *stp_timing;	/* [stp_nprobes] */

static int stp_timing_alloc(void)
{
	size_t i;

	stp_timing = kcalloc(max_t(size_t, stp_nprobes, 1),
			     sizeof(*stp_timing), GFP_KERNEL);
	if (!stp_timing)
		return -ENOMEM;
	for (i = 0; i < stp_nprobes; i++)
		if (stp_pstat_init(&stp_timing[i], &stp_timing_desc))
			return -ENOMEM;
	return 0;
}

static void stp_timing_free(void)
{
	size_t i;

	if (!stp_timing)
		return;
	for (i = 0; i < stp_nprobes; i++)
		stp_pstat_free(&stp_timing[i]);
	kfree(stp_timing);
	stp_timing = NULL;
}

static void stp_timing_report(void)
{
	struct stp_context *c;
	char line[512];
	size_t i;

	preempt_disable();
	c = stp_context_get();
	if (!c)
		goto out;
	c->probe = NULL;
	stp_print_str(c, "----- probe hit report: \n");
	for (i = 0; i < stp_nprobes; i++) {
		const struct stp_probe *p = &stp_probe_tab[i];
		struct stp_stat *st = stp_pstat_get(&stp_timing[i]);

		if (!st->count)
			continue;
		scnprintf(line, sizeof(line), "%s, (%s), hits: %lld, cycles: "
			  "%lldmin/%lldavg/%lldmax, variance: %lld,%s, index: "
			  "%zu\n", p->pp, p->location ? p->location : "",
			  (long long)st->count, (long long)st->min,
			  (long long)div64_s64(st->sum, st->count),
			  (long long)st->max, (long long)st->variance,
			  p->derivation ? p->derivation : "", i);
		stp_print_str(c, line);
		stp_print_commit(c);
	}
	/* SystemTap's module-refresh timing: nothing is refreshed here */
	stp_print_str(c, "----- refresh report:\n");
	stp_print_commit(c);
	stp_context_put(c);
out:
	preempt_enable();
}
#else
static int stp_timing_alloc(void) { return 0; }
static void stp_timing_free(void) { }
static void stp_timing_report(void) { }
#endif

void stp_probe_run_ctx(const struct stp_probe *p,
		       const struct stp_tp_args *args, struct pt_regs *regs,
		       int64_t *entry_out)
{
	bool event = stp_is_event(p);
	struct stp_context *c;
#ifdef STP_TIMING
	cycles_t t0;
#endif

	preempt_disable();
	c = stp_context_get();
	if (!c) {
		/* a probe hit inside another probe on this CPU (an interrupt):
		 * SystemTap 4.8 drops it without counting it as skipped */
		goto out;
	}
	if (!stp_probe_allowed(p))
		goto put;

	c->last_error = NULL;
	c->last_where = NULL;
	c->actionremaining = event ? MAXACTION : MAXACTION_INTERRUPTIBLE;
	c->nesting = 0;
	c->next = false;
	c->iter_top = 0;
	c->last_match.result = 0;
	c->probe = p;
	c->tp = args;
	c->regs = regs;
	c->entry_out = entry_out;
#ifdef STP_TIMING
	t0 = get_cycles();
#endif
	if (regs && !args && p->vals) {
		/* values from the registers at the event: now */
		p->vals(regs, c->vals, &c->vals_args.faults);
		c->vals_args.v = c->vals;
		c->vals_args.all = NULL;
		c->tp = &c->vals_args;
	}
	/* begin/end/error probes never overlap an event probe: no locks */
	if (event && p->nlocks && !stp_locks_take(p->locks, p->nlocks)) {
		atomic_inc(&stp_skipped);
		goto check;
	}
	/* the probe's own locals, not the largest frame of any body; a
	 * struct of 1 byte has none */
	if (!p->frame_size)
		memset(stp_frame(c, 0), 0, STP_FRAME_SIZE);
	else if (p->frame_size > 1)
		memset(stp_frame(c, 0), 0, p->frame_size);
	p->handler(c);
	if (event && p->nlocks)
		stp_locks_release(p->locks, p->nlocks);
#ifdef STP_TIMING
	stp_pstat_add(&stp_timing[p - stp_probe_tab], smp_processor_id(),
		      (int64_t)(get_cycles() - t0));
#endif
	if (c->plen)
		stp_print_commit(c);	/* output came before the error */
	if (c->last_error)
		stp_report_error(c);
check:
	stp_skip_check(c);
	c->probe = NULL;
	c->tp = NULL;
	c->regs = NULL;
	c->entry_out = NULL;
put:
	stp_context_put(c);
out:
	preempt_enable();
}

/* Run every probe of one type (begin, end, error) by priority. */
static void stp_run_type(enum stp_probe_type type)
{
	size_t i;

	for (i = 0; i < stp_nprobes; i++) {
		const struct stp_probe *p = &stp_probe_tab[stp_order[i]];

		if (p->type != type)
			continue;
		stp_probe_run(p);
		cond_resched();
	}
}

/*
 * The module's attach kinds, each with its table: armed in the module's
 * order (the compiler puts a kind whose arming can fail for want of what
 * the kernel has first), each all or nothing, and disarmed in the same
 * order.
 */
static const struct stp_kind_table *stp_kinds;

const struct stp_kind_ops *stp_probe_kind(const struct stp_probe *p)
{
	const char *e = p ? p->attach : NULL;

	for (const struct stp_kind_table *k = stp_kinds; e && k && k->ops;
	     k++) {
		const char *t = k->table;

		if (e >= t && e < t + k->n * k->ops->entry_size)
			return k->ops;
	}
	return NULL;
}

static void stp_disarm(void)
{
	for (const struct stp_kind_table *k = stp_kinds; k->ops; k++)
		k->ops->disarm();
	/* event handlers run with preemption off: after a grace period none
	 * is in flight, so end probes touch globals without locks */
	synchronize_rcu();
}

static int stp_arm(void)
{
	for (const struct stp_kind_table *k = stp_kinds; k->ops; k++) {
		int ret = k->ops->arm(k->table, k->n);
		if (ret) {
			stp_disarm();
			return ret;
		}
	}
	return 0;
}

/* ctl "start": begin probes, then arm event probes. */
static int stp_session_start(void)
{
	int ret = 0;

	mutex_lock(&stp_ctl_mutex);
	if (atomic_read(&stp_phase) != STP_PHASE_LOADED) {
		ret = -EBUSY;
		goto unlock;
	}
	atomic_set(&stp_phase, STP_PHASE_STARTING);
	stp_run_type(STP_PROBE_BEGIN);
	atomic_set(&stp_phase, STP_PHASE_RUNNING);
	if (atomic_read(&stp_exit_requested) || atomic_read(&stp_failed))
		goto unlock;
	atomic_set(&stp_events_live, 1);
	ret = stp_arm();
	if (ret) {
		stp_fail();
		atomic_set(&stp_phase, STP_PHASE_DONE);
	}
unlock:
	mutex_unlock(&stp_ctl_mutex);
	return ret;
}

/*
 * After the end probes: which probes lost output, one warning per point
 * the script wrote (its entries' losses summed into its first entry's,
 * .lost_to; the last readers of the counts, no probe runs now); records
 * lost outside any probe stay in the status line's total.
 */
static u64 stp_lost_reported;

static void stp_report_lost(void)
{
	char n[24];
	size_t i;

	for (i = 0; i < stp_nprobes; i++) {
		const struct stp_probe *p = &stp_probe_tab[i];
		u64 lost = stp_lost_of(i);

		if (lost && p->lost_to != i && p->lost_to < stp_lost_nprobes) {
			atomic64_add(lost, &stp_lost_by_probe[p->lost_to]);
			atomic64_set(&stp_lost_by_probe[i], 0);
		}
	}
	for (i = 0; i < stp_nprobes; i++) {
		const struct stp_probe *p = &stp_probe_tab[i];
		const char *point = p->point ? p->point : p->pp;
		u64 lost = stp_lost_of(i);

		if (!lost)
			continue;
		snprintf(n, sizeof(n), "%llu", (unsigned long long)lost);
		if (p->location)
			stp_ctl_stderr("WARNING: ", n, " output records lost (",
				       point, " at ", p->location, ")\n",
				       NULL);
		else
			stp_ctl_stderr("WARNING: ", n, " output records lost (",
				       point, ")\n", NULL);
		WRITE_ONCE(stp_lost_reported, stp_lost_reported + lost);
	}
}

/*
 * ctl "stop": disarm, then end probes (or error probes); returns when
 * done.  Their output goes to the control rings and waits for the reader
 * when they are full, so the loader keeps reading while "stop" runs.
 */
static int stp_session_stop(void)
{
	int phase;

	mutex_lock(&stp_ctl_mutex);
	phase = atomic_read(&stp_phase);
	if (phase == STP_PHASE_RUNNING) {
		atomic_set(&stp_events_live, 0);
		atomic_set(&stp_phase, STP_PHASE_STOPPING);
		stp_disarm();
		stp_run_type(STP_PROBE_END);
		if (atomic_read(&stp_failed))
			stp_run_type(STP_PROBE_ERROR);
		stp_timing_report();
		stp_report_lost();
	}
	atomic_set(&stp_phase, STP_PHASE_DONE);
	mutex_unlock(&stp_ctl_mutex);
	return 0;
}

static void stp_session_set_target(int64_t pid)
{
	WRITE_ONCE(stp_target_pid, pid);
}

static int stp_status_line(char *buf, size_t size)
{
	static const u8 abi_state[] = {
		[STP_PHASE_LOADED] = STP_STATE_LOADED,
		[STP_PHASE_STARTING] = STP_STATE_LOADED,
		[STP_PHASE_RUNNING] = STP_STATE_RUNNING,
		[STP_PHASE_STOPPING] = STP_STATE_STOPPING,
		[STP_PHASE_DONE] = STP_STATE_DONE,
	};

	return scnprintf(buf, size, STP_STATUS_FMT,
			 (unsigned int)abi_state[atomic_read(&stp_phase)],
			 (unsigned int)atomic_read(&stp_exit_requested),
			 (unsigned int)atomic_read(&stp_failed),
			 (unsigned int)atomic_read(&stp_errors),
			 (unsigned int)atomic_read(&stp_skipped),
			 (unsigned long long)atomic64_read(&stp_lost),
			 (unsigned long long)READ_ONCE(stp_lost_reported));
}

/* poll()'s POLLPRI: the loader should read the status line. */
static bool stp_session_news(void)
{
	return atomic_read(&stp_exit_requested) || atomic_read(&stp_failed) ||
	       atomic_read(&stp_phase) == STP_PHASE_DONE;
}

static void stp_session_free(void)
{
	if (stp_module.globals_free)
		stp_module.globals_free();
	stp_timing_free();
	stp_counters_free();
	stp_rings_free();
	stp_contexts_free();
	for (const struct stp_kind_table *k = stp_kinds; k->ops; k++)
		if (k->ops->free)
			k->ops->free();
	kfree(stp_order);
	stp_order = NULL;
}

int stp_session_init(const struct stp_probe *probes, size_t n,
		     const struct stp_kind_table *kinds)
{
	size_t i, j;
	int ret;

	stp_probe_tab = probes;
	stp_nprobes = n;
	stp_kinds = kinds;
	stp_order = kcalloc(max_t(size_t, n, 1), sizeof(*stp_order),
			    GFP_KERNEL);
	if (!stp_order) {
		ret = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		/* stable insertion sort by priority */
		for (j = i; j > 0 && probes[stp_order[j - 1]].priority >
				     probes[i].priority; j--)
			stp_order[j] = stp_order[j - 1];
		stp_order[j] = i;
	}
	ret = stp_contexts_alloc();
	if (ret)
		goto fail;
	ret = stp_counters_alloc();
	if (ret)
		goto fail;
	ret = stp_timing_alloc();
	if (ret)
		goto fail;
	ret = stp_module.globals_init ? stp_module.globals_init() : 0;
	if (ret)
		goto fail;
	ret = stp_rings_alloc(probes, n);
	if (ret)
		goto fail;
	ret = stp_transport_init();
	if (ret)
		goto fail;
	return 0;
fail:
	stp_session_free();
	return ret;
}

void stp_session_exit(void)
{
	/* no new ctl or data operations after this; waits for running ones */
	stp_transport_exit();
	mutex_lock(&stp_ctl_mutex);
	if (atomic_read(&stp_phase) == STP_PHASE_RUNNING) {
		/* the loader went away without "stop" */
		atomic_set(&stp_events_live, 0);
		atomic_set(&stp_phase, STP_PHASE_STOPPING);
		stp_disarm();
	}
	atomic_set(&stp_phase, STP_PHASE_DONE);
	mutex_unlock(&stp_ctl_mutex);
	stp_session_free();
}
