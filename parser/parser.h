/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass 1: the parser layer's public API. */
#ifndef PARSER_PARSER_H
#define PARSER_PARSER_H

#include "parser/ast.h"
#include "parser/diag.h"
#include "parser/session.h"

/*
 * Parse a registered source file. Errors are reported through diag and
 * counted in s->nerrors; the returned file holds what parsed (never NULL).
 */
struct ast_file *parse_source(struct session *s, int file);

/*
 * Read the @define's of a macro file (*.stpm) into the session's library
 * macros, which every script parsed afterwards can use.
 */
void parse_macro_file(struct session *s, int file);

/* Convenience: register text under name and parse it. */
struct ast_file *parse_string(struct session *s, const char *name,
			      const char *text, bool privileged);

#endif /* PARSER_PARSER_H */
