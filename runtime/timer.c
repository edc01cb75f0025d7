// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.* probes: one hrtimer each, or for timer.profile (STP_TIMER_PROFILE)
 * one per CPU, pinned, run with the registers the tick interrupted. The
 * period is period_ns +/- up to randomize_ns, redrawn at every expiry; in
 * jiffies with STP_TIMER_JIFFIES.
 */

struct stp_timer;

/* timer.profile: one per CPU, pinned */
struct stp_cpu_timer {
	struct hrtimer t;
	struct stp_timer *tm;
};

struct stp_timer {
	const struct stp_probe *p;	/* its probe */
	const struct stp_timer_probe *k;	/* its timer's entry */
	struct hrtimer timer;
	struct stp_cpu_timer __percpu *cpu_timers; /* STP_TIMER_PROFILE */
	bool armed;
};

static struct stp_timer *stp_timers;	/* the table's timer probes */
static size_t stp_ntimers;

/* The next period: N +/- up to M (SystemTap's .randomize(M)), in ns. */
static u64 stp_timer_period(const struct stp_timer_probe *k)
{
	u64 n = k->period_ns;
	u64 r = k->randomize_ns;

	if (r && r <= n)
		n = n - r + get_random_u64() % (2 * r + 1);
	if (k->flags & STP_TIMER_JIFFIES)
		n = jiffies_to_nsecs((unsigned long)n);
	return max_t(u64, n, 10000);	/* never spin on a 0 period */
}

static enum hrtimer_restart stp_timer_fn(struct hrtimer *t)
{
	struct stp_timer *tm = container_of(t, struct stp_timer, timer);

	stp_probe_run(tm->p);
	hrtimer_forward_now(t, ns_to_ktime(stp_timer_period(tm->k)));
	return HRTIMER_RESTART;
}

/* timer.profile: this CPU's tick, with the registers it interrupted. */
static enum hrtimer_restart stp_cpu_timer_fn(struct hrtimer *t)
{
	struct stp_cpu_timer *ct = container_of(t, struct stp_cpu_timer, t);

	stp_probe_run_regs(ct->tm->p, get_irq_regs());
	hrtimer_forward_now(t, ns_to_ktime(stp_timer_period(ct->tm->k)));
	return HRTIMER_RESTART;
}

/* on_each_cpu(): start this CPU's timer, pinned to it */
static void stp_cpu_timer_start(void *data)
{
	struct stp_timer *tm = data;

	hrtimer_start(&this_cpu_ptr(tm->cpu_timers)->t,
		      ns_to_ktime(stp_timer_period(tm->k)),
		      HRTIMER_MODE_REL_PINNED);
}

static int stp_cpu_timers_arm(struct stp_timer *tm)
{
	int cpu;

	tm->cpu_timers = alloc_percpu(struct stp_cpu_timer);
	if (!tm->cpu_timers)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct stp_cpu_timer *ct = per_cpu_ptr(tm->cpu_timers, cpu);

		hrtimer_init(&ct->t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		ct->t.function = stp_cpu_timer_fn;
		ct->tm = tm;
	}
	on_each_cpu(stp_cpu_timer_start, tm, 1);
	return 0;
}

static void stp_cpu_timers_disarm(struct stp_timer *tm)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(tm->cpu_timers, cpu)->t);
	free_percpu(tm->cpu_timers);
	tm->cpu_timers = NULL;
}

static void stp_timer_disarm(void)
{
	for (size_t i = 0; i < stp_ntimers; i++) {
		struct stp_timer *tm = &stp_timers[i];

		if (tm->armed && tm->cpu_timers)
			stp_cpu_timers_disarm(tm);
		else if (tm->armed)
			hrtimer_cancel(&tm->timer);
		tm->armed = false;
	}
	kfree(stp_timers);
	stp_timers = NULL;
	stp_ntimers = 0;
}

static int stp_timer_arm(const void *table, size_t n)
{
	const struct stp_timer_probe *tab = table;
	size_t i;

	if (!n)
		return 0;
	stp_timers = kcalloc(n, sizeof(*stp_timers), GFP_KERNEL);
	if (!stp_timers)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct stp_timer *tm;
		int ret;

		tm = &stp_timers[stp_ntimers++];
		tm->p = tab[i].probe;
		tm->k = &tab[i];
		if (tm->k->flags & STP_TIMER_PROFILE) {
			ret = stp_cpu_timers_arm(tm);
			if (ret)
				return ret;	/* the caller disarms */
		} else {
			hrtimer_init(&tm->timer, CLOCK_MONOTONIC,
				     HRTIMER_MODE_REL);
			tm->timer.function = stp_timer_fn;
			hrtimer_start(&tm->timer,
				      ns_to_ktime(stp_timer_period(tm->k)),
				      HRTIMER_MODE_REL);
		}
		tm->armed = true;
	}
	return 0;
}

const struct stp_kind_ops stp_timer_kind = {
	.name = "timer",
	.entry_size = sizeof(struct stp_timer_probe),
	.arm = stp_timer_arm,
	.disarm = stp_timer_disarm,
};
