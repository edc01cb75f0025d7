// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * JSON text: strings escaped for JSON (the json tapset, json_string()),
 * and a histogram's buckets as a JSON array (@json_print of @hist_log
 * or @hist_linear, and --format=json).
 *
 * A string is escaped as SystemTap's json tapset should have: a
 * backslash before '"' and '\', the control characters as \b \f \n \r \t
 * or \u00XX, each byte outside a valid UTF-8 sequence as \u00XX (read as
 * Latin-1), valid UTF-8 as it is. Text built into a MAXSTRINGLEN string
 * is cut before an escape or a character that would not leave room for
 * what must follow it, so the result is always valid JSON.
 *
 * A histogram is [{"lo":L,"hi":H,"count":N},...]: the buckets that count
 * something, in increasing order, L and H inclusive; the underflow
 * bucket of a linear histogram has no "lo", its overflow bucket no "hi"
 * (as bpftrace's JSON output leaves out an unbounded side).
 */

/* Append text as it is, leaving reserve bytes free. */
void stp_json_raw(struct stp_json_out *o, const char *text, size_t reserve)
{
	size_t len = strlen(text);
	size_t room = MAXSTRINGLEN - 1 - min(reserve, MAXSTRINGLEN - 1);

	if (o->n >= room)
		return;
	len = min(len, room - o->n);
	memcpy(o->s + o->n, text, len);
	o->n += len;
	o->s[o->n] = '\0';
}

/* Append text escaped, leaving reserve bytes free. */
void stp_json_escaped(struct stp_json_out *o, const char *text, size_t reserve)
{
	static const char hex[] = "0123456789abcdef";
	static const char ctl[] = "\b\f\n\r\t", ctl_esc[] = "bfnrt";
	const unsigned char *p = (const unsigned char *)text;
	size_t room = MAXSTRINGLEN - 1 - min(reserve, MAXSTRINGLEN - 1);

	while (*p) {
		unsigned char ch = *p, lo = 0x80, hi = 0xbf;
		const unsigned char *src = p;
		char esc[6];
		const char *c;
		size_t len = 1, i, more = 0;

		if (ch >= 0xc2 && ch <= 0xdf) {
			more = 1;
		} else if (ch >= 0xe0 && ch <= 0xef) {
			more = 2;	/* no overlong forms, no surrogates */
			lo = ch == 0xe0 ? 0xa0 : 0x80;
			hi = ch == 0xed ? 0x9f : 0xbf;
		} else if (ch >= 0xf0 && ch <= 0xf4) {
			more = 3;	/* nothing above U+10FFFF */
			lo = ch == 0xf0 ? 0x90 : 0x80;
			hi = ch == 0xf4 ? 0x8f : 0xbf;
		}
		for (i = 1; i <= more; i++, lo = 0x80, hi = 0xbf)
			if (p[i] < lo || p[i] > hi)
				break;
		if (more && i > more) {
			len = more + 1;		/* valid UTF-8, as it is */
		} else if (ch == '"' || ch == '\\') {
			esc[0] = '\\';
			esc[1] = ch;
			src = (const unsigned char *)esc;
			len = 2;
		} else if (ch && (c = strchr(ctl, ch)) != NULL) {
			esc[0] = '\\';
			esc[1] = ctl_esc[c - ctl];
			src = (const unsigned char *)esc;
			len = 2;
		} else if (ch < 0x20 || ch >= 0x80) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[ch >> 4];
			esc[5] = hex[ch & 15];
			src = (const unsigned char *)esc;
			len = 6;
		}
		if (o->n + len > room)
			break;
		memcpy(o->s + o->n, src, len);
		o->n += len;
		p += more && i > more ? len : 1;
	}
	o->s[o->n] = '\0';
}

/* "TEXT": text as a JSON string, quotes included, in a script string. */
void stp_json_string(char *out, const char *text)
{
	struct stp_json_out o = { out, 0 };

	out[0] = '\0';
	stp_json_raw(&o, "\"", 1);
	stp_json_escaped(&o, text, 1);
	stp_json_raw(&o, "\"", 0);
}

/* The inclusive range of bucket i; false for an unbounded side. */
static void stp_json_bucket(const struct stp_stat_desc *d, int i,
			    int64_t *lo, bool *has_lo, int64_t *hi,
			    bool *has_hi)
{
	int nb = d->nbuckets, k;

	*has_lo = *has_hi = true;
	if (d->hist == STP_HIST_LINEAR) {
		*lo = d->lo + (int64_t)(i - 1) * d->step;
		*hi = *lo + d->step - 1;
		if (i == 0) {
			*has_lo = false;
			*hi = d->lo - 1;
		} else if (i == nb - 1) {
			*has_hi = false;
		}
		return;
	}
	if (i == STP_HIST_LOG_BUCKET0) {
		*lo = *hi = 0;
	} else if (i > STP_HIST_LOG_BUCKET0) {
		k = i - STP_HIST_LOG_BUCKET0;		/* fls64 of the value */
		*lo = (int64_t)(1ULL << (k - 1));
		*hi = k == 63 ? S64_MAX : (int64_t)((1ULL << k) - 1);
	} else if (i == 0) {
		*lo = *hi = S64_MIN;			/* only -2^63 */
	} else {
		k = STP_HIST_LOG_BUCKET0 - i;		/* fls64 of -value */
		*lo = -(int64_t)((1ULL << k) - 1);
		*hi = -(int64_t)(1ULL << (k - 1));
	}
}

static void stp_json_hist_out(struct stp_sink *s,
			      const struct stp_stat_desc *d,
			      const struct stp_stat *sd)
{
	char buf[96];
	bool first = true;
	int i, n;

	stp_sink_put(s, "[", 1);
	for (i = 0; d->hist != STP_HIST_NONE && i < d->nbuckets; i++) {
		int64_t lo, hi;
		bool has_lo, has_hi;

		if (sd->hist[i] == 0)
			continue;
		stp_json_bucket(d, i, &lo, &has_lo, &hi, &has_hi);
		stp_sink_put(s, first ? "{" : ",{", first ? 1 : 2);
		first = false;
		n = 0;
		if (has_lo)
			n += scnprintf(buf + n, sizeof(buf) - n, "\"lo\":%lld,",
				       (long long)lo);
		if (has_hi)
			n += scnprintf(buf + n, sizeof(buf) - n, "\"hi\":%lld,",
				       (long long)hi);
		n += scnprintf(buf + n, sizeof(buf) - n, "\"count\":%lld}",
			       (long long)sd->hist[i]);
		stp_sink_put(s, buf, n);
	}
	stp_sink_put(s, "]", 1);
}

void stp_print_json_hist(struct stp_context *c, const struct stp_stat_desc *d,
			 const struct stp_stat *sd)
{
	struct stp_sink sk = { .c = c };

	stp_json_hist_out(&sk, d, sd);
}

void stp_sb_json_hist(struct stp_strbuf *sb, const struct stp_stat_desc *d,
		      const struct stp_stat *sd)
{
	struct stp_sink sk = { .sb = sb };

	stp_json_hist_out(&sk, d, sd);
}
