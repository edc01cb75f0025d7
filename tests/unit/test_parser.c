// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ASSERTION: the lexer's locations, the diagnostic format with its caret,
 * printf format parsing and the -p1 round trip, tested through the library.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "parser/parser.h"
#include "semantic/format.h"
#include "tests/unit/check.h"

/* Capture what fn writes to a FILE. */
static char *unparse(struct session *s, struct ast_file *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ast_unparse_file(out, s, f);
	fclose(out);
	return buf;
}

static void test_locations(void)
{
	struct session s;

	session_init(&s);
	struct ast_file *f = parse_string(&s, "<t>",
		"# comment\nprobe begin {\n\tx = 1 +\n    22\n}\n", false);
	CHECK(s.nerrors == 0);
	struct node *probe = f->decls;
	CHECK(probe && probe->kind == N_PROBE);
	CHECK(probe->loc.line == 2 && probe->loc.col == 1);
	struct node *point = probe->probe.points;
	CHECK(point->loc.line == 2 && point->loc.col == 7);
	struct node *stmt = probe->probe.body->block.stmts;
	CHECK(stmt->kind == N_EXPR_STMT);
	struct node *assign = stmt->stmt.expr;
	CHECK(assign->kind == N_ASSIGN && assign->loc.line == 3 &&
	      assign->loc.col == 4);
	struct node *plus = assign->binary.rhs;
	CHECK(plus->kind == N_BINARY && plus->binary.op == OP_ADD);
	CHECK(plus->binary.rhs->loc.line == 4 && plus->binary.rhs->loc.col == 5);
	CHECK(plus->binary.rhs->num.value == 22);
	session_free(&s);
}

static void test_numbers_and_strings(void)
{
	struct session s;

	session_init(&s);
	struct ast_file *f = parse_string(&s, "<t>",
		"probe begin { a = 0x1f; b = 010; c = 18446744073709551615; "
		"d = \"x\\ty\\\"\\101\\x42\" \"z\" }", false);
	CHECK(s.nerrors == 0);
	struct node *st = f->decls->probe.body->block.stmts;
	CHECK(st->stmt.expr->binary.rhs->num.value == 31);
	CHECK(st->next->stmt.expr->binary.rhs->num.value == 8);
	CHECK(st->next->next->stmt.expr->binary.rhs->num.value == -1);
	CHECK_STR(st->next->next->next->stmt.expr->binary.rhs->str.value,
		  "x\ty\"ABz");
	session_free(&s);
}

static void render(FILE *out, struct session *s, struct srcloc loc,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_render(out, s, loc, "error", fmt, ap);
	va_end(ap);
}

static void test_caret(void)
{
	struct session s;
	char *buf = NULL;
	size_t len = 0;

	session_init(&s);
	session_add_source(&s, "<input>", "probe begin {\n\tx = = 2\n}\n", 25,
			   false);
	FILE *out = open_memstream(&buf, &len);
	render(out, &s, (struct srcloc){ .file = 0, .line = 2, .col = 6 },
	       "expected %s",
	       "an expression");
	fclose(out);
	CHECK_STR(buf, "<input>:2:6: error: expected an expression\n"
		       "\tx = = 2\n"
		       "\t    ^\n");
	free(buf);
	session_free(&s);
}

/* what render() writes for one source text, file name and column */
static char *rendered(const char *name, const char *text, size_t n, int col,
		      const char *msg)
{
	struct session s;
	char *buf = NULL;
	size_t len = 0;

	session_init(&s);
	session_add_source(&s, name, text, n, false);
	FILE *out = open_memstream(&buf, &len);
	render(out, &s, (struct srcloc){ .file = 0, .line = 1, .col = col },
	       "%s", msg);
	fclose(out);
	session_free(&s);
	return buf;
}

/* control bytes (ESC, BEL, DEL, a C1 CSI) are shown as \xNN, the caret
 * still under the byte the column names; tabs kept; UTF-8 one column */
static void test_caret_control(void)
{
	const char text[] = "x = \"\x1b[2J\a\x7f\xc2\x9b\" + \t\xc3\xa9 + ?";
	char *got = rendered("a\x1b]0;t\a.stp", text, sizeof(text) - 1,
			     (int)sizeof(text) - 1, "bad \x1b[31m\n\tsecond");

	CHECK_STR(got, "a\\x1b]0;t\\x07.stp:1:24: error: bad \\x1b[31m\n"
		       "\tsecond\n"
		       "x = \"\\x1b[2J\\x07\\x7f\\xc2\\x9b\" + \t\xc3\xa9 + ?\n"
		       /* 5 + 4 + 3 + 4 + 4 + 8 + 4 columns, the tab, 4 */
		       "                                \t    ^\n");
	free(got);
}

/* a long line: SHOW_COLS (160) columns around the caret, at most 60
 * before it, "..." for each cut; the caret under the same byte */
