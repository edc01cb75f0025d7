// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ring buffers (ring.h).  head and tail only grow; the byte at position
 * pos lives at data[pos & (size - 1)], so a record may wrap around the
 * end.  The producer publishes a whole record with a release store of
 * head; the consumer frees space with a release store of tail.
 *
 * Which ring: a STDOUT record of an event probe goes to this CPU's data
 * ring; everything else (STDERR messages, output of begin/end/error
 * probes and of the control file's own work) to its control ring.  A
 * record that does not fit is dropped whole and counted in stp_lost and
 * against its probe (stp_lost_by_probe) -- except on the control ring
 * when the writer may sleep (a begin/end/error probe or the session, run
 * from the ctl file's write in process context): it waits for the reader
 * to make room, and gives up (drops) only after STP_ROOM_IDLE without the
 * reader consuming anything, or on a signal.
 *
 * Waking the reader (poll on the data file): the reader sets
 * stp_reader_waiting before it sleeps; a producer that sees it after a
 * commit asks, through an irq_work (safe in any context, even NMI), for
 * an immediate wake-up when the ring is past its watermark (a quarter),
 * the record is a control record, or the session wants the loader's
 * attention (exit(), a fatal error), else for a wake-up STP_WAKE_DELAY
 * later (a timer), so a trickle of output costs the reader one read per
 * delay, not one per record.  poll() itself reports data only on the
 * same terms (stp_rings_ready): data below the watermark waits for the
 * timer, which poll arms, so at most STP_WAKE_DELAY.  The hot path costs
 * a full barrier and a load while the reader is busy.  A read takes the
 * records of one ring that come before every other ring's oldest with
 * one copy.
 */

static struct stp_ring *stp_rings;		/* data, [nr_cpu_ids] */
static struct stp_ring *stp_ctl_rings;		/* control, [nr_cpu_ids] */
static atomic64_t stp_lost = ATOMIC64_INIT(0);
static atomic64_t *stp_lost_by_probe;		/* [stp_lost_nprobes] */
static const struct stp_probe *stp_lost_tab;
static size_t stp_lost_nprobes;
static DEFINE_MUTEX(stp_read_mutex);

static DECLARE_WAIT_QUEUE_HEAD(stp_data_wq);	/* poll on the data file */
static DECLARE_WAIT_QUEUE_HEAD(stp_room_wq);	/* writers waiting for room */
static atomic_t stp_reader_waiting = ATOMIC_INIT(0);
static atomic_t stp_wake_urgent = ATOMIC_INIT(0);
static atomic_t stp_wake_timer_req = ATOMIC_INIT(0);
static atomic_t stp_data_due = ATOMIC_INIT(0);	/* the timer fired since
						 * the last read */
static struct irq_work stp_wake_work;
static struct timer_list stp_wake_timer;
static bool stp_wake_ready;

#define STP_WAKE_DELAY (msecs_to_jiffies(10) ?: 1)
#define STP_ROOM_IDLE (5 * HZ)

static void stp_wake_reader_now(void)
{
	atomic_set(&stp_reader_waiting, 0);
	wake_up_interruptible_all(&stp_data_wq);
}

static void stp_wake_timer_fn(struct timer_list *t)
{
	atomic_set(&stp_data_due, 1);
	atomic_set(&stp_wake_timer_req, 0);
	stp_wake_reader_now();
}

static void stp_wake_work_fn(struct irq_work *w)
{
	if (atomic_xchg(&stp_wake_urgent, 0))
		stp_wake_reader_now();
	else if (!timer_pending(&stp_wake_timer))
		mod_timer(&stp_wake_timer, jiffies + STP_WAKE_DELAY);
}

/*
 * Ask for the reader to be woken, now or after STP_WAKE_DELAY; any
 * context.  Also for the session's news (exit requested, failed).
 */
static void stp_reader_kick(bool now)
{
	if (!READ_ONCE(stp_wake_ready))
		return;
	if (now)
		atomic_set(&stp_wake_urgent, 1);
	else if (atomic_xchg(&stp_wake_timer_req, 1))
		return;
	irq_work_queue(&stp_wake_work);
}

static void stp_ring_free_set(struct stp_ring *set)
{
	unsigned int cpu;

	if (!set)
		return;
	for_each_possible_cpu(cpu)
		vfree(set[cpu].data);
	kfree(set);
}

static struct stp_ring *stp_ring_alloc_set(u64 size)
{
	struct stp_ring *set;
	unsigned int cpu;

	set = kcalloc(nr_cpu_ids, sizeof(*set), GFP_KERNEL);
	if (!set)
		return NULL;
	for_each_possible_cpu(cpu) {
		set[cpu].size = size;
		set[cpu].data = vmalloc(size);
		if (!set[cpu].data) {
			stp_ring_free_set(set);
			return NULL;
		}
	}
	return set;
}

static int stp_rings_alloc(const struct stp_probe *probes, size_t n)
{
	BUILD_BUG_ON_NOT_POWER_OF_2(STP_BUFFER_SIZE);
	BUILD_BUG_ON_NOT_POWER_OF_2(STP_CTL_BUFFER_SIZE);
	init_irq_work(&stp_wake_work, stp_wake_work_fn);
	timer_setup(&stp_wake_timer, stp_wake_timer_fn, 0);
	WRITE_ONCE(stp_wake_ready, true);
	stp_lost_tab = probes;
	stp_lost_nprobes = n;
	stp_lost_by_probe = kcalloc(max_t(size_t, n, 1),
				    sizeof(*stp_lost_by_probe), GFP_KERNEL);
	stp_rings = stp_ring_alloc_set(STP_BUFFER_SIZE);
	stp_ctl_rings = stp_ring_alloc_set(STP_CTL_BUFFER_SIZE);
	if (!stp_lost_by_probe || !stp_rings || !stp_ctl_rings)
		return -ENOMEM;
	return 0;
}

/* After the transport files are gone: nothing reads or writes. */
static void stp_rings_free(void)
{
	if (READ_ONCE(stp_wake_ready)) {
		WRITE_ONCE(stp_wake_ready, false);
		irq_work_sync(&stp_wake_work);
		del_timer_sync(&stp_wake_timer);
	}
	stp_ring_free_set(stp_rings);
	stp_ring_free_set(stp_ctl_rings);
	kfree(stp_lost_by_probe);
	stp_rings = NULL;
	stp_ctl_rings = NULL;
	stp_lost_by_probe = NULL;
}

static void stp_ring_put(struct stp_ring *r, u64 pos, const void *src,
			 size_t n)
{
	size_t off = pos & (r->size - 1);
	size_t first = min_t(size_t, n, r->size - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, n - first);
}

static void stp_ring_get(struct stp_ring *r, u64 pos, void *dst, size_t n)
{
	size_t off = pos & (r->size - 1);
	size_t first = min_t(size_t, n, r->size - off);

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, n - first);
}

static int stp_ring_get_user(struct stp_ring *r, u64 pos, char __user *dst,
			     size_t n)
{
	size_t off = pos & (r->size - 1);
	size_t first = min_t(size_t, n, r->size - off);

	if (copy_to_user(dst, r->data + off, first))
		return -EFAULT;
	if (n > first && copy_to_user(dst + first, r->data, n - first))
		return -EFAULT;
	return 0;
}

static bool stp_ring_fits(struct stp_ring *r, size_t need)
{
	return need <= r->size - (r->head - smp_load_acquire(&r->tail));
}

/*
 * May this writer sleep until the reader makes room?  Only in a task
 * with nothing held but the probe's own preempt_disable() (begin, end
 * and error probes and the session run from the ctl file's write; an
 * embedded-C section holding a lock or rcu_read_lock() does not).
 */
static bool stp_ring_may_block(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_COUNT) && in_task() &&
	       preempt_count() == 1 && !irqs_disabled() &&
	       !rcu_preempt_depth();
}

