/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics: "FILE:LINE:COL: error: MESSAGE", then the source line and a
 * caret under the column. Every pass reports through here so the format
 * and the error cap are the same everywhere.
 */
#ifndef PARSER_DIAG_H
#define PARSER_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#include "parser/session.h"

void diag_error(struct session *s, struct srcloc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warning(struct session *s, struct srcloc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_note(struct session *s, struct srcloc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An error with no source position ("stap: error: ..."). */
void diag_plain_error(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Describe the token at loc the way SystemTap's runtime errors do:
 * "identifier 'n' at FILE:LINE:COL", "operator '/' at ...". The string
 * lives in the session arena.
 */
const char *diag_describe_token(struct session *s, struct srcloc loc);
/* The same without the location: "identifier 'n'". */
const char *diag_token_text(struct session *s, struct srcloc loc);

/*
 * Render one diagnostic into out: the heading line, the source line and
 * the caret line. Exposed for the unit tests.
 */
void diag_render(FILE *out, const struct session *s, struct srcloc loc,
		 const char *severity, const char *fmt, va_list ap);

#endif /* PARSER_DIAG_H */
