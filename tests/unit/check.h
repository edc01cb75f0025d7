/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tiny assertion kit for the C unit tests: failures print the expression. */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                          \
	do {                                                                 \
		check_count++;                                               \
		if (!(cond)) {                                               \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
		}                                                            \
	} while (0)

#define CHECK_STR(got, want)                                                 \
	do {                                                                 \
		const char *g_ = (got), *w_ = (want);                        \
		check_count++;                                               \
		if (strcmp(g_, w_) != 0) {                                   \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n"      \
				"--- got:\n%s\n--- want:\n%s\n", __FILE__,   \
				__LINE__, #got, g_, w_);                     \
		}                                                            \
	} while (0)

/* Exit status for automake: 0 pass, 1 fail. */
#define CHECK_DONE()                                                         \
	(printf("%d checks, %d failed\n", check_count, check_failures),      \
	 check_failures ? 1 : 0)

#endif /* TESTS_UNIT_CHECK_H */