/*
 * Wait for room in r with preemption enabled around the sleep.  The
 * context stays ours (no event probe runs while begin/end/error probes
 * or the session's own output do), so we stay r's only producer even on
 * another CPU.  False after STP_ROOM_IDLE without progress or a signal.
 */
static bool stp_ring_wait_room(struct stp_ring *r, size_t need)
{
	u64 seen = READ_ONCE(r->tail);
	unsigned long idle_since = jiffies;

	while (!stp_ring_fits(r, need)) {
		long ret;

		stp_reader_kick(true);
		preempt_enable();
		ret = wait_event_interruptible_timeout(stp_room_wq,
				stp_ring_fits(r, need), HZ / 10);
		preempt_disable();
		if (ret < 0)
			return false;
		if (READ_ONCE(r->tail) != seen) {
			seen = READ_ONCE(r->tail);
			idle_since = jiffies;
		} else if (time_after(jiffies, idle_since + STP_ROOM_IDLE)) {
			return false;
		}
	}
	return true;
}

static bool stp_is_control(const struct stp_probe *p)
{
	return !p || p->type == STP_PROBE_BEGIN || p->type == STP_PROBE_END ||
	       p->type == STP_PROBE_ERROR;
}

/* Append one record; the caller owns this CPU's context. */
void stp_ring_write(struct stp_context *c, u16 type, const char *payload,
		    size_t len)
{
	bool ctl = type != STP_REC_STDOUT || stp_is_control(c->probe);
	struct stp_ring *r = ctl ? &stp_ctl_rings[c->cpu] : &stp_rings[c->cpu];
	struct stp_record_hdr hdr;
	size_t need = sizeof(hdr) + len, off;
	u64 head = r->head;

	if (!stp_ring_fits(r, need) &&
	    (!ctl || need > r->size || !stp_ring_may_block() ||
	     !stp_ring_wait_room(r, need))) {
		size_t i = c->probe - stp_lost_tab;

		atomic64_inc(&stp_lost);
		if (c->probe && i < stp_lost_nprobes)
			atomic64_inc(&stp_lost_by_probe[i]);
		return;
	}
	hdr.len = len;
	hdr.type = type;
	hdr.cpu = c->cpu;
	hdr.timestamp = local_clock();
	off = head & (r->size - 1);
	if (likely(need <= r->size - off)) {
		/* no wrap: the header's stores and one copy */
		memcpy(r->data + off, &hdr, sizeof(hdr));
		memcpy(r->data + off + sizeof(hdr), payload, len);
	} else {
		stp_ring_put(r, head, &hdr, sizeof(hdr));
		stp_ring_put(r, head + sizeof(hdr), payload, len);
	}
	smp_store_release(&r->head, head + need);
	/* the head before the flag; pairs with stp_rings_poll() */
	smp_mb();
	if (unlikely(atomic_read(&stp_reader_waiting)))
		stp_reader_kick(ctl || head + need - READ_ONCE(r->tail) >=
				       r->size / 4);
}

