// SPDX-License-Identifier: GPL-2.0-or-later
/* Small file-system helpers; see files.h. */
/* fileno() is POSIX: the test VM's strict -std=c11 build needs it named */
#define _POSIX_C_SOURCE 200809L

#include "lib/files.h"
#include "lib/arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	int rc;

	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	rc = mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1;
	free(p);
	return rc;
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *read_stream(FILE *f, size_t *len)
{
	size_t cap = 8192, n = 0, got;
	char *buf = xmalloc(cap);

	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *read_stream_max(FILE *f, size_t max, size_t *len)
{
	size_t cap = 8192, n = 0, got, want;
	char *buf = xmalloc(cap);
	struct stat st;

	/* a directory opens, and then reads as nothing: say what it is */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		free(buf);
		errno = EISDIR;
		return NULL;
	}
	for (;;) {
		want = cap - n - 1;
		if (want > max + 1 - n)
			want = max + 1 - n;	/* one byte past max tells */
		got = fread(buf + n, 1, want, f);
		n += got;
		if (got == 0 || n > max)
			break;
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
	}
	if (n > max || ferror(f)) {
		int err = n > max ? EFBIG : errno ? errno : EIO;

		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *read_file_max(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf;
	int err;

	if (!f)
		return NULL;
	buf = read_stream_max(f, max, len);
	err = errno;
	fclose(f);
	errno = err;
	return buf;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf;

	if (!f)
		return NULL;
	buf = read_stream(f, len);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

const char *cache_dir(struct arena *a)
{
	const char *env = getenv("STAP_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		return env;
	if (xdg && *xdg)
		return arena_printf(a, "%s/stap", xdg);
	return arena_printf(a, "%s/.cache/stap", home ? home : "/tmp");
}

FILE *replace_open(struct replace_file *r, const char *dir, const char *path)
{
	make_dirs(dir);
	r->path = path;
	r->tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	r->f = fopen(r->tmp, "we");
	if (!r->f) {
		free(r->tmp);
		r->tmp = NULL;
	}
	return r->f;
}

int replace_commit(struct replace_file *r, bool ok)
{
	int rc = 0;

	if (fclose(r->f) != 0 || !ok || rename(r->tmp, r->path) != 0) {
		unlink(r->tmp);
		rc = -1;
	}
	free(r->tmp);
	r->f = NULL;
	r->tmp = NULL;
	return rc;
}
