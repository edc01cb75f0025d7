// SPDX-License-Identifier: GPL-2.0-or-later
/* Small file-system helpers; see files.h. */
#include "lib/files.h"
#include "lib/arena.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

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
