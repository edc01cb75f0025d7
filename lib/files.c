// SPDX-License-Identifier: GPL-2.0-or-later
/* Small file-system helpers; see files.h. */
/* fileno() is POSIX, S_ISVTX XSI: the test VM's strict -std=c11 build
 * needs them named */
#define _XOPEN_SOURCE 700

#include "lib/files.h"
#include "lib/arena.h"
#include "lib/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
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
			mkdir(p, 0700);
			*s = '/';
		}
	}
	rc = mkdir(p, 0700) == 0 || errno == EEXIST ? 0 : -1;
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

/* All of f, then f closed; NULL on a read error (errno from the read). */
static char *read_and_close(FILE *f, size_t *len)
{
	char *buf = read_stream(f, len);

	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");

	return f ? read_and_close(f, len) : NULL;
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
	if (!home || !*home) {
		/* not /tmp: a directory others could have made first */
		const struct passwd *pw = getpwuid(geteuid());

		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : NULL;
	}
	return home ? arena_printf(a, "%s/.cache/stap", home) : NULL;
}

/* why[] for a directory the user's cache may not sit in or be */
static int refuse_dir(const struct stat *st, const char *what,
		      bool final, char *why, size_t n)
{
	uid_t me = geteuid();
	bool group = st->st_mode & S_IWGRP, others = st->st_mode & S_IWOTH;

	if (!S_ISDIR(st->st_mode)) {
		snprintf(why, n, "%s is not a directory", what);
		return -1;
	}
	if (final ? st->st_uid != me : st->st_uid != me && st->st_uid != 0) {
		snprintf(why, n, "%s belongs to uid %lu, not to uid %lu%s: "
			 "its owner could replace what it holds", what,
			 (unsigned long)st->st_uid, (unsigned long)me,
			 final || me == 0 ? "" : " or root");
		return -1;
	}
	/* a sticky directory (/tmp) others may write lets none of them
	 * move or remove what the user or root owns in it */
	if ((group || others) && (final || !(st->st_mode & S_ISVTX))) {
		snprintf(why, n, "%s is writable by %s (mode %04o): they could "
			 "replace what it holds", what, group && others ?
			 "group and others" : group ? "group" : "others",
			 (unsigned)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * The walk of cache_dir_resolve: from "/" (a relative dir from the
 * working directory's path), one component at a time, each directory
 * opened O_NOFOLLOW and checked on its descriptor (no window between a
 * check and the open), each symbolic link checked (its owner) and its
 * text walked in turn. canon collects the path walked, without links.
 */
char *cache_dir_resolve(const char *dir, char *why, size_t n)
{
	enum { MAX_LINKS = 40 };
	char cwd[4096], *todo, *canon = xstrdup("");
	int fd = -1, links = 0;
	uid_t me = geteuid();

	if (dir[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			snprintf(why, n, "%s", strerror(errno));
			free(canon);
			return NULL;
		}
		todo = xasprintf("%s/%s", cwd, dir);
	} else {
		todo = xstrdup(dir);
	}
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char *rest = todo;
	while (fd >= 0) {
		while (*rest == '/')
			rest++;
		if (!*rest)
			break;
		char *slash = strchr(rest, '/'), name[256];
		size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
		bool final;
		struct stat st;

		if (len >= sizeof(name)) {
			snprintf(why, n, "a component is too long");
			goto refused;
		}
		memcpy(name, rest, len);
		name[len] = '\0';
		rest += len;
		final = !rest[strspn(rest, "/")];
		if (!strcmp(name, "."))
			continue;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT || (mkdirat(fd, name, 0700) != 0 &&
						errno != EEXIST)) {
				snprintf(why, n, "cannot create it: %s",
					 strerror(errno));
				goto refused;
			}
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			char *at = xasprintf("%s/%s", canon, name);
			ssize_t tl;

			if (st.st_uid != me && st.st_uid != 0) {
				snprintf(why, n, "its path goes through %s, a "
					 "symbolic link of uid %lu (not of uid "
					 "%lu%s): its owner could point it "
					 "elsewhere", at,
					 (unsigned long)st.st_uid,
					 (unsigned long)me,
					 me == 0 ? "" : " or root");
				free(at);
				goto refused;
			}
			free(at);
			tl = readlinkat(fd, name, target, sizeof(target) - 1);
			if (tl < 0 || ++links > MAX_LINKS) {
				snprintf(why, n, "%s", tl < 0 ? strerror(errno) :
					 "too many symbolic links");
				goto refused;
			}
			target[tl] = '\0';
			char *next = xasprintf("%s/%s", target, rest);
			free(todo);
			todo = rest = next;
			if (target[0] == '/') {
				close(fd);
				fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				canon[0] = '\0';
			}
			continue;
		}
		int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				  O_CLOEXEC);
		if (next < 0 || fstat(next, &st) != 0) {
			snprintf(why, n, "%s", strerror(errno));
			if (next >= 0)
				close(next);
			goto refused;
		}
		close(fd);
		fd = next;
		if (!strcmp(name, "..")) {
			char *up = strrchr(canon, '/');
			if (up)
				*up = '\0';
		} else {
			char *longer = xasprintf("%s/%s", canon, name);
			free(canon);
			canon = longer;
		}
		char what[4200];
		snprintf(what, sizeof(what), final ? "it" : "its parent %s",
			 canon);
		if (refuse_dir(&st, what, final, why, n))
			goto refused;
	}
	if (fd < 0) {
		snprintf(why, n, "%s", strerror(errno));
		goto refused;
	}
	close(fd);
	free(todo);
	if (!canon[0]) {	/* the root directory itself */
		free(canon);
		canon = xstrdup("/");
	}
	return canon;
refused:
	if (fd >= 0)
		close(fd);
	free(todo);
	free(canon);
	return NULL;
}

int cache_dir_check(const char *dir, char *why, size_t n)
{
	char *canon = cache_dir_resolve(dir, why, n);

	free(canon);
	return canon ? 0 : -1;
}

/* A new file beside path, made with mkstemp (close-on-exec); -1 if not. */
static int temp_beside(const char *path, char **tmp)
{
	int fd;

	*tmp = xasprintf("%s.XXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		int err = errno;

		free(*tmp);
		*tmp = NULL;
		errno = err;
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp;
	int fd = temp_beside(path, &tmp), err = 0;
	const char *p = data;

	if (fd < 0)
		return -1;
	while (len && !err) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno != EINTR)
			err = errno;
		else if (w > 0) {
			p += w;
			len -= (size_t)w;
		}
	}
	if (close(fd) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	errno = err;
	return err ? -1 : 0;
}

/*
 * path opened for reading when it is a regular file: O_NONBLOCK, so a
 * FIFO never blocks the open (nor a device's), then the type checked on
 * the open descriptor (no window between a check and the open). -1 with
 * errno EINVAL for anything but a regular file.
 */
static int open_regular(int dirfd, const char *path, int flags)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

char *read_regular_file_max(const char *path, size_t max, size_t *len)
{
	int fd = open_regular(AT_FDCWD, path, 0);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
	char *buf;
	int err;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = read_stream_max(f, max, len);
	err = errno;
	fclose(f);
	errno = err;
	return buf;
}

/* name in the directory dirfd (AT_FDCWD: a path), read whole if it is a
 * regular file and no symbolic link */
static char *read_at_nofollow(int dirfd, const char *name, size_t *len)
{
	int fd = open_regular(dirfd, name, O_NOFOLLOW);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
	char *buf;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = read_and_close(f, len);
	if (!buf)
		errno = EIO;
	return buf;
}

char *read_file_nofollow(const char *path, size_t *len)
{
	return read_at_nofollow(AT_FDCWD, path, len);
}

/* The seal's text: a version, the size and the FNV-1a hash. */
static char *seal_text(const void *data, size_t len)
{
	return xasprintf("stap-seal 1 size %zu fnv1a64 %016llx\n", len,
			 (unsigned long long)fnv1a(FNV_OFFSET, data, len));
}

int cache_write_sealed(const char *path, const void *data, size_t len)
{
	char *sum = xasprintf("%s.sum", path), *text = seal_text(data, len);
	int rc = write_file_atomic(path, data, len) == 0 &&
		 write_file_atomic(sum, text, strlen(text)) == 0 ? 0 : -1;

	free(sum);
	free(text);
	return rc;
}


/*
 * The directory of path, opened (O_NOFOLLOW) and checked on its
 * descriptor as a cache directory is: the file and its seal are then
 * opened from it, so both come from the directory checked.
 */
static int open_cache_parent(const char *path, const char **base, char *why,
			     size_t n)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - path), path) :
		    xstrdup(".");
	int fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
	struct stat st;
	char what[4200];

	*base = slash ? slash + 1 : path;
	snprintf(what, sizeof(what), "its directory %s", dir);
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, n, "its directory %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	} else if (refuse_dir(&st, what, true, why, n)) {
		close(fd);
		fd = -1;
	}
	free(dir);
	return fd;
}

