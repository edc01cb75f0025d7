// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tp_list RELEASE PATTERN [-L]: list kernel.trace probe points from the
 * tracepoint catalog, like "stap -r RELEASE -l/-L 'kernel.trace(PATTERN)'".
 * Environment: TP_BUILD (build tree), TP_CACHE (cache dir, default
 * ~/.cache/stap; "none" disables it), TP_STATS=1 (counts on stderr).
 * Exit 0 with matches, 1 without, 2 on errors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/tracepoints.h"
#include "probes/listing.h"

int main(int argc, char **argv)
{
	const char *cache = getenv("TP_CACHE");
	char *home_cache = NULL, *err;
	struct tp_catalog c;
	bool vars = false;
	int n;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "-L"))) {
		fprintf(stderr, "usage: tp_list RELEASE PATTERN [-L]\n");
		return 2;
	}
	vars = argc == 4;
	if (!cache && getenv("HOME")) {
		if (asprintf(&home_cache, "%s/.cache/stap",
			     getenv("HOME")) < 0)
			return 2;
		cache = home_cache;
	}
	if (cache && strcmp(cache, "none") == 0)
		cache = NULL;
	if (tp_catalog_load(argv[1], getenv("TP_BUILD"), cache, &c,
			    &err) != 0) {
		fprintf(stderr, "tp_list: %s\n", err);
		free(err);
		free(home_cache);
		return 2;
	}
	n = list_tracepoints(&c, argv[2], vars, stdout);
	if (getenv("TP_STATS"))
		fprintf(stderr,
			"tp_list: %d tracepoints (%d without args) from %d "
			"headers%s; %d matched\n", c.n, c.n_noargs,
			c.n_headers, c.from_cache ? ", cached" : "", n);
	tp_catalog_free(&c);
	free(home_cache);
	return n ? 0 : 1;
}
