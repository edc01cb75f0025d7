/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tapset library: every *.stp on the tapset path, indexed by the names
 * each file defines (functions, globals, probe aliases). Pass 2 parses only
 * the files a program needs, repeating until nothing new is needed. The
 * index is cached on disk per kernel release and refreshed file by file
 * when a file's size or modification time changes.
 */
#ifndef SEMANTIC_LIBRARY_H
#define SEMANTIC_LIBRARY_H

#include <stdbool.h>

#include "parser/parser.h"

/* Everything here lives in the session arena. */
struct lib_file {
	const char *path;
	long long mtime_ns, size;
	const char **names;	/* "f:NAME", "g:NAME", "a:COMP.COMP..." */
	int nnames;
	struct ast_file *ast;	/* parsed in this run, or NULL */
	bool bad;		/* had parse errors: never cached */
	bool used;		/* part of the program */
};

struct library {
	struct lib_file *files;
	int nfiles;
};

/*
 * The directories searched, in order, for tapset dir `dir`, with
 * SystemTap's suffix rules: runtime (linux/) before generic, the most
 * specific kernel version first, the architecture before neutral. Only
 * directories that exist are returned (arena strings; count in *n).
 */
const char **library_search_dirs(struct session *s, const char *dir, int *n);

/*
 * Read every *.stpm of the tapset path (library_search_dirs() order, each
 * directory's files in name order) into the session's library macros:
 * done before any script is parsed.
 */
void library_load_macros(struct session *s);

/*
 * Find and index the library on s->tapset_dirs. cache_dir may be NULL
 * (no on-disk index). Parse errors in library files are warnings.
 */
void library_load(struct session *s, struct library *lib,
		  const char *cache_dir);

/*
 * Parse the library files the program's files need, transitively, and
 * append them to *files: an arena array of *nfiles whose capacity is the
 * next power of two (start with an array of one).
 */
void library_resolve(struct session *s, struct library *lib,
		     struct ast_file ***files, int *nfiles);

/* Parse every library file (for --dump-*); appends them to *files. */
void library_load_all(struct session *s, struct library *lib,
		      struct ast_file ***files, int *nfiles);

#endif /* SEMANTIC_LIBRARY_H */
