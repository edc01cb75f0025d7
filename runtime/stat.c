// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics: accumulation, aggregation over CPUs and histogram printing,
 * matching SystemTap 4.8's integer arithmetic and layout byte for byte:
 *
 * - the mean and variance use Welford's update per CPU, in integers, with
 *   a 32-bit delta as SystemTap has; the CPUs are merged with the
 *   total-variance formula (sum of n_i (mean_i - mean)^2 plus the
 *   per-CPU (n_i - 1) var_i, divided by n - 1);
 * - a histogram shows the used buckets plus two empty ones on each side
 *   (a log histogram does not go below 0 unless a value is negative),
 *   runs of empty rows farther than two from any data become one "~" row,
 *   bars are scaled to 50 columns.
 */

/* The value printed for a log bucket. */
static int64_t stp_log_bucket_val(int b)
{
	if (b == STP_HIST_LOG_BUCKET0)
		return 0;
	if (b < STP_HIST_LOG_BUCKET0)
		return (int64_t)(~0ULL << (STP_HIST_LOG_BUCKET0 - 1 - b));
	return (int64_t)(1ULL << (b - STP_HIST_LOG_BUCKET0 - 1));
}

/* Aggregation, pass 1: counts, sums, extremes and buckets. */
static void stp_stat_merge1(const struct stp_stat_desc *d,
			    struct stp_stat *agg, const struct stp_stat *sd)
{
	int i;

	if (!sd->count)
		return;
	if (!agg->count) {
		agg->min = sd->min;
		agg->max = sd->max;
	}
	agg->count += sd->count;
	agg->sum += sd->sum;
	if (sd->max > agg->max)
		agg->max = sd->max;
	if (sd->min < agg->min)
		agg->min = sd->min;
	for (i = 0; i < d->nbuckets; i++)
		agg->hist[i] += sd->hist[i];
}

/* Between the passes: the overall mean; m2 collects the variance sum. */
static void stp_stat_merge_mid(const struct stp_stat_desc *d,
			       struct stp_stat *agg)
{
	agg->avg = stp_div(stp_lshift(agg->sum, d->shift), agg->count);
	agg->m2 = 0;
}

/* Pass 2: each part's contribution to the total variance. */
static void stp_stat_merge2(struct stp_stat *agg, const struct stp_stat *sd)
{
	int64_t dm;

	if (!sd->count)
		return;
	dm = sd->avg - agg->avg;
	agg->m2 += sd->count * dm * dm + (sd->count - 1) * sd->variance;
}

static void stp_stat_merge_end(const struct stp_stat_desc *d,
			       struct stp_stat *agg)
{
	agg->variance = stp_div(agg->m2, agg->count - 1) >> (2 * d->shift);
	agg->avg >>= d->shift;
}

/* An aggregated statistic's @count, @sum, @min, @max or @avg. */
int64_t stp_stat_value(const struct stp_stat *sd, int op)
{
	switch (op) {
	case STP_STAT_SUM:
		return sd->sum;
	case STP_STAT_MIN:
		return sd->min;
	case STP_STAT_MAX:
		return sd->max;
	case STP_STAT_AVG:
		return sd->avg;
	default:
		return sd->count;
	}
}

/*
 * @hist_log(s)[b], @hist_linear(s, ...)[b] and `b in @hist_log(s)`: the
 * count of bucket b of the aggregate sd, into *count. Bucket numbers are
 * SystemTap's: 0 to 127 for a log histogram (64 counts 0, 65 + n the
 * values of n + 1 bits, below 64 the negative ones), 0 to (hi - lo) /
 * step + 2 for a linear one (0 counts the values below lo, the last one
 * those from hi up). SystemTap's errors: "empty aggregate" when the
 * statistic counts nothing (only with empty_error: a foreach's own reads
 * have no such check) and "histogram index out of range". Returns 0, or
 * -1 after stp_error().
 */
int stp_stat_bucket(struct stp_context *c, const struct stp_stat_desc *d,
		    const struct stp_stat *sd, int64_t b, bool empty_error,
		    int64_t *count, const char *where)
{
	*count = 0;
	if (empty_error && sd->count == 0) {
		stp_error(c, "empty aggregate", where);
		return -1;
	}
	if (b < 0 || b >= d->nbuckets) {
		stp_error(c, "histogram index out of range", where);
		return -1;
	}
	*count = sd->hist[b];
	return 0;
}

static inline struct stp_stat *stp_pstat_slot(struct stp_pstat *ps,
					      unsigned int i)
{
	return (struct stp_stat *)(ps->data + (size_t)i * ps->stride);
}

int stp_pstat_init(struct stp_pstat *ps, const struct stp_stat_desc *d)
{
	ps->d = d;
	ps->stride = STP_STAT_SIZE(d);
	ps->data = vzalloc(((size_t)nr_cpu_ids + 1) * ps->stride);
	return ps->data ? 0 : -ENOMEM;
}

void stp_pstat_free(struct stp_pstat *ps)
{
	vfree(ps->data);
	ps->data = NULL;
}

void stp_pstat_add(struct stp_pstat *ps, unsigned int cpu, int64_t v)
{
	stp_stat_add(ps->d, stp_pstat_slot(ps, cpu), v);
}

/* Aggregate every CPU's slot; the result lives until the next call. */
struct stp_stat *
stp_pstat_get(struct stp_pstat *ps)
{
	struct stp_stat *agg = stp_pstat_slot(ps, nr_cpu_ids);
	unsigned int cpu;

	memset(agg, 0, ps->stride);
	for_each_possible_cpu(cpu)
		stp_stat_merge1(ps->d, agg, stp_pstat_slot(ps, cpu));
	stp_stat_merge_mid(ps->d, agg);
	for_each_possible_cpu(cpu)
		stp_stat_merge2(agg, stp_pstat_slot(ps, cpu));
	stp_stat_merge_end(ps->d, agg);
	return agg;
}

