// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The types of C headers, for @cast(p, "type", "<a.h><b.h>"), read as
 * SystemTap 4.8 reads them: gcc compiles a shared object from nothing but
 * the headers (each one -include'd, -g keeping the types nothing uses) and
 * its DWARF becomes a scope of the type table as a program's does
 * (target_user_btf). The object is kept in the cache, keyed by the header
 * list: the headers of a system change with its packages, not per run.
 */
#define _GNU_SOURCE
#include "target/target.h"
#include "lib/files.h"
#include "lib/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The first line of gcc's complaint in errfile, for the error message. */
static char *first_error_line(struct arena *a, const char *errfile)
{
	char *text = read_file_max(errfile, 4096, NULL), *line, *r;

	if (!text)
		return arena_strdup(a, "gcc failed");
	/* "<command-line>: fatal error: x.h: No such file or directory" */
	line = strstr(text, "error: ");
	line = line ? line + 7 : text;
	line[strcspn(line, "\n")] = 0;
	r = arena_printf(a, "gcc cannot compile it: %s", line);
	free(text);
	return r;
}

/*
 * Compile the headers (each "<name>" in turn) into obj: 0, or -1 and
 * *err.
 */
static int compile_headers(struct arena *a, const char *headers,
			   const char *obj, const char **err)
{
	const char *args[64];
	int n = 0, status, rc;
	char *errfile = xasprintf("%s.err", obj);
	posix_spawn_file_actions_t fa;
	pid_t pid;

	args[n++] = "gcc";
	args[n++] = "-shared";
	args[n++] = "-g";
	args[n++] = "-fno-eliminate-unused-debug-types";
	args[n++] = "-o";
	args[n++] = obj;
	for (const char *h = headers; *h == '<' && n < 58;) {
		size_t len = strcspn(h + 1, ">");

		if (!h[1 + len])
			break;
		args[n++] = "-include";
		args[n++] = arena_strndup(a, h + 1, len);
		h += len + 2;
	}
	args[n++] = "-xc";
	args[n++] = "/dev/null";
	args[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errfile,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rc = posix_spawnp(&pid, "gcc", &fa, NULL, (char **)args, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		*err = arena_printf(a, "cannot run gcc: %s", strerror(rc));
		free(errfile);
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
	if (rc)
		*err = first_error_line(a, errfile);
	unlink(errfile);
	free(errfile);
	return rc;
}

int target_header_btf(struct target *t, const char *headers,
		      const char **err)
{
	struct arena *a = &t->arena;
	uint64_t key = fnv1a(FNV_OFFSET, headers, strlen(headers));
	const char *dir, *obj, *tmp;
	char tmpdir[] = "/tmp/stap-typequery-XXXXXX";
	bool cached = t->cache_dir != NULL;
	int scope;

	/* one answer per header list, as for a program */
	const char *cache_key = arena_printf(a, "header:%s", headers);
	for (int i = 0; i < t->n_mods; i++)
		if (!strcmp(t->mods[i].path, cache_key)) {
			*err = t->mods[i].err;
			return t->mods[i].scope;
		}
	dir = cached ? arena_printf(a, "%s/typequery", t->cache_dir) : NULL;
	if (cached && make_dirs(dir) != 0)
		cached = false;
	if (!cached) {
		if (!mkdtemp(tmpdir)) {
			*err = arena_printf(a, "cannot make a directory in "
					    "/tmp: %s", strerror(errno));
			return 0;
		}
		dir = tmpdir;
	}
	obj = arena_printf(a, "%s/typequery_%016llx.so", dir,
			   (unsigned long long)key);
	tmp = arena_printf(a, "%s.%d.tmp", obj, (int)getpid());
	if (!cached || !path_exists(obj)) {
		if (compile_headers(a, headers, tmp, err) ||
		    rename(tmp, obj) != 0) {
			unlink(tmp);
			if (!cached)
				rmdir(tmpdir);
			goto failed;
		}
	}
	scope = target_user_btf(t, obj, err);
	if (!cached) {
		unlink(obj);
		rmdir(tmpdir);
	}
	/* the answer under the header list's name too */
	VEC_GROW(t->mods, t->n_mods, t->cap_mods);
	t->mods[t->n_mods++] = (struct target_module){ cache_key, scope,
						       *err };
	return scope;
failed:
	VEC_GROW(t->mods, t->n_mods, t->cap_mods);
	t->mods[t->n_mods++] = (struct target_module){ cache_key, 0, *err };
	return 0;
}
