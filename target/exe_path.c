// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process("NAME")'s executable: $PATH lookup, then realpath(3). See
 * exe_path.h.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/exe_path.h"
#include "elf/elf.h"

#include <elf.h>

static bool is_program(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) &&
	       !access(path, X_OK);
}

/* The first directory of $PATH holding an executable name, or NULL. */
static const char *path_lookup(struct arena *a, const char *name)
{
	const char *dirs = getenv("PATH");

	if (!dirs || !*dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	while (*dirs) {
		size_t len = strcspn(dirs, ":");
		char *cand = len ? arena_printf(a, "%.*s/%s", (int)len, dirs,
						name) :
				   arena_printf(a, "./%s", name);
		if (is_program(cand))
			return cand;
		dirs += len;
		if (*dirs == ':')
			dirs++;
	}
	return NULL;
}

const char *exe_path_resolve(struct arena *a, const char *name)
{
	const char *path = name;
	char buf[PATH_MAX];

	if (!*name)
		return name;
	if (!strchr(name, '/')) {
		path = path_lookup(a, name);
		if (!path)
			return name;
	}
	if (!realpath(path, buf))
		return name;
	return arena_strdup(a, buf);
}

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", NULL,
};

static bool listed(const char **libs, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(libs[i], path))
			return true;
	return false;
}

static void add_lib(struct arena *a, const char ***libs, int *n,
		    const char *path)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf) || listed(*libs, *n, buf))
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
		add_lib(a, libs, n, interp);
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
				add_lib(a, libs, n, cand);
				break;
			}
		}
	}
	elf_file_close(f);
}

void exe_path_needed(struct arena *a, const char *path, const char ***libs,
		     int *n)
{
	int first = *n;

	needed_of(a, path, libs, n);
	/* the libraries' own needs, breadth first, each file once */
	for (int i = first; i < *n; i++)
		needed_of(a, (*libs)[i], libs, n);
}