/* A ring's oldest record, as the reader compares rings. */
struct stp_ring_pick {
	struct stp_ring *ring;		/* NULL: none */
	unsigned int idx;		/* scan order: data rings by CPU, then
					 * control rings by CPU */
	u64 ts;				/* its timestamp */
};

/* Does a record of ring idx stamped ts come before p's (ties: scan order)? */
static bool stp_ring_before(u64 ts, unsigned int idx,
			    const struct stp_ring_pick *p)
{
	return !p->ring || ts < p->ts || (ts == p->ts && idx < p->idx);
}

static void stp_ring_hdr(struct stp_ring *r, u64 pos,
			 struct stp_record_hdr *hdr)
{
	size_t off = pos & (r->size - 1);

	if (likely(sizeof(*hdr) <= r->size - off))
		memcpy(hdr, r->data + off, sizeof(*hdr));
	else
		stp_ring_get(r, pos, hdr, sizeof(*hdr));
}

/*
 * The ring whose oldest record is the oldest of all (best; ring NULL when
 * all are empty) and, of the other rings, the one whose oldest record
 * comes next (next).
 */
static void stp_rings_oldest(struct stp_ring_pick *best,
			     struct stp_ring_pick *next)
{
	unsigned int cpu;
	int set;

	best->ring = NULL;
	next->ring = NULL;
	for (set = 0; set < 2; set++) {
		for_each_possible_cpu(cpu) {
			struct stp_ring *r = set ? &stp_ctl_rings[cpu] :
						   &stp_rings[cpu];
			unsigned int idx = set * nr_cpu_ids + cpu;
			struct stp_record_hdr hdr;
			u64 head = smp_load_acquire(&r->head);

			if (head == r->tail)
				continue;
			stp_ring_hdr(r, r->tail, &hdr);
			if (stp_ring_before(hdr.timestamp, idx, best)) {
				*next = *best;
				*best = (struct stp_ring_pick){ r, idx,
								hdr.timestamp };
			} else if (stp_ring_before(hdr.timestamp, idx, next)) {
				*next = (struct stp_ring_pick){ r, idx,
								hdr.timestamp };
			}
		}
	}
}

