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
 * system-wide events are made for the CPUs online then, too). An event
 * the kernel cannot make (a hardware event with no PMU, as under qemu's
 * TCG) fails the session with SystemTap's message, before any probe of
 * this kind runs.
 */
#include <linux/perf_event.h>

struct stp_perf {
	const struct stp_perf_probe *k;
	struct perf_event *__percpu *events;
};

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
	return 0;
}

const struct stp_kind_ops stp_perf_kind = {
	.name = "perf",
	.entry_size = sizeof(struct stp_perf_probe),
	.arm = stp_perf_arm,
	.disarm = stp_perf_disarm,
};
