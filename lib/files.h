/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file-system helpers: whole-file reads, the cache directory and
 * the atomic replacement of cache files. */
#ifndef LIB_FILES_H
#define LIB_FILES_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Create dir and its missing parents (mode 0755). Returns 0 when dir
 * exists afterwards, -1 otherwise (errno set).
 */
int make_dirs(const char *dir);

bool path_exists(const char *path);

/*
 * The whole file (or the rest of the stream), malloc'ed and NUL-terminated
 * (a NUL inside is kept: *len, when not NULL, is the byte count). No size
 * is trusted, so /proc files and pipes work. read_file: NULL when the file
 * cannot be opened or read; read_stream: what could be read, never NULL.
 */
char *read_file(const char *path, size_t *len);
char *read_stream(FILE *f, size_t *len);

/*
 * The same with a bound, for input from users (scripts): NULL, with errno
 * set, when more than max bytes come (EFBIG: no more than max + 1 bytes
 * are read, so /dev/zero or an endless pipe ends), when the file is a
 * directory (EISDIR) or on a read error.
 */
char *read_file_max(const char *path, size_t max, size_t *len);
char *read_stream_max(FILE *f, size_t max, size_t *len);

/*
 * The directory of every cache (modules, catalogs, BTF, the tapset
 * index): $STAP_CACHE, else $XDG_CACHE_HOME/stap, else ~/.cache/stap.
 * The string is in a (or the environment's).
 */
struct arena;
const char *cache_dir(struct arena *a);

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
