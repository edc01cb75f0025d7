/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fuzz harnesses share: a quiet session over one input, with
 * three script arguments for $1/@1 pasting.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"

/* Start s for data; returns the input as a string (the caller frees it). */
static inline char *fuzz_session(struct session *s, const uint8_t *data,
				 size_t size)
{
	static char *args[] = { "1", "-2", "probe" };
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	session_init(s);
	s->max_errors = 0;		/* count, but print nothing */
	s->suppress_warnings = true;
	s->script_args = args;
	s->nscript_args = 3;
	return text;
}

#endif /* TESTS_FUZZ_FUZZ_H */