/*
 * Is there output the reader should take now: a control record, a data
 * ring past its watermark (a quarter), or data and the timer has fired
 * since the last read (stp_data_due)?  *data: some data ring holds
 * records (read later).
 */
static bool stp_rings_ready(bool *data)
{
	bool due = atomic_read(&stp_data_due);
	unsigned int cpu;

	*data = false;
	for_each_possible_cpu(cpu) {
		struct stp_ring *r = &stp_rings[cpu];
		struct stp_ring *k = &stp_ctl_rings[cpu];
		u64 fill = smp_load_acquire(&r->head) - READ_ONCE(r->tail);

		if (smp_load_acquire(&k->head) != READ_ONCE(k->tail))
			return true;
		if (fill && (due || fill >= r->size / 4))
			return true;
		*data |= fill != 0;
	}
	return false;
}

/*
 * poll(): true when there is output to take now (stp_rings_ready).
 * Otherwise the reader is marked waiting (the caller has queued it on
 * stp_data_wq), and the rings are checked again after a barrier that
 * pairs with the producer's, so a record committed meanwhile is seen
 * here or kicks.  Data below the watermark is not ready until the timer
 * has fired: the reader's own system calls, when a probe prints for
 * them, leave records every time it reads, and reading them at once
 * kept it spinning.  Such data arms the timer here, so it waits at most
 * STP_WAKE_DELAY.
 */
static bool stp_rings_poll(struct file *file, poll_table *wait)
{
	bool data;

	poll_wait(file, &stp_data_wq, wait);
	if (stp_rings_ready(&data))
		return true;
	atomic_set(&stp_reader_waiting, 1);
	smp_mb();
	if (stp_rings_ready(&data)) {
		atomic_set(&stp_reader_waiting, 0);
		return true;
	}
	if (data)
		stp_reader_kick(false);
	return false;
}

/*
 * Copy whole records to user space, oldest first across all rings, as
 * many as fit in count bytes.  Returns 0 when there is nothing to read.
 * The records of the ring with the oldest one that come before every
 * other ring's oldest are copied together: one copy_to_user() (two when
 * they wrap) for the lot, not one per record.
 */
static ssize_t stp_rings_read(char __user *ubuf, size_t count)
{
	size_t done = 0;
	ssize_t ret = 0;

	mutex_lock(&stp_read_mutex);
	/* what comes after this read waits for the watermark or the timer */
	atomic_set(&stp_data_due, 0);
	for (;;) {
		struct stp_ring_pick best, next;
		struct stp_ring *r;
		size_t span = 0;
		bool full = false;
		u64 head, pos;

		stp_rings_oldest(&best, &next);
		r = best.ring;
		if (!r)
			break;
		head = smp_load_acquire(&r->head);
		for (pos = r->tail; pos != head;) {
			struct stp_record_hdr hdr;
			size_t n;

			stp_ring_hdr(r, pos, &hdr);
			if (span && !stp_ring_before(hdr.timestamp, best.idx,
						     &next))
				break;
			n = sizeof(hdr) + hdr.len;
			if (n > count - done - span) {
				full = true;
				break;
			}
			pos += n;
			span += n;
		}
		if (!span) {
			if (!done)
				ret = -EINVAL;
			else
				atomic_set(&stp_data_due, 1);
			break;
		}
		if (stp_ring_get_user(r, r->tail, ubuf + done, span)) {
			ret = -EFAULT;
			break;
		}
		smp_store_release(&r->tail, pos);
		done += span;
		if (full) {
			/* the rest is due now, as what was read */
			atomic_set(&stp_data_due, 1);
			break;
		}
	}
	mutex_unlock(&stp_read_mutex);
	if (done && wq_has_sleeper(&stp_room_wq))
		wake_up_all(&stp_room_wq);
	return done ? done : ret;
}

/* Records lost by probe i of the table (the session's warning). */
static u64 stp_lost_of(size_t i)
{
	return i < stp_lost_nprobes ? atomic64_read(&stp_lost_by_probe[i]) : 0;
}
