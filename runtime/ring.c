// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ring buffers.  head and tail only grow; the byte at position pos lives
 * at data[pos & (STP_BUFFER_SIZE - 1)], so a record may wrap around the
 * end.  The producer publishes a whole record with a release store of
 * head; the consumer frees space with a release store of tail.  A record
 * that does not fit is dropped whole and counted in stp_lost.
 */

static struct stp_ring *stp_rings;		/* [nr_cpu_ids] */
static atomic64_t stp_lost = ATOMIC64_INIT(0);
static DEFINE_MUTEX(stp_read_mutex);

#define STP_RING_MASK ((u64)STP_BUFFER_SIZE - 1)

int stp_rings_alloc(void)
{
	unsigned int cpu;

	BUILD_BUG_ON_NOT_POWER_OF_2(STP_BUFFER_SIZE);
	stp_rings = kcalloc(nr_cpu_ids, sizeof(*stp_rings), GFP_KERNEL);
	if (!stp_rings)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		stp_rings[cpu].data = vmalloc(STP_BUFFER_SIZE);
		if (!stp_rings[cpu].data) {
			stp_rings_free();
			return -ENOMEM;
		}
	}
	return 0;
}

void stp_rings_free(void)
{
	unsigned int cpu;

	if (!stp_rings)
		return;
	for_each_possible_cpu(cpu)
		vfree(stp_rings[cpu].data);
	kfree(stp_rings);
	stp_rings = NULL;
}

static void stp_ring_put(struct stp_ring *r, u64 pos, const void *src,
			 size_t n)
{
	size_t off = pos & STP_RING_MASK;
	size_t first = min_t(size_t, n, STP_BUFFER_SIZE - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, n - first);
}

static void stp_ring_get(struct stp_ring *r, u64 pos, void *dst, size_t n)
{
	size_t off = pos & STP_RING_MASK;
	size_t first = min_t(size_t, n, STP_BUFFER_SIZE - off);

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, n - first);
}

static int stp_ring_get_user(struct stp_ring *r, u64 pos, char __user *dst,
			     size_t n)
{
	size_t off = pos & STP_RING_MASK;
	size_t first = min_t(size_t, n, STP_BUFFER_SIZE - off);

	if (copy_to_user(dst, r->data + off, first))
		return -EFAULT;
	if (copy_to_user(dst + first, r->data, n - first))
		return -EFAULT;
	return 0;
}

/* Append one record; the caller owns this CPU's context. */
void stp_ring_write(unsigned int cpu, u16 type, const char *payload, size_t len)
{
	struct stp_ring *r = &stp_rings[cpu];
	struct stp_record_hdr hdr;
	u64 head = r->head;
	u64 tail = smp_load_acquire(&r->tail);
	size_t need = sizeof(hdr) + len;

	if (need > STP_BUFFER_SIZE - (head - tail)) {
		atomic64_inc(&stp_lost);
		return;
	}
	hdr.len = len;
	hdr.type = type;
	hdr.cpu = cpu;
	hdr.timestamp = local_clock();
	stp_ring_put(r, head, &hdr, sizeof(hdr));
	stp_ring_put(r, head + sizeof(hdr), payload, len);
	smp_store_release(&r->head, head + need);
}

/*
 * Copy whole records to user space, oldest first across all CPUs, as many
 * as fit in count bytes.  Returns 0 when there is nothing to read.
 */
ssize_t stp_rings_read(char __user *ubuf, size_t count)
{
	size_t done = 0;
	ssize_t ret = 0;

	mutex_lock(&stp_read_mutex);
	for (;;) {
		struct stp_record_hdr hdr, best_hdr;
		struct stp_ring *best = NULL;
		unsigned int cpu;
		size_t n;

		for_each_possible_cpu(cpu) {
			struct stp_ring *r = &stp_rings[cpu];
			u64 head = smp_load_acquire(&r->head);

			if (head == r->tail)
				continue;
			stp_ring_get(r, r->tail, &hdr, sizeof(hdr));
			if (!best || hdr.timestamp < best_hdr.timestamp) {
				best = r;
				best_hdr = hdr;
			}
		}
		if (!best)
			break;
		n = sizeof(best_hdr) + best_hdr.len;
		if (n > count - done) {
			if (!done)
				ret = -EINVAL;
			break;
		}
		if (stp_ring_get_user(best, best->tail, ubuf + done, n)) {
			ret = -EFAULT;
			break;
		}
		smp_store_release(&best->tail, best->tail + n);
		done += n;
	}
	mutex_unlock(&stp_read_mutex);
	return done ? done : ret;
}
