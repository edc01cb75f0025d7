// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The backend interface (semantic/backend.h) as pass 2 uses it: every
 * derived probe the chosen backend refuses is an error at the point the
 * user wrote, once per point, naming a backend built in that can run it.
 * Two fake backends: one without timers, one that takes everything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parser/parser.h"
#include "semantic/backend.h"
#include "semantic/semantic.h"

static int asked;

static const char *no_timers(const struct derived_probe *dp)
{
	asked++;
	return strncmp(dp->pp, "timer.", 6) ? NULL : "it has no timers";
}

static const struct backend no_timer_backend = {
	.name = "notimer", .refuses = no_timers,
};
static const struct backend any_backend = { .name = "any" };

/* Passes 1 and 2 over src with this backend; the errors' text. */
static char *elaborate(const struct backend *b,
		       const struct backend *const *all, const char *src,
		       int *nerrors)
{
	struct session s;
	struct program prog;
	FILE *saved = stderr, *err = tmpfile();
	char *text = calloc(1, 4096);

	session_init(&s);
	s.backend = b;
	s.backends = all;
	stderr = err;
	struct ast_file *f = parse_string(&s, "<t>", src, false);
	if (!s.nerrors)
		sema_run(&s, &f, 1, &prog);
	stderr = saved;
	rewind(err);
	fread(text, 1, 4095, err);
	fclose(err);
	*nerrors = s.nerrors;
	session_free(&s);
	return text;
}

int main(void)
{
	static const struct backend *const both[] = {
		&no_timer_backend, &any_backend, NULL
	};
	static const struct backend *const alone[] = {
		&no_timer_backend, NULL
	};
	const char *src = "probe begin { print(1) }\n"
			  "probe end, timer.s(1), timer.ms(5) { print(1) }\n";
	int n;
	char *text;

	/* each derived probe asked; one error per refused point */
	asked = 0;
	text = elaborate(&no_timer_backend, both, src, &n);
	CHECK(asked == 4);
	CHECK(n == 2);
	CHECK_STR(text,
		  "<t>:2:12: error: the notimer backend cannot run probe "
		  "timer.s(1): it has no timers (the any backend can: "
		  "--runtime=any)\n"
		  "probe end, timer.s(1), timer.ms(5) { print(1) }\n"
		  "           ^\n"
		  "<t>:2:24: error: the notimer backend cannot run probe "
		  "timer.ms(5): it has no timers (the any backend can: "
		  "--runtime=any)\n"
		  "probe end, timer.s(1), timer.ms(5) { print(1) }\n"
		  "                       ^\n");
	free(text);

	/* no other backend built in: no advice */
	text = elaborate(&no_timer_backend, alone,
			 "probe timer.s(1) { print(1) }\n", &n);
	CHECK(n == 1);
	CHECK_STR(text,
		  "<t>:1:7: error: the notimer backend cannot run probe "
		  "timer.s(1): it has no timers\n"
		  "probe timer.s(1) { print(1) }\n"
		  "      ^\n");
	free(text);

	/* a backend without the hook, or none chosen: no check */
	text = elaborate(&any_backend, both, src, &n);
	CHECK(n == 0 && !*text);
	free(text);
	text = elaborate(NULL, NULL, src, &n);
	CHECK(n == 0 && !*text);
	free(text);
	return CHECK_DONE();
}
