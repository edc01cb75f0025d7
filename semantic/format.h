/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * printf format strings, parsed at compile time so the runtime never
 * parses a format: pass 2 checks argument types against them and pass 3
 * emits one runtime call per piece.
 */
#ifndef SEMANTIC_FORMAT_H
#define SEMANTIC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/arena.h"

enum fmt_flag {
	FMT_LEFT = 1, FMT_PLUS = 2, FMT_SPACE = 4, FMT_ALT = 8, FMT_ZERO = 16,
};

struct fmt_piece {
	bool is_conv;
	const char *text;		/* literal bytes (is_conv false) */
	size_t len;
	char conv;			/* d i u o x X s c p b m M */
	unsigned flags;			/* enum fmt_flag */
	int width, prec;		/* -1 when absent */
	bool width_star, prec_star;	/* taken from the arguments */
};

/*
 * Parse fmt. Returns the number of pieces, or -1 with *err set to a
 * message and *err_offset to the byte where the bad conversion starts.
 */
int format_parse(struct arena *a, const char *fmt, size_t len,
		 struct fmt_piece **pieces, const char **err,
		 size_t *err_offset);

/* The number of arguments a piece consumes (stars plus the value). */
int format_piece_args(const struct fmt_piece *p);

#endif /* SEMANTIC_FORMAT_H */