void stp_pstat_clear(struct stp_pstat *ps)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct stp_stat *sd = stp_pstat_slot(ps, cpu);

		sd->count = sd->sum = sd->min = sd->max = 0;
		memset(sd->hist, 0, (size_t)ps->d->nbuckets * sizeof(int64_t));
	}
}

/* Characters needed to print v in decimal. */
static int stp_digits(int64_t v)
{
	u64 m;
	int n = 0;

	if (v == 0)
		return 1;
	if (v < 0)
		n++;
	m = v < 0 ? (u64)0 - (u64)v : (u64)v;
	while (m) {
		m /= 10;
		n++;
	}
	return n;
}

static void stp_sink_printf(struct stp_sink *s, const char *fmt, ...)
{
	char buf[48];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	stp_sink_put(s, buf, n);
}

static void stp_hist_out(struct stp_sink *s, const struct stp_stat_desc *d,
			 const struct stp_stat *sd)
{
	int nb = d->nbuckets, lo = -1, hi = 0, under = 0, over = 0;
	int i, k, width, cnt_width, scale;
	int64_t vmax = 0;
	bool eliding = false;

	if (d->hist == STP_HIST_NONE || nb <= 0)
		return;
	for (i = 0; i < nb; i++) {
		if (sd->hist[i] > 0) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
		vmax = max(vmax, sd->hist[i]);
	}
	/* two empty rows of margin each side */
	for (i = 0; i < 2; i++) {
		if (d->hist == STP_HIST_LOG) {
			if (lo != STP_HIST_LOG_BUCKET0 && lo > 0)
				lo--;
		} else if (lo > 0) {
			lo--;
		}
		if (hi < nb - 1)
			hi++;
	}
	if (d->hist == STP_HIST_LINEAR) {
		/* the out-of-range rows only when they count something */
		if (lo == 0 && sd->hist[0] == 0)
			lo++;
		if (hi == nb - 1 && sd->hist[hi] == 0)
			hi--;
		under = lo == 0;
		over = hi == nb - 1;
	}
	scale = vmax <= STP_HIST_WIDTH ? 1 :
		(int)div64_u64((u64)vmax + STP_HIST_WIDTH - 1, STP_HIST_WIDTH);
	cnt_width = stp_digits(vmax);
	if (d->hist == STP_HIST_LINEAR)
		/* SystemTap sizes the column from lo + step * (last index) */
		width = max(stp_digits(d->lo) + under,
			    stp_digits(d->lo + d->step * hi) + over);
	else
		width = max(stp_digits(stp_log_bucket_val(hi)),
			    stp_digits(stp_log_bucket_val(lo)));
	width = max(width, 5);

	stp_sink_fill(s, ' ', width - 5);
	stp_sink_put(s, "value |", 7);
	stp_sink_fill(s, '-', STP_HIST_WIDTH);
	stp_sink_put(s, " count\n", 7);
	for (i = lo; i <= hi; i++) {
		int from = max(lo, i - STP_HIST_ELISION);
		int to = min(hi, i + STP_HIST_ELISION);
		const char *prefix = "";
		bool empty = true;
		int64_t val, bar;

		for (k = from; k <= to; k++)
			if (sd->hist[k] != 0)
				empty = false;
		if (empty) {
			eliding = true;
			continue;
		}
		if (eliding) {
			stp_sink_fill(s, ' ', width);
			stp_sink_put(s, " ~\n", 3);
			eliding = false;
		}
		if (d->hist == STP_HIST_LINEAR) {
			if (i == 0) {
				val = d->lo;
				prefix = "<";
			} else if (i == nb - 1) {
				val = d->lo + (int64_t)(i - 2) * d->step;
				prefix = ">";
			} else {
				val = d->lo + (int64_t)(i - 1) * d->step;
			}
		} else {
			val = stp_log_bucket_val(i);
		}
		stp_sink_fill(s, ' ', width - stp_digits(val) -
			      (int)strlen(prefix));
		stp_sink_printf(s, "%s%lld |", prefix, (long long)val);
		bar = div64_s64(sd->hist[i], scale);
		stp_sink_fill(s, '@', bar);
		stp_sink_fill(s, ' ', STP_HIST_WIDTH - bar + 1 + cnt_width -
			      stp_digits(sd->hist[i]));
		stp_sink_printf(s, "%lld\n", (long long)sd->hist[i]);
	}
	stp_sink_put(s, "\n", 1);
}

void stp_print_hist(struct stp_context *c, const struct stp_stat_desc *d,
		    const struct stp_stat *sd)
{
	struct stp_sink sk = { .c = c };

	stp_hist_out(&sk, d, sd);
}

void stp_sb_hist(struct stp_strbuf *sb, const struct stp_stat_desc *d,
		 const struct stp_stat *sd)
{
	struct stp_sink sk = { .sb = sb };

	stp_hist_out(&sk, d, sd);
}

u64 __percpu *stp_counters;

int stp_counters_alloc(void)
{
	if (!STP_NCOUNTERS)
		return 0;
	stp_counters = __alloc_percpu(sizeof(u64) * STP_NCOUNTERS,
				      sizeof(u64));
	return stp_counters ? 0 : -ENOMEM;
}

void stp_counters_free(void)
{
	free_percpu(stp_counters);
	stp_counters = NULL;
}

void stp_counter_fold(int64_t *var, int k)
{
	u64 sum = (u64)*var;
	int cpu;

	for_each_possible_cpu(cpu) {
		u64 *slot = per_cpu_ptr(&stp_counters[k], cpu);

		sum += *slot;
		*slot = 0;
	}
	*var = (int64_t)sum;
}
