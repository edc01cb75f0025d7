// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stapflame - folded stacks to an interactive SVG flame graph, on its own
 * (for instance on `perf script | stackcollapse-perf.pl` output):
 *
 *   stapflame [--title T] [--width N] [--height N] [--min-width PX]
 *             [--icicle] [IN.folded] > OUT.svg
 *
 * Reads standard input without a file (or with "-"). The malformed lines
 * skipped and the stacks truncated are counted on standard error. Exit
 * status 0, or 1 on bad usage, an unreadable input or a failed write.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"

static void usage(FILE *to)
{
	fputs("usage: stapflame [--title T] [--width N] [--height N]\n"
	      "                 [--min-width PX] [--icicle] [IN.folded] > OUT.svg\n"
	      "Folded stacks (\"outer;...;inner COUNT\" lines) to a flame graph.\n"
	      "  --title T       the graph's title (default \"Flame Graph\")\n"
	      "  --width N       image width in pixels (default 1200)\n"
	      "  --height N      row height in pixels (default 16)\n"
	      "  --min-width PX  narrower frames are not drawn (default 0.1)\n"
	      "  --icicle        root at the top, stacks growing down\n",
	      to);
}

/* A whole decimal number into *out, else a message and 0. */
static int number(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end) {
		fprintf(stderr, "stapflame: %s: not a number: '%s'\n", opt, s);
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct flame_options opt = { 0 };
	struct flame_result res;
	const char *in_name = NULL;
	FILE *in = stdin;
	double v;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_value = i + 1 < argc;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--icicle") == 0) {
			opt.icicle = true;
		} else if (strcmp(a, "--title") == 0 && has_value) {
			opt.title = argv[++i];
		} else if ((strcmp(a, "--width") == 0 ||
			    strcmp(a, "--height") == 0) && has_value) {
			int *to = a[2] == 'w' ? &opt.width : &opt.frame_height;

			if (!number(a, argv[++i], &v))
				return 1;
			/* flame_render() checks the range (0: the default) */
			if (!(v >= 0 && v <= 1e7) || v != (int)v) {
				fprintf(stderr, "stapflame: %s: '%s' is not a "
					"number of pixels\n", a, argv[i]);
				return 1;
			}
			*to = (int)v;
		} else if (strcmp(a, "--min-width") == 0 && has_value) {
			if (!number(a, argv[++i], &v))
				return 1;
			/* 0 would mean the default: ask for every frame */
			opt.min_width = v ? v : 1e-9;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "stapflame: unknown option or missing "
				"value: %s\n", a);
			usage(stderr);
			return 1;
		} else if (in_name) {
			fprintf(stderr, "stapflame: one input file only\n");
			return 1;
		} else {
			in_name = a;
		}
	}
	if (in_name && strcmp(in_name, "-") != 0) {
		in = fopen(in_name, "r");
		if (!in) {
			fprintf(stderr, "stapflame: %s: %s\n", in_name,
				strerror(errno));
			return 1;
		}
	}
	rc = flame_render(in, stdout, &opt, &res);
	if (in != stdin)
		fclose(in);
	if (rc) {
		fprintf(stderr, "stapflame: %s\n", res.error);
		return 1;
	}
	if (res.skipped)
		fprintf(stderr, "stapflame: %lu malformed line%s skipped\n",
			res.skipped, res.skipped == 1 ? "" : "s");
	if (res.truncated)
		fprintf(stderr, "stapflame: %lu stack%s truncated at %d frames\n",
			res.truncated, res.truncated == 1 ? "" : "s",
			FLAME_MAX_DEPTH);
	if (!res.samples)
		fprintf(stderr, "stapflame: no stack samples in the input\n");
	return 0;
}
