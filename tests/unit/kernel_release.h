/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel the DWARF unit tests read: KF_RELEASE, or the newest
 * installed Debian 6.1 debug vmlinux (/usr/lib/debug/boot/vmlinux-6.1.*),
 * whose functions and locations the expected texts were written from. */
#ifndef TESTS_UNIT_KERNEL_RELEASE_H
#define TESTS_UNIT_KERNEL_RELEASE_H

#include <glob.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd release string, or NULL when no debug vmlinux is there. */
static char *test_debug_release(void)
{
	const char *env = getenv("KF_RELEASE");
	const char *dir = "/usr/lib/debug/boot/vmlinux-";
	char *rel = NULL;
	glob_t g;

	if (env)
		return strdup(env);
	if (glob("/usr/lib/debug/boot/vmlinux-6.1.*", 0, NULL, &g) == 0 &&
	    g.gl_pathc)
		rel = strdup(g.gl_pathv[g.gl_pathc - 1] + strlen(dir));
	globfree(&g);
	return rel;
}

#endif /* TESTS_UNIT_KERNEL_RELEASE_H */
