// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fn_list RELEASE SPEC [-L] [-g]: list kernel.function probe points from
 * the function catalog, like "stap -r RELEASE -l/-L SPEC", where SPEC is
 * 'kernel.function("PATTERN")[.call|...]'. Environment: KF_VMLINUX (the
 * debug vmlinux), KF_CACHE (cache dir, default ~/.cache/stap; "none"
 * disables it), KF_STATS=1 (counts and time on stderr).
 * Exit 0 with matches, 1 without, 2 on errors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/functions.h"
#include "probes/listing.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *cache = getenv("KF_CACHE");
	const char *vmlinux = getenv("KF_VMLINUX"), *tried;
	char *home_cache = NULL, *err;
	struct arena a = { 0 };
	struct kf_catalog c;
	bool vars = false, guru = false;
	double t0 = now(), t1;
	int n;

	if (argc < 3) {
		fprintf(stderr, "usage: fn_list RELEASE SPEC [-L] [-g]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "-L"))
			vars = true;
		else if (!strcmp(argv[i], "-g"))
			guru = true;
	}
	if (!cache && getenv("HOME")) {
		if (asprintf(&home_cache, "%s/.cache/stap",
			     getenv("HOME")) < 0)
			return 2;
		cache = home_cache;
	}
	if (cache && strcmp(cache, "none") == 0)
		cache = NULL;
	if (!vmlinux)
		vmlinux = kf_find_vmlinux(argv[1], &a, &tried);
	if (!vmlinux) {
		fprintf(stderr, "fn_list: missing %s\n", tried);
		return 2;
	}
	if (kf_catalog_load(argv[1], vmlinux, cache, &c, &err) != 0) {
		fprintf(stderr, "fn_list: %s\n", err);
		free(err);
		return 2;
	}
	t1 = now();
	n = list_kernel_functions(&c, argv[2], vars, guru, stdout);
	if (getenv("KF_STATS"))
		fprintf(stderr,
			"fn_list: %d functions, %d instances (%d inlined), "
			"%d CUs, %d var lists, %d vars%s; load %.3f s, "
			"list %.3f s; %d matched\n", c.n, c.ninst, c.ninline,
			c.ncus, c.nlists, c.nvars,
			c.from_cache ? " (cached)" : "", t1 - t0, now() - t1,
			n);
	kf_catalog_free(&c);
	arena_free(&a);
	free(home_cache);
	if (n < 0) {
		fprintf(stderr, "fn_list: not a kernel.function point\n");
		return 2;
	}
	return n ? 0 : 1;
}
