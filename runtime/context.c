// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-CPU contexts: allocation, the busy guard, errors and exit requests.
 * Each context, its frames, its print buffer and its foreach snapshot
 * slots are one vzalloc block.
 */

static struct stp_context **stp_contexts;	/* [nr_cpu_ids] */
DEFINE_PER_CPU(struct stp_context *, stp_ctx);

#define STP_FRAMES_BYTES ((size_t)(STP_MAXNESTING + 1) * STP_FRAME_SIZE)
#define STP_CONTEXT_BYTES ALIGN(sizeof(struct stp_context), 16)
#define STP_FRAMES_ALLOC ALIGN(STP_FRAMES_BYTES, 16)
#define STP_ITER_BYTES ((size_t)STP_ITER_SLOTS * sizeof(struct stp_map_entry *))

int stp_contexts_alloc(void)
{
	size_t sz = STP_CONTEXT_BYTES + STP_FRAMES_ALLOC + STP_PRINT_BUF_SIZE +
		    STP_ITER_BYTES;
	unsigned int cpu;

	stp_contexts = kcalloc(nr_cpu_ids, sizeof(*stp_contexts), GFP_KERNEL);
	if (!stp_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct stp_context *c = vzalloc(sz);

		if (!c) {
			stp_contexts_free();
			return -ENOMEM;
		}
		atomic_set(&c->busy, 0);
		c->frames = (char *)c + STP_CONTEXT_BYTES;
		c->pbuf = c->frames + STP_FRAMES_ALLOC;
		c->iter = (struct stp_map_entry **)(c->pbuf + STP_PRINT_BUF_SIZE);
		c->ptype = STP_REC_STDOUT;
		c->cpu = cpu;
		stp_contexts[cpu] = c;
		per_cpu(stp_ctx, cpu) = c;
	}
	return 0;
}

void stp_contexts_free(void)
{
	unsigned int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		per_cpu(stp_ctx, cpu) = NULL;
		vfree(stp_contexts[cpu]);
	}
	kfree(stp_contexts);
	stp_contexts = NULL;
}

/*
 * Take this CPU's context; NULL when it is already owned (a probe fired
 * inside another probe on this CPU).  The caller has preemption disabled.
 */
struct stp_context *stp_context_get(void)
{
	return stp_context_enter();
}

void stp_context_put(struct stp_context *c)
{
	stp_context_exit(c);
}

/* Record a runtime error; the first one in a probe hit wins. */
void stp_error(struct stp_context *c, const char *msg, const char *where)
{
	if (c->last_error)
		return;
	if (msg != c->error_buf)
		strscpy(c->error_buf, msg ? msg : "", sizeof(c->error_buf));
	c->last_error = c->error_buf;
	c->last_where = where;
}

/*
 * The same with a kernel printf format and no location (STAP_ERROR in
 * embedded C; the function's location is added when it returns).
 */
void stp_errorf(struct stp_context *c, const char *fmt, ...)
{
	va_list ap;

	if (c->last_error)
		return;
	va_start(ap, fmt);
	vsnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
	c->last_where = NULL;
}
