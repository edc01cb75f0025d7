/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The regular expression compiler of `=~` / `!~`: a POSIX extended regular
 * expression (no backreferences) becomes, at translation time,
 *   - a search DFA over byte classes (subset construction over the
 *     instruction list below), for the yes/no answer;
 *   - an instruction list (Thompson NFA with capture instructions) for the
 *     submatch positions matched() reads.
 * regex_emit writes both as static const C tables in the shape of
 * runtime/regex.h, which holds the matching loops.  Everything is malloc'd
 * and freed by regex_free; nothing here knows the session.
 */
#ifndef SEMANTIC_REGEX_H
#define SEMANTIC_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* Same numbering as enum stp_re_op in runtime/regex.h. */
enum regex_op {
	RX_CHAR, RX_SPLIT, RX_JMP, RX_SAVE, RX_BOL, RX_EOL, RX_MATCH,
};

#define RX_ACCEPT	1
#define RX_ACCEPT_END	2
#define RX_DEAD		4

#define RX_MAXGROUPS	32	/* including group 0 */
#define RX_MAXINSTS	8000
#define RX_MAXSTATES	2000

struct regex_inst {
	uint8_t op;
	uint16_t arg, x, y;
};

struct regex {
	struct regex_inst *insts;
	int ninsts;
	uint32_t (*sets)[8];		/* byte sets of RX_CHAR */
	int nsets;
	int ngroups;			/* including group 0 */
	uint8_t cls[256];		/* byte -> class */
	int nclasses;
	uint16_t *trans;		/* nstates * nclasses */
	uint8_t *flags;			/* RX_ACCEPT ... per state */
	int nstates;
};

/*
 * Compiles pat[0..len).  Returns 0, or -1 with *err (a static message) and
 * *off (the byte offset in the pattern where the problem was seen).
 */
int regex_compile(struct regex *re, const char *pat, size_t len,
		  const char **err, size_t *off);
void regex_free(struct regex *re);

/* Ints of scratch the runtime's stp_re_exec needs for re. */
long regex_scratch_ints(const struct regex *re);

/*
 * Writes the static const tables of re named NAME_* and `static const
 * struct stp_regex NAME`, each line prefixed by indent.  The instruction
 * list is written only when with_prog (matched() is used).
 */
void regex_emit(const struct regex *re, struct strbuf *sb, const char *name,
		const char *indent, bool with_prog);

#endif /* SEMANTIC_REGEX_H */
