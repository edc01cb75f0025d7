// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the loader computes for the generated user half (--runtime=bpf),
 * as the module backend's runtime computes it in the kernel (runtime/ is
 * kernel-only, so this is the user-space side of the same rules):
 * text_str's escaping, the merge of a statistic's per-CPU values (the
 * kernel half adds into its CPU's slot of a per-CPU map) and the
 * histogram's layout, byte for byte SystemTap 4.8's.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/bpf.h"

/* One character: a well-formed UTF-8 sequence is one code point, anything
 * else one byte. Returns the bytes used. */
static int utf8_get(const char *in, long long len, int *c)
{
	const unsigned char *p = (const unsigned char *)in;
	int n, u;

	if ((p[0] & 0xe0) == 0xc0 && len >= 2) {
		n = 2;
		u = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0 && len >= 3) {
		n = 3;
		u = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0 && len >= 4) {
		n = 4;
		u = p[0] & 0x07;
	} else {
		goto byte;
	}
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto byte;
		u = (u << 6) | (p[i] & 0x3f);
	}
	if ((u >= 0xd800 && u <= 0xdfff) || u > 0x10ffff || u < 0x80 ||
	    (n == 3 && u < 0x800) || (n == 4 && u < 0x10000))
		goto byte;
	*c = u;
	return n;
byte:
	*c = p[0];
	return 1;
}

/* text_str, text_strn and string_quoted: C escapes, \uXXXX for UTF-8,
 * \ooo for other bytes; quoted adds quotes and "..." when cut. */
void bpf_text(char *out, const char *input, long long inlen,
	      long long outlen, int quoted)
{
	static const char hex[] = "0123456789ABCDEF";
	static const char esc_chars[] = "\a\b\f\n\r\t\v\"\\";
	static const char code[] = "abfnrtv\"\\";
	char buf[BPF_STRLEN];
	const char *in = buf;
	char *o = out, *esc = NULL;
	int c = 0, esc_len = 0;

	strncpy(buf, input, BPF_STRLEN - 1);	/* out may alias input */
	buf[BPF_STRLEN - 1] = 0;
	if (inlen <= 0 || inlen > BPF_STRLEN - 1)
		inlen = BPF_STRLEN - 1;
	if (outlen <= 0 || outlen > BPF_STRLEN - 1)
		outlen = BPF_STRLEN - 1;
	if (quoted) {
		outlen = (outlen > 5 ? outlen : 5) - 2;
		*o++ = '"';
	}
	while (inlen > 0) {
		int n = utf8_get(in, inlen, &c), num;
		if (c == 0 || outlen <= 0)
			break;
		in += n;
		inlen -= n;
		const char *e = n == 1 && c ? strchr(esc_chars, c) : NULL;
		if (n > 1)
			num = c <= 0xffff ? 6 : 10;
		else if (c < 0x80 && isprint(c) && c != '"' && c != '\\')
			num = 1;
		else
			num = e ? 2 : 4;
		if (num > 1 && !esc && outlen - 3 < num) {
			esc = o;
			esc_len = num;
		}
		if (outlen < num)
			break;
		if (n > 1) {
			*o++ = '\\';
			*o++ = c <= 0xffff ? 'u' : 'U';
			for (int i = num - 3; i >= 0; i--)
				*o++ = hex[(c >> (i * 4)) & 0xf];
		} else if (num == 1) {
			*o++ = (char)c;
		} else if (e) {
			*o++ = '\\';
			*o++ = code[e - esc_chars];
		} else {
			*o++ = '\\';
			*o++ = (char)('0' + ((c >> 6) & 3));
			*o++ = (char)('0' + ((c >> 3) & 7));
			*o++ = (char)('0' + (c & 7));
		}
		outlen -= num;
	}
	if (quoted) {
		if (c && inlen > 0) {
			char *cut = o - 3 + outlen;
			if (esc && esc < cut && cut < esc + esc_len)
				cut = esc;
			o = cut;
			memcpy(o, "\"...", 4);
			o += 4;
		} else {
			*o++ = '"';
		}
	}
	*o = 0;
}

int bpf_ncpus(void)
{
	static int n;

	if (!n) {
		n = libbpf_num_possible_cpus();
		if (n < 1)
			n = 1;
	}
	return n;
}

static size_t stat_size(const struct stp_stat_desc *d)
{
	return sizeof(struct stp_stat) + (size_t)d->nbuckets * 8;
}

static long long sdiv(long long a, long long b)
{
	return b ? a / b : 0;
}

/* The per-CPU values (bpf_ncpus() of them, each stat_size rounded to 8)
 * into one aggregate: counts, sums, extremes and buckets, then the mean
 * and the total variance (sum of n_i (mean_i - mean)^2 plus each part's
 * (n_i - 1) var_i, over n - 1), in SystemTap's integers. */
void bpf_stat_merge(const struct stp_stat_desc *d, const void *percpu,
		    struct stp_stat *agg)
{
	size_t stride = (stat_size(d) + 7) & ~(size_t)7;
	int ncpus = bpf_ncpus();

