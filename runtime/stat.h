/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics (the values of `<<<`): count, sum, min, max, an integer
 * Welford mean/variance, and an optional log or linear histogram.
 * A scalar statistic keeps one slot per CPU (`<<<` touches only its own
 * CPU's slot, without a lock); reading aggregates the slots.  All memory
 * is allocated at module load.
 */
#ifndef RUNTIME_STAT_H
#define RUNTIME_STAT_H

enum stp_hist_type {
	STP_HIST_NONE,
	STP_HIST_LOG,
	STP_HIST_LINEAR,
};

#define STP_HIST_LOG_BUCKETS 128
#define STP_HIST_LOG_BUCKET0 64
#define STP_HIST_WIDTH 50
#define STP_HIST_ELISION 2

/* The shape of a statistic, fixed by the translator. */
struct stp_stat_desc {
	u8 hist;			/* enum stp_hist_type */
	bool variance;			/* @variance is read: keep avg, m2 and
					 * variance per CPU (else only count,
					 * sum, min and max, as SystemTap) */
	int shift;			/* @variance bit shift */
	int64_t lo, hi, step;		/* STP_HIST_LINEAR */
	int nbuckets;			/* 0, 128, or (hi - lo) / step + 3 */
};

struct stp_stat {
	int64_t count, sum, min, max;
	int64_t avg;			/* mean << shift (per CPU) */
	int64_t m2;			/* Welford sum of squares */
	int64_t variance;		/* per CPU; aggregated: the result */
	int64_t hist[];			/* desc->nbuckets counters */
};

#define STP_STAT_SIZE(d) \
	ALIGN(sizeof(struct stp_stat) + (size_t)(d)->nbuckets * sizeof(int64_t), 8)

/* A scalar statistic: nr_cpu_ids slots, then the aggregate. */
struct stp_pstat {
	const struct stp_stat_desc *d;
	size_t stride;
	char *data;
};

/* Which aggregate foreach sorts a statistics array by. */
enum stp_stat_op {
	STP_STAT_COUNT, STP_STAT_SUM, STP_STAT_MIN, STP_STAT_MAX, STP_STAT_AVG,
};

int64_t stp_stat_value(const struct stp_stat *sd, int op);

static inline int64_t stp_lshift(int64_t v, int n)
{
	return (int64_t)((u64)v << n);
}

static inline int64_t stp_div(int64_t a, int64_t b)
{
	return b ? div64_s64(a, b) : 0;
}

/* Log histogram bucket of v: 64 for 0, 65 + log2(v) above, mirrored below. */
static inline int stp_log_bucket(int64_t v)
{
	u64 mag;
	int b;

	if (v == 0)
		return STP_HIST_LOG_BUCKET0;
	mag = v < 0 ? (u64)0 - (u64)v : (u64)v;
	b = STP_HIST_LOG_BUCKET0 + fls64(mag);
	if (b > STP_HIST_LOG_BUCKETS - 1)
		b = STP_HIST_LOG_BUCKETS;
	if (v < 0)
		b = STP_HIST_LOG_BUCKETS - b;
	return min(b, STP_HIST_LOG_BUCKETS - 1);
}

/*
 * Add v to one CPU's statistic. Inline: with d a constant descriptor
 * (the generated code's), only what the statistic keeps is compiled.
 */
static __always_inline void stp_stat_add(const struct stp_stat_desc *d,
					 struct stp_stat *sd, int64_t v)
{
	int64_t sv = stp_lshift(v, d->shift);

	if (sd->count == 0) {
		sd->count = 1;
		sd->sum = sd->min = sd->max = v;
		sd->avg = sv;
		sd->m2 = 0;
	} else {
		sd->count++;
		sd->sum += v;
		if (v > sd->max)
			sd->max = v;
		if (v < sd->min)
			sd->min = v;
		if (d->variance) {
			/* 32 bits, as SystemTap */
			int delta = (int)(sv - sd->avg);

			sd->avg += stp_div(delta, sd->count);
			sd->m2 += (int64_t)delta * (sv - sd->avg);
			sd->variance = stp_div(sd->m2, sd->count - 1);
		}
	}
	if (d->hist == STP_HIST_LOG) {
		sd->hist[stp_log_bucket(v)]++;
	} else if (d->hist == STP_HIST_LINEAR) {
		int64_t off = v - d->lo;
		int64_t b;

		if (off < 0)
			b = 0;
		else
			b = (int64_t)div64_u64((u64)off, (u64)d->step) + 1;
		if (b >= d->nbuckets - 1)
			b = d->nbuckets - 1;
		sd->hist[b]++;
	}
}

int stp_pstat_init(struct stp_pstat *ps, const struct stp_stat_desc *d);
void stp_pstat_free(struct stp_pstat *ps);
void stp_pstat_add(struct stp_pstat *ps, unsigned int cpu, int64_t v);

/*
 * `<<<` into a scalar statistic from the generated code: this CPU's slot
 * (preemption is off), d its constant descriptor.
 */
static __always_inline void stp_pstat_add_this(struct stp_pstat *ps,
					       const struct stp_stat_desc *d,
					       int64_t v)
{
	stp_stat_add(d, (struct stp_stat *)(ps->data + (size_t)
					    smp_processor_id() * ps->stride),
		     v);
}
struct stp_stat *stp_pstat_get(struct stp_pstat *ps);
void stp_pstat_clear(struct stp_pstat *ps);

int stp_stat_bucket(struct stp_context *c, const struct stp_stat_desc *d,
		    const struct stp_stat *sd, int64_t b, bool empty_error,
		    int64_t *count, const char *where);

void stp_print_hist(struct stp_context *c, const struct stp_stat_desc *d,
		    const struct stp_stat *sd);
void stp_sb_hist(struct stp_strbuf *sb, const struct stp_stat_desc *d,
		 const struct stp_stat *sd);

/*
 * Counters: globals event probes only count with (`n++;`, `n += e;`, the
 * translator's choice, module/locks.c). Each counts into its slot of
 * this CPU, stp_counters[k]; stp_counter_fold() adds every CPU's slot k
 * to the variable and clears them, where no event probe can run.
 */
#ifndef STP_NCOUNTERS
#define STP_NCOUNTERS 0
#endif
extern u64 __percpu *stp_counters;

int stp_counters_alloc(void);
void stp_counters_free(void);
void __maybe_unused stp_counter_fold(int64_t *var, int k);

#endif /* RUNTIME_STAT_H */
