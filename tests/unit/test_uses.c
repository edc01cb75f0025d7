// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a body uses at run time (semantic/uses.h), found on the elaborated
 * program: a body's own facts, and those it reaches through the script
 * functions it calls, at any depth and through recursion; a folded
 * @defined's dead branch and a histogram's buckets count for nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parser/parser.h"
#include "semantic/semantic.h"
#include "semantic/uses.h"

static struct session s;
static struct program prog;

/* Passes 1 and 2 over src; the number of errors. */
static int elaborate(const char *src)
{
	session_init(&s);
	struct ast_file *f = parse_string(&s, "<t>", src, false);
	if (!s.nerrors)
		sema_run(&s, &f, 1, &prog);
	return s.nerrors;
}

/* The probe body whose first statement is on line `line`. */
static const struct probe_body *probe_at(int line)
{
	for (int i = 0; i < prog.nbodies; i++)
		if (prog.bodies[i]->user_probe->loc.line == line)
			return prog.bodies[i];
	return NULL;
}

static const struct probe_body *func(const char *name)
{
	for (int i = 0; i < prog.nfuncs; i++)
		if (!strcmp(prog.funcs[i]->sym->name, name))
			return prog.funcs[i]->scope;
	return NULL;
}

int main(void)
{
	const char *src =
		"global h\n"
		"function deep(s) { return s =~ \"^x\" }\n"
		"function mid(s) { return deep(s) + 1 }\n"
		"function top(s) { return mid(s) * 2 }\n"
		"function rec(n) { if (n > 0) return rec(n - 1); return 7 / n }\n"
		"probe begin { print(top(\"y\")) }\n"		/* 6 */
		"probe end { print(rec(3)) }\n"			/* 7 */
		"probe timer.s(1) { h <<< 1; foreach (b in @hist_log(h)) "
		"print(b) }\n"					/* 8 */
		"probe timer.s(2) { exit() }\n";		/* 9 */
	const struct probe_body *b;

	CHECK(elaborate(src) == 0);

	/* =~ two calls down: begin's own code only calls and prints */
	b = probe_at(6);
	CHECK(b != NULL);
	if (b) {
		CHECK(b->uses & USES_CALL);
		CHECK(b->uses & USES_PRINT);
		CHECK(!(b->uses & USES_MATCH));
		CHECK(b->uses_reached & USES_MATCH);
		CHECK(b->uses_reached & USES_PRINT);
	}
	CHECK(func("deep") && (func("deep")->uses & USES_MATCH));
	CHECK(func("mid") && !(func("mid")->uses & USES_MATCH) &&
	      (func("mid")->uses_reached & USES_MATCH));
	CHECK(func("top") && (func("top")->uses_reached & USES_MATCH) &&
	      !(func("top")->uses_reached & USES_PRINT));

	/* recursion: its division's error reaches the caller */
	b = probe_at(7);
	CHECK(b && !(b->uses & USES_FAIL) && (b->uses_reached & USES_FAIL));
	CHECK(func("rec") && (func("rec")->uses & USES_FAIL) &&
	      (func("rec")->uses & USES_LEAVE));

	/* a histogram's buckets are counted, no array iterated */
	b = probe_at(8);
	CHECK(b && !(b->uses & USES_FOREACH) && (b->uses & USES_PRINT) &&
	      !(b->uses & USES_CALL));

	b = probe_at(9);
	CHECK(b && b->uses == USES_EXIT && b->uses_reached == USES_EXIT);
	session_free(&s);

	/* a folded @defined's dead branch is no code */
	CHECK(elaborate("probe begin { if (@defined($nothing)) "
			"println(1) else exit() }\n") == 0);
	b = probe_at(1);
	CHECK(b && b->uses == USES_EXIT);
	session_free(&s);
	return CHECK_DONE();
}
