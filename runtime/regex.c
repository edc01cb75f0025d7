// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `=~` and the regex tapset (matched, matched_str, ngroups) over a
 * context's last match.  The matching loops are in regex.h; the tables
 * are the translator's.  A match records a copy of the string, so
 * matched() reads the text as it was even if the variable changed since.
 */

/*
 * s =~ re.  With scratch (the program calls matched() or ngroups()), the
 * outcome and the submatch offsets become the context's last match.
 */
int64_t stp_re_match(struct stp_context *c, const struct stp_regex *re,
		     const char *s, int *scratch)
{
	struct stp_re_match *m = &c->last_match;
	int len, i;

	if (!stp_re_search(re, s)) {
		if (scratch)
			m->result = 0;
		return 0;
	}
	if (!scratch)
		return 1;
	len = strnlen(s, MAXSTRINGLEN - 1);
	memmove(m->str, s, len);
	m->str[len] = '\0';
	m->ngroups = re->ngroups;
	if (!stp_re_exec(re, m->str, len, scratch, m->pos))
		for (i = 0; i < 2 * re->ngroups; i++)
			m->pos[i] = -1;	/* cannot happen: the DFA agreed */
	m->result = 1;
	return 1;
}

/* matched(n): group n of the last match, "" when it took no part. */
void stp_re_matched(struct stp_context *c, char *out, int64_t n,
		    const char *where)
{
	const struct stp_re_match *m = &c->last_match;
	char msg[96];
	int start, end;

	out[0] = '\0';
	if (!m->result) {
		snprintf(msg, sizeof(msg), "Attempted to get subexpression "
			 "%lld from failed match", (long long)n);
		stp_error(c, msg, where);
		return;
	}
	if (n < 0 || n >= m->ngroups) {
		snprintf(msg, sizeof(msg), "Attempted to get nonexistent "
			 "subexpression %lld", (long long)n);
		stp_error(c, msg, where);
		return;
	}
	start = m->pos[2 * n];
	end = m->pos[2 * n + 1];
	if (start < 0 || end < start)
		return;
	memcpy(out, m->str + start, end - start);
	out[end - start] = '\0';
}

/* ngroups(): the groups of the last match's regex, group 0 included. */
int64_t stp_re_ngroups(struct stp_context *c, const char *where)
{
	if (!c->last_match.result) {
		stp_error(c, "Attempted to get subexpression count from failed "
			  "match", where);
		return 0;
	}
	return c->last_match.ngroups;
}
