/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regular expressions, as the translator compiles them (semantic/regex.c):
 * every `=~` site owns static const tables, and this file holds the two
 * small loops that run them.  Nothing here parses a pattern.
 *
 *   stp_re_search: a DFA (byte -> class -> next state) that answers "does
 *     the string match anywhere?".  State 0 is the start at offset 0; a
 *     state flagged ACCEPT ends the search, DEAD ends it without a match,
 *     ACCEPT_END matches only when the string ends there.  One table
 *     lookup per byte.
 *   stp_re_exec: submatch positions for matched(), by a breadth-first
 *     simulation of the compiled instruction list with a capture vector
 *     per thread (at most one thread per instruction, so the work per byte
 *     is bounded by ninsts * ngroups).  Leftmost-longest overall match;
 *     among the threads ending there, the highest priority one (greedy,
 *     left alternative first) gives the groups.  The caller passes
 *     STP_RE_SCRATCH(ninsts, ngroups) ints of scratch (a frame member),
 *     so nothing is allocated and nothing large lives on the stack.
 *
 * This header includes nothing and uses only u8/u16/u32 and memcpy, so the
 * unit tests (tests/unit/test_regex.c) run the very same loops in user
 * space against the translator's tables.
 */
#ifndef RUNTIME_REGEX_H
#define RUNTIME_REGEX_H

#define STP_RE_ACCEPT		1	/* a match ends here */
#define STP_RE_ACCEPT_END	2	/* a match ends here at end of string */
#define STP_RE_DEAD		4	/* nothing can match any more */

/* Instructions of the submatch program; x is the next one. */
enum stp_re_op {
	STP_RE_CHAR,		/* consume a byte in sets[arg] */
	STP_RE_SPLIT,		/* try x, then y */
	STP_RE_JMP,
	STP_RE_SAVE,		/* capture slot arg = current offset */
	STP_RE_BOL,		/* only at offset 0 */
	STP_RE_EOL,		/* only at the end of the string */
	STP_RE_MATCH,
};

/* Groups including group 0 (the whole match). */
#define STP_RE_MAXGROUPS 32

struct stp_re_inst {
	u8 op;
	u16 arg;
	u16 x, y;
};

struct stp_regex {
	const u8 *cls;			/* 256 entries: byte -> class */
	const u16 *trans;		/* nstates * nclasses */
	const u8 *flags;		/* per state, STP_RE_* */
	u16 nclasses;
	const struct stp_re_inst *prog;	/* NULL when matched() is unused */
	const u32 *sets;		/* 8 words (256 bits) per byte set */
	u16 ninsts;
	u16 ngroups;			/* including group 0 */
};

/* The last match of a context: a copy of the string and the offsets. */
struct stp_re_match {
	int result;			/* 0: failed (or no match yet) */
	int ngroups;
	int pos[2 * STP_RE_MAXGROUPS];
	char str[MAXSTRINGLEN];
};

/* The scratch stp_re_exec needs, in ints (semantic/regex.c agrees). */
#define STP_RE_SCRATCH(ninsts, ngroups)					\
	(2 * (ninsts) * (1 + 2 * (ngroups)) + 4 * (ninsts) + 3 +	\
	 4 * (ngroups))

/* Does s (NUL-terminated) contain a match? */
static inline int stp_re_search(const struct stp_regex *re, const char *s)
{
	unsigned int st = 0;

	for (;; s++) {
		u8 f = re->flags[st];

		if (f & STP_RE_ACCEPT)
			return 1;
		if (f & STP_RE_DEAD)
			return 0;
		if (!*s)
			return !!(f & STP_RE_ACCEPT_END);
		st = re->trans[st * re->nclasses + re->cls[(u8)*s]];
	}
}

static inline int stp_re_in_set(const struct stp_regex *re, int set, u8 b)
{
	return (re->sets[set * 8 + (b >> 5)] >> (b & 31)) & 1;
}

