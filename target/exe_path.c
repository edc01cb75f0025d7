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
