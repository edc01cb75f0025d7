/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file-system helpers: whole-file reads, the cache directory and
 * the atomic replacement of cache files. */
#ifndef LIB_FILES_H
#define LIB_FILES_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Create dir and its missing parents (mode 0700: caches and work
 * directories are private). Returns 0 when dir exists afterwards, -1
 * otherwise (errno set).
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
 * The bound on a script and on each tapset file: read whole before
 * pass 1, so /dev/zero or an endless pipe ends with an error instead of
 * eating the memory (SystemTap has no bound). 64 MiB is a hundred times
 * the whole tapset library.
 */
#define SCRIPT_MAX_BYTES ((size_t)64 << 20)

/*
 * read_file_max() of a regular file only (a symbolic link to one is
 * followed): a FIFO, a device or a socket is never read, nor does its
 * open block: NULL with errno EINVAL. For the files of tapset
 * directories, which stap finds itself (the script named on the command
 * line may be a pipe: stap <(cmd)).
 */
char *read_regular_file_max(const char *path, size_t max, size_t *len);

/*
 * The directory of every cache (modules, catalogs, BTF, the tapset
 * index): $STAP_CACHE, else $XDG_CACHE_HOME/stap, else HOME/.cache/stap
 * with HOME from the environment or, when unset or empty, the passwd
 * entry of the effective user (never /tmp). NULL when there is no home
 * at all. The string is in a (or the environment's).
 */
struct arena;
const char *cache_dir(struct arena *a);

/*
 * Make dir (0700, with its missing parents) and check that it may hold
 * what is later loaded or compiled into a kernel: a directory owned by
 * the effective user, not writable by group or others, on a path nobody
 * else can change. Every component is checked on its open descriptor
 * (opened O_NOFOLLOW): each parent owned by the user or root and not
 * writable by group or others unless sticky (/tmp), each symbolic link
 * on the way owned by the user or root (its target walked and checked in
 * turn). cache_dir_resolve returns the path walked, without symbolic
 * links (malloc'ed): what the caches are then used by, so a link changed
 * afterwards changes nothing. NULL, or for cache_dir_check -1, when the
 * directory is refused, and why[] says why ("it is writable by group
 * (mode 0770): ...", "its path goes through /x/link, a symbolic link of
 * uid 1000 ...").
 */
char *cache_dir_resolve(const char *dir, char *why, size_t n);
int cache_dir_check(const char *dir, char *why, size_t n);

/*
 * Write len bytes to path whole or not at all: a new file made with
 * mkstemp() (O_CREAT|O_EXCL, mode 0600: never a file or symbolic link
 * planted at a guessable name) beside path, renamed over it (which
 * replaces a symbolic link at path, never what it points to). 0, or -1
 * with errno set.
 */
int write_file_atomic(const char *path, const void *data, size_t len);

/*
 * read_file() of a regular file only, opened with O_NOFOLLOW: NULL (errno
 * ELOOP) for a symbolic link, EINVAL for anything but a regular file.
 */
char *read_file_nofollow(const char *path, size_t *len);

/*
 * Sealed cache files (modules, the runtime object, feature headers): the
 * data is written atomically to path, then its size and hash to
 * path.sum. cache_read_sealed returns the file's bytes only when both are
 * regular files (no symbolic link), and the bytes match the seal; else
 * NULL and why[] says what was wrong ("it is a symbolic link", "it does
 * not match its seal ..."), or is empty when the file has no seal (one
 * stored before seals, or whose store was cut short).
 */
int cache_write_sealed(const char *path, const void *data, size_t len);
char *cache_read_sealed(const char *path, size_t *len, char *why, size_t n);

/*
 * A cache file written whole or not at all: replace_open creates dir and
 * opens a new temporary file beside path (mkstemp: O_EXCL, 0600; NULL if
 * it cannot); replace_commit
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