/*
 * Adds the thread at pc (with captures caps) to list at offset p, following
 * jumps, splits (in priority order), captures and assertions; an
 * instruction already reached at p is skipped (visited[] holds the offset
 * it was last reached at).  Returns the new thread count.  The explicit
 * stack holds pending branches and capture values to restore; every
 * instruction pushes at most one entry, so ninsts + 1 entries suffice.
 */
static inline int stp_re_add(const struct stp_regex *re, int *list, int count,
			     int *visited, int *stack, int *caps, int pc,
			     int p, int len)
{
	int ncap = 2 * re->ngroups, stride = 1 + ncap, sp = 0;

	stack[0] = pc;
	sp = 1;
	while (sp) {
		int *e = stack + 3 * --sp;

		if (e[0] < 0) {
			caps[e[1]] = e[2];
			continue;
		}
		pc = e[0];
		for (;;) {
			const struct stp_re_inst *in = &re->prog[pc];

			if (visited[pc] == p)
				break;
			visited[pc] = p;
			if (in->op == STP_RE_JMP) {
				pc = in->x;
				continue;
			}
			if (in->op == STP_RE_SPLIT) {
				stack[3 * sp] = in->y;
				sp++;
				pc = in->x;
				continue;
			}
			if (in->op == STP_RE_SAVE) {
				e = stack + 3 * sp++;
				e[0] = -1;
				e[1] = in->arg;
				e[2] = caps[in->arg];
				caps[in->arg] = p;
				pc = in->x;
				continue;
			}
			if ((in->op == STP_RE_BOL && p == 0) ||
			    (in->op == STP_RE_EOL && p == len)) {
				pc = in->x;
				continue;
			}
			if (in->op == STP_RE_CHAR || in->op == STP_RE_MATCH) {
				int *t = list + count * stride;

				t[0] = pc;
				memcpy(t + 1, caps, ncap * sizeof(int));
				count++;
			}
			break;
		}
	}
	return count;
}

/*
 * Leftmost-longest match of re->prog in s[0..len): returns 1 and fills
 * out[2 * ngroups] (start/end offsets, -1 for a group that took no part),
 * or returns 0.  scratch holds STP_RE_SCRATCH(ninsts, ngroups) ints.
 */
static inline int stp_re_exec(const struct stp_regex *re, const char *s,
			      int len, int *scratch, int *out)
{
	int n = re->ninsts, ncap = 2 * re->ngroups, stride = 1 + ncap;
	int *clist = scratch, *nlist = clist + n * stride;
	int *visited = nlist + n * stride, *stack = visited + n;
	int *caps = stack + 3 * (n + 1), *best = caps + ncap;
	int ccount = 0, found = 0, p, i;

	for (i = 0; i < n; i++)
		visited[i] = -1;
	for (p = 0;; p++) {
		int ncount = 0, *tmp;

		if (!found) {
			for (i = 0; i < ncap; i++)
				caps[i] = -1;
			ccount = stp_re_add(re, clist, ccount, visited, stack,
					    caps, 0, p, len);
		}
		if (!ccount && (found || p >= len))
			break;
		for (i = 0; i < ccount; i++) {
			int *t = clist + i * stride;
			const struct stp_re_inst *in = &re->prog[t[0]];

			/* a later start can no longer be the leftmost */
			if (found && t[1] > best[0])
				continue;
			if (in->op == STP_RE_MATCH) {
				if (!found || t[1] < best[0] || t[2] > best[1]) {
					memcpy(best, t + 1, ncap * sizeof(int));
					found = 1;
				}
				continue;
			}
			if (p < len && stp_re_in_set(re, in->arg, (u8)s[p])) {
				memcpy(caps, t + 1, ncap * sizeof(int));
				ncount = stp_re_add(re, nlist, ncount, visited,
						    stack, caps, in->x, p + 1,
						    len);
			}
		}
		tmp = clist;
		clist = nlist;
		nlist = tmp;
		ccount = ncount;
		if (p >= len)
			break;
	}
	if (found)
		memcpy(out, best, ncap * sizeof(int));
	return found;
}

#endif /* RUNTIME_REGEX_H */
