/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between lexer.l, grammar.y and parse.c only: the per-parse state
 * the reentrant scanner carries as its "extra" data.
 */
#ifndef PARSER_PARSE_INTERNAL_H
#define PARSER_PARSE_INTERNAL_H

#include "parser/parser.h"

struct parse_state {
	struct session *s;
	int file;			/* srcfile id */
	int line, col;			/* position of the next byte */
	struct node *decls;		/* top-level declarations parsed */
	bool privileged;		/* embedded C allowed */
	bool macro_file;		/* a .stpm file: only @define */
	char *embed_text;		/* %{ ... %} being scanned */
	size_t embed_len;
	int embed_line, embed_col;	/* where its %{ was */
	struct pp_state *pp;		/* preprocessor state (preproc.c) */
};

void pp_free(struct parse_state *st);

int lex_parse(struct parse_state *st);
const char *lex_keyword_text(int token);

/* The location of a token (bison's YYLTYPE) as a srcloc. */
/*
 * Token locations (bison's YYLTYPE) carry their file too: a token from a
 * library macro comes from another file, and the expansion it came from.
 */
struct yyltype {
	int first_line, first_column, last_line, last_column;
	int file;		/* -1: the file being parsed */
	int expansion;		/* as in struct srcloc */
};

#define LOC_OF(st, yl) ((struct srcloc){ (yl).file >= 0 ? (yl).file : (st)->file, \
	(yl).first_line, (yl).first_column, (yl).expansion })

#endif /* PARSER_PARSE_INTERNAL_H */
