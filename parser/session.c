// SPDX-License-Identifier: GPL-2.0-or-later
/* Session setup and the source registry; see session.h. */
#include "parser/session.h"
#include "target/target.h"

#include <stdlib.h>
#include <string.h>

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->last_pass = 5;
	s->max_errors = 20;
	s->compatible = "4.8";
}

void session_free(struct session *s)
{
	target_free(s->target);
	s->target = NULL;
	arena_free(&s->arena);
	free(s->files);
	s->files = NULL;
	free(s->include_dirs);
	s->include_dirs = NULL;
	free(s->defines);
	free(s->global_settings);
	hashset_free(&s->shown);
	s->defines = NULL;
	free(s->expansions);
	s->expansions = NULL;
}

/* f->lines: the offset of each line's start (one pass to count them, one
 * to record them). */
static void index_lines(struct session *s, struct srcfile *f)
{
	const char *end = f->text + f->len, *p;
	size_t *lines;
	int n = 1;

	for (p = f->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	lines = arena_alloc(&s->arena, (size_t)n * sizeof(*lines));
	f->nlines = n;
	n = 0;
	lines[n++] = 0;
	for (p = f->text; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines[n++] = (size_t)(p + 1 - f->text);
	f->lines = lines;
}

int session_add_source(struct session *s, const char *name, const char *text,
		       size_t len, bool privileged)
{
	VEC_GROW(s->files, s->nfiles, s->files_cap);
	struct srcfile *f = &s->files[s->nfiles];
	f->name = arena_strdup(&s->arena, name);
	f->text = arena_strndup(&s->arena, text, len);
	f->len = len;
	f->privileged = privileged;
	index_lines(s, f);
	return s->nfiles++;
}

const struct srcfile *session_file(const struct session *s, int file)
{
	if (file < 0 || file >= s->nfiles)
		return NULL;
	return &s->files[file];
}
