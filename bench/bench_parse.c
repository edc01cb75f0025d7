// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass-1 throughput: parse every file named on the command line (tapsets,
 * the SystemTap corpus) ROUNDS times in fresh sessions and print MB/s and
 * the time to parse 1 MB. A benchmark, not a test: it prints figures.
 *   bench_parse [-r ROUNDS] FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parser/parser.h"
#include "lib/files.h"

int main(int argc, char **argv)
{
	int rounds = 20, first = 1;
	static char *args[] = { "1", "2", "3", "4", "5", "6", "7", "8", "9" };

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		rounds = atoi(argv[2]);
		first = 3;
	}
	int nfiles = argc - first;
	char **texts = xmalloc((size_t)(nfiles + 1) * sizeof(*texts));
	size_t *lens = xmalloc((size_t)(nfiles + 1) * sizeof(*lens));
	size_t total = 0;
	for (int i = 0; i < nfiles; i++) {
		texts[i] = read_file(argv[first + i], &lens[i]);
		total += texts[i] ? lens[i] : 0;
	}
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");	/* corpus ko files report errors */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int errors = 0;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < nfiles; i++) {
			struct session s;
			if (!texts[i])
				continue;
			session_init(&s);
			s.script_args = args;
			s.nscript_args = 9;
			s.release = "6.1.0-56-cloud-amd64";
			s.guru = true;
			parse_source(&s, session_add_source(&s, argv[first + i],
					texts[i], lens[i], true));
			errors += s.nerrors > 0;
			session_free(&s);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fclose(stderr);
	stderr = saved;
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double mb = (double)total * rounds / 1e6;
	printf("pass 1: %d files, %.2f MB, %d rounds: %.1f MB/s, %.1f ms per MB "
	       "(goal: under 50 ms per MB)\n", nfiles, (double)total / 1e6,
	       rounds, mb / secs, secs * 1000.0 / mb);
	printf("        (%d files had parse errors each round, as ko cases should)\n",
	       errors / (rounds ? rounds : 1));
	for (int i = 0; i < nfiles; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	return 0;
}