char *cache_read_sealed(const char *path, size_t *len, char *why, size_t n)
{
	const char *base;
	int dirfd = open_cache_parent(path, &base, why, n);
	char *sum, *seal, *want;
	size_t got_len;

	if (dirfd < 0)
		return NULL;
	sum = xasprintf("%s.sum", base);
	char *data = read_at_nofollow(dirfd, base, &got_len);
	if (!data) {
		snprintf(why, n, "%s", errno == ELOOP ? "it is a symbolic link" :
			 errno == EINVAL ? "it is not a regular file" :
			 strerror(errno));
		free(sum);
		close(dirfd);
		return NULL;
	}
	seal = read_at_nofollow(dirfd, sum, NULL);
	close(dirfd);
	want = seal_text(data, got_len);
	if (!seal && errno == ENOENT) {
		/* stored before seals, or the store was cut short */
		snprintf(why, n, "%s", "");
		free(data);
		data = NULL;
	} else if (!seal || strcmp(seal, want)) {
		snprintf(why, n, !seal ? "its seal %s.sum is not a regular file" :
			 "it does not match its seal %s.sum (size and hash)",
			 path);
		free(data);
		data = NULL;
	}
	free(seal);
	free(want);
	free(sum);
	if (data && len)
		*len = got_len;
	return data;
}

FILE *replace_open(struct replace_file *r, const char *dir, const char *path)
{
	int fd;

	make_dirs(dir);
	r->path = path;
	fd = temp_beside(path, &r->tmp);
	r->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!r->f) {
		if (fd >= 0) {
			close(fd);
			unlink(r->tmp);
		}
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
