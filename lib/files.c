// SPDX-License-Identifier: GPL-2.0-or-later
/* Small file-system helpers; see files.h. */
#include "lib/files.h"
#include "lib/arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
