// SPDX-License-Identifier: GPL-2.0-or-later
/* Pass 1 entry points; see parser.h. */
#include "parser/parse_internal.h"

#include <string.h>

struct ast_file *parse_source(struct session *s, int file)
{
	const struct srcfile *f = session_file(s, file);
	struct parse_state st = {
		.s = s,
		.file = file,
		.privileged = f->privileged,
	};

	lex_parse(&st);
	struct ast_file *af = arena_alloc(&s->arena, sizeof(*af));
	af->file = file;
	af->decls = st.decls;
	return af;
}

struct ast_file *parse_string(struct session *s, const char *name,
			      const char *text, bool privileged)
{
	int file = session_add_source(s, name, text, strlen(text), privileged);

	return parse_source(s, file);
}
