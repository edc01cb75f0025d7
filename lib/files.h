/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file-system helpers shared by the caches. */
#ifndef LIB_FILES_H
#define LIB_FILES_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Create dir and its missing parents (mode 0755). Returns 0 when dir
 * exists afterwards, -1 otherwise (errno set).
 */
int make_dirs(const char *dir);

/*
 * A cache file written whole or not at all: replace_open creates dir and
 * opens a temporary file beside path (NULL if it cannot); replace_commit
 * closes it and renames it over path when ok and every write succeeded,
 * else removes it. Failures are silent: caches are an optimisation.
 */
struct replace_file {
	FILE *f;
	char *tmp;
	const char *path;
};

FILE *replace_open(struct replace_file *r, const char *dir, const char *path);
int replace_commit(struct replace_file *r, bool ok);

#endif /* LIB_FILES_H */