	memset(agg, 0, stat_size(d));
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct stp_stat *sd = (const void *)((const char *)percpu +
							   cpu * stride);
		if (!sd->count)
			continue;
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
		for (int i = 0; i < d->nbuckets; i++)
			agg->hist[i] += sd->hist[i];
	}
	agg->avg = sdiv((long long)((unsigned long long)agg->sum << d->shift),
			agg->count);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct stp_stat *sd = (const void *)((const char *)percpu +
							   cpu * stride);
		if (!sd->count)
			continue;
		long long dm = sd->avg - agg->avg;
		agg->m2 += sd->count * dm * dm + (sd->count - 1) * sd->variance;
	}
	agg->variance = sdiv(agg->m2, agg->count - 1) >> (2 * d->shift);
	agg->avg >>= d->shift;
}

#define HIST_WIDTH 50
#define HIST_ELISION 2
#define LOG_BUCKET0 64

static int digits(long long v)
{
	unsigned long long m;
	int n = 0;

	if (v == 0)
		return 1;
	if (v < 0)
		n++;
	m = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	while (m) {
		m /= 10;
		n++;
	}
	return n;
}

static long long log_bucket_val(int b)
{
	if (b == LOG_BUCKET0)
		return 0;
	if (b < LOG_BUCKET0)
		return (long long)(~0ULL << (LOG_BUCKET0 - 1 - b));
	return (long long)(1ULL << (b - LOG_BUCKET0 - 1));
}

static void put(struct bpf_sink *s, const char *p, size_t n)
{
	if (s->f) {
		fwrite(p, 1, n, s->f);
		return;
	}
	size_t room = BPF_STRLEN - 1 - s->len;
	if (n > room)
		n = room;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = 0;
}

static void fill(struct bpf_sink *s, char ch, long n)
{
	while (n-- > 0)
		put(s, &ch, 1);
}

static void putf(struct bpf_sink *s, const char *prefix, long long v,
		 const char *suffix)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%s%lld%s", prefix, v, suffix);
	put(s, b, (size_t)n);
}

/* @hist_log / @hist_linear as print() shows them: the used buckets with
 * two empty rows of margin, far runs of empty rows as one "~" row, bars
 * scaled to 50 columns. */
void bpf_hist(struct bpf_sink *s, const struct stp_stat_desc *d,
	      const struct stp_stat *sd)
{
	int nb = d->nbuckets, lo = -1, hi = 0, under = 0, over = 0;
	long long vmax = 0;
	bool eliding = false;

	if (!d->hist || nb <= 0)
		return;
	for (int i = 0; i < nb; i++) {
		if (sd->hist[i] > 0) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
		if (sd->hist[i] > vmax)
			vmax = sd->hist[i];
	}
	for (int i = 0; i < 2; i++) {
		if (d->hist == 1) {
			if (lo != LOG_BUCKET0 && lo > 0)
				lo--;
		} else if (lo > 0) {
			lo--;
		}
		if (hi < nb - 1)
			hi++;
	}
	if (d->hist == 2) {
		if (lo == 0 && sd->hist[0] == 0)
			lo++;
		if (hi == nb - 1 && sd->hist[hi] == 0)
			hi--;
		under = lo == 0;
		over = hi == nb - 1;
	}
	int scale = vmax <= HIST_WIDTH ? 1 :
		    (int)((vmax + HIST_WIDTH - 1) / HIST_WIDTH);
	int cnt_width = digits(vmax), width;
	if (d->hist == 2) {
		int a = digits(d->lo) + under;
		int b = digits(d->lo + d->step * hi) + over;
		width = a > b ? a : b;
	} else {
		int a = digits(log_bucket_val(hi)), b = digits(log_bucket_val(lo));
		width = a > b ? a : b;
	}
	if (width < 5)
		width = 5;
	fill(s, ' ', width - 5);
	put(s, "value |", 7);
	fill(s, '-', HIST_WIDTH);
	put(s, " count\n", 7);
	for (int i = lo; i <= hi; i++) {
		int from = lo > i - HIST_ELISION ? lo : i - HIST_ELISION;
		int to = hi < i + HIST_ELISION ? hi : i + HIST_ELISION;
		const char *prefix = "";
		bool empty = true;
		long long val;

		for (int k = from; k <= to; k++)
			if (sd->hist[k] != 0)
				empty = false;
		if (empty) {
			eliding = true;
			continue;
		}
		if (eliding) {
			fill(s, ' ', width);
			put(s, " ~\n", 3);
			eliding = false;
		}
		if (d->hist == 2) {
			if (i == 0) {
				val = d->lo;
				prefix = "<";
			} else if (i == nb - 1) {
				val = d->lo + (long long)(i - 2) * d->step;
				prefix = ">";
			} else {
				val = d->lo + (long long)(i - 1) * d->step;
			}
		} else {
			val = log_bucket_val(i);
		}
		fill(s, ' ', width - digits(val) - (int)strlen(prefix));
		putf(s, prefix, val, " |");
		long long bar = sd->hist[i] / scale;
		fill(s, '@', (long)bar);
		fill(s, ' ', HIST_WIDTH - bar + 1 + cnt_width -
		     digits(sd->hist[i]));
		putf(s, "", sd->hist[i], "\n");
	}
	put(s, "\n", 1);
}
