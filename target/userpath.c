// SPDX-License-Identifier: GPL-2.0-or-later
/* A user binary's path as SystemTap finds it; see userpath.h. */
#define _GNU_SOURCE
#include "target/userpath.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elf.h>

#include "elf/elf.h"

/* The system's library directories, after $LD_LIBRARY_PATH (x86-64). */
static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL,
};

struct found {
	struct arena *a;
	const char **v;
	int n, cap;
};

/* Add path, canonical, when it is a readable regular file not there yet;
 * exec: it must also be executable. */
static bool add(struct found *f, const char *path, bool exec)
{
	char *real = realpath(path, NULL);
	struct stat st;
	bool ok = real && !stat(real, &st) && S_ISREG(st.st_mode) &&
		  !access(real, exec ? R_OK | X_OK : R_OK);

	if (ok) {
		for (int i = 0; i < f->n; i++)
			if (!strcmp(f->v[i], real))
				goto out;
		if (f->n == f->cap) {
			int cap = f->cap ? 2 * f->cap : 4;
			const char **v = arena_alloc(f->a, (size_t)cap *
						     sizeof(*v));
			if (f->n)
				memcpy(v, f->v, (size_t)f->n * sizeof(*v));
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n++] = arena_strdup(f->a, real);
	}
out:
	free(real);
	return ok;
}

/* name in each directory of the colon-separated list dirs: the first
 * that is there */
static bool search(struct found *f, const char *dirs, const char *name,
		   bool exec)
{
	const char *p = dirs;

	while (p && *p) {
		size_t len = strcspn(p, ":");
		char buf[PATH_MAX];

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(len ? len : 1),
			     len ? p : ".", name) < (int)sizeof(buf) &&
		    add(f, buf, exec))
			return true;
		p += len + (p[len] == ':');
	}
	return false;
}

static bool search_libs(struct found *f, const char *name)
{
	if (search(f, getenv("LD_LIBRARY_PATH"), name, false))
		return true;
	for (int i = 0; lib_dirs[i]; i++) {
		char buf[PATH_MAX];

		if (snprintf(buf, sizeof(buf), "%s/%s", lib_dirs[i], name) <
		    (int)sizeof(buf) && add(f, buf, false))
			return true;
	}
	return false;
}

int userpath_resolve(struct arena *a, const char *spec, bool library,
		     const char ***out)
{
	struct found f = { .a = a };

	*out = NULL;
	if (!spec || !*spec)
		return 0;
	if (strpbrk(spec, "*?[")) {
		glob_t g;

		if (!glob(spec, 0, NULL, &g)) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				add(&f, g.gl_pathv[i], false);
			globfree(&g);
		}
	} else if (strchr(spec, '/')) {
		add(&f, spec, false);
	} else if (library) {
		if (!search_libs(&f, spec))
			search(&f, getenv("PATH"), spec, true);
	} else if (!search(&f, getenv("PATH"), spec, true)) {
		/* at last from the current directory: SystemTap 4.8 finds
		 * no program by soname ("cannot find executable") */
		add(&f, spec, false);
	}
	*out = f.v;
	return f.n;
}

const char *userpath_program(struct arena *a, const char *name)
{
	const char **files;

	return userpath_resolve(a, name, false, &files) ? files[0] : name;
}

/* Add path, canonical, to the malloc'd list *libs unless it is there. */
static void add_needed(struct arena *a, const char ***libs, int *n,
		       const char *path)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf))
		return;
	for (int i = 0; i < *n; i++)
		if (!strcmp((*libs)[i], buf))
			return;
	*libs = xrealloc(*libs, (size_t)(*n + 1) * sizeof(**libs));
	(*libs)[(*n)++] = arena_strdup(a, buf);
}

/* Path's own DT_NEEDED libraries and interpreter, added to *libs. */
static void needed_of(struct arena *a, const char *path, const char ***libs,
		      int *n)
{
	char *err = NULL;
	struct elf_file *f = elf_file_open(path, NULL, &err);
	const void *dyn, *str, *interp;
	size_t dyn_size, str_size, interp_size;
	uint64_t addr;
	const char *why;

	free(err);
	if (!f)
		return;
	if (elf_file_class(f) == ELFCLASS64 &&
	    !elf_file_section(f, ".interp", &interp, &interp_size, &addr, &why) &&
	    interp_size && memchr(interp, 0, interp_size))
		add_needed(a, libs, n, interp);
	if (elf_file_class(f) != ELFCLASS64 ||
	    elf_file_section(f, ".dynamic", &dyn, &dyn_size, &addr, &why) ||
	    elf_file_section(f, ".dynstr", &str, &str_size, &addr, &why)) {
		elf_file_close(f);
		return;
	}
	const Elf64_Dyn *d = dyn;
	for (size_t i = 0; i < dyn_size / sizeof(*d) && d[i].d_tag != DT_NULL;
	     i++) {
		if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= str_size)
			continue;
		const char *name = (const char *)str + d[i].d_un.d_val;
		for (int k = 0; lib_dirs[k]; k++) {
			const char *cand = arena_printf(a, "%s/%s",
							lib_dirs[k], name);
			if (!access(cand, R_OK)) {
				add_needed(a, libs, n, cand);
				break;
			}
		}
	}
	elf_file_close(f);
}

void userpath_needed(struct arena *a, const char *path, const char ***libs,
		     int *n)
{
	int first = *n;

	needed_of(a, path, libs, n);
	/* the libraries' own needs, breadth first, each file once */
	for (int i = first; i < *n; i++)
		needed_of(a, (*libs)[i], libs, n);
}