static void test_caret_long_line(void)
{
	enum { N = 100000 };
	char *text = malloc(N);
	char want[512];

	for (int i = 0; i < N; i++)
		text[i] = (char)('a' + i % 26);
	/* in the middle: cut on both sides */
	char *got = rendered("<t>", text, N, 50001, "e");
	snprintf(want, sizeof(want), "<t>:1:50001: error: e\n...%.*s...\n%*s^\n",
		 160, text + 50000 - 60, 63, "");
	CHECK_STR(got, want);
	free(got);
	/* near the start: no cut before */
	got = rendered("<t>", text, N, 11, "e");
	snprintf(want, sizeof(want), "<t>:1:11: error: e\n%.*s...\n%*s^\n",
		 160, text, 10, "");
	CHECK_STR(got, want);
	free(got);
	/* at the end (past the last byte): no cut after */
	got = rendered("<t>", text, N, N + 1, "e");
	snprintf(want, sizeof(want), "<t>:1:%d: error: e\n...%.*s\n%*s^\n",
		 N + 1, 60, text + N - 60, 63, "");
	CHECK_STR(got, want);
	free(got);
	/* escaped bytes count four columns each */
	memset(text, '\x1b', N);
	got = rendered("<t>", text, N, 1001, "e");
	CHECK(strlen(got) < 1000);
	CHECK(strstr(got, "\n...\\x1b") && strstr(got, "\\x1b...\n"));
	CHECK(strstr(got, "\n   " "                                                            ^\n"));
	free(got);
	/* a message over 2,000 bytes is cut */
	memset(text, 'm', N);
	text[N - 1] = '\0';
	got = rendered("<t>", "x", 1, 1, text);
	CHECK(strlen(got) < 2100 && strstr(got, "mmm...\nx\n^\n"));
	free(got);
	free(text);
}

static void test_syntax_error_recovery(void)
{
	struct session s;

	session_init(&s);
	s.max_errors = 100;
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	parse_string(&s, "<t>",
		"probe begin { if x }\nprobe end { y = }\nprobe begin { ok = 1 }\n",
		false);
	fclose(stderr);
	stderr = saved;
	CHECK(s.nerrors == 2);		/* one per bad probe, then recovery */
	session_free(&s);
}

static void test_format(void)
{
	struct arena a = { 0 };
	struct fmt_piece *p;
	const char *err;
	size_t off;

	int n = format_parse(&a, "x=%-5d|%#010x%%|%s", 18, &p, &err, &off);
	CHECK(n == 6);
	CHECK(!p[0].is_conv && p[0].len == 2);
	CHECK(p[1].is_conv && p[1].conv == 'd' && p[1].flags == FMT_LEFT &&
	      p[1].width == 5);
	CHECK(p[3].conv == 'x' && p[3].flags == FMT_ALT && p[3].width == 10);
	/* "%%" joins the literal run around it */
	CHECK(!p[4].is_conv && p[4].len == 2 && memcmp(p[4].text, "%|", 2) == 0);
	CHECK(p[5].conv == 's');
	CHECK(format_parse(&a, "%-#x", 4, &p, &err, &off) < 0);
	CHECK(format_parse(&a, "%*.*d", 5, &p, &err, &off) == 1 &&
	      format_piece_args(&p[0]) == 3);
	CHECK(format_parse(&a, "abc %", 5, &p, &err, &off) < 0 && off == 4);
	arena_free(&a);
}

static void test_round_trip(void)
{
	const char *src =
		"global a[10], b = -5, c%\n"
		"probe begin, timer.ms(100)?, kernel.trace(\"sched:sched_switch\") {\n"
		"  x = 1 + 2 * 3 - -4 << 2; s = \"a\" . \"b\\n\"\n"
		"  if (x > 0 && !y || z) printf(\"%d\\n\", x) else { while (x < 3) x++ }\n"
		"  for (i = 0; i < 3; i++) { continue }\n"
		"  foreach ([k, v-] in a limit 5) println(k)\n"
		"  try { q = x ? \"y\" : \"n\" } catch (e) { print(e) }\n"
		"  delete a[1, *]; next\n"
		"}\n"
		"function f:long (p:long, q:string) { return p }\n";
	struct session s;

	session_init(&s);
	struct ast_file *f1 = parse_string(&s, "<t>", src, false);
	CHECK(s.nerrors == 0);
	char *once = unparse(&s, f1);
	struct ast_file *f2 = parse_string(&s, "<t>", once, false);
	CHECK(s.nerrors == 0);
	char *twice = unparse(&s, f2);
	CHECK_STR(twice, once);
	free(once);
	free(twice);
	session_free(&s);
}

int main(void)
{
	test_locations();
	test_numbers_and_strings();
	test_caret();
	test_caret_control();
	test_caret_long_line();
	test_syntax_error_recovery();
	test_format();
	test_round_trip();
	return CHECK_DONE();
}
