// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flame graph renderer (flame/flame.h): folded lines into the tree
 * (merging, what is malformed, depth and line limits), the geometry of the
 * boxes, and the escaping of the SVG.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"
#include "tests/unit/check.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

static struct flame *from(const char *text, const struct flame_options *in)
{
	struct flame *f = flame_new();
	struct flame_options opt;
	char err[128];
	FILE *fp = fmemopen((void *)text, strlen(text), "r");

	CHECK(fp != NULL);
	CHECK(flame_read(f, fp) == 0);
	fclose(fp);
	CHECK(flame_check_options(in, &opt, err, sizeof(err)) == 0);
	flame_layout(f, &opt);
	return f;
}

static unsigned long long samples(const struct flame *f, const char *path)
{
	const struct flame_node *n = flame_lookup(f, path);

	return n ? n->samples : 0;
}

/* The SVG of text, malloc'ed. */
static char *svg_of(const char *text, const struct flame_options *opt,
		    struct flame_result *res)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK(flame_render(in, out, opt, res) == 0);
	fclose(in);
	fclose(out);
	return buf;
}

/* The brief's example: widths 4/4, 3/4, 1/4 of the graph. */
static void test_geometry(void)
{
	struct flame *f = from("a;b 3\na;c 1\n", NULL);
	const struct flame_node *a = flame_lookup(f, "a");
	const struct flame_node *b = flame_lookup(f, "a;b");
	const struct flame_node *c = flame_lookup(f, "a;c");
	struct flame_box ba, bb, bc, broot;
	struct flame_result res;

	CHECK(a && b && c);
	if (!a || !b || !c)
		return;
	CHECK(flame_root(f)->samples == 4);
	CHECK(a->samples == 4 && b->samples == 3 && c->samples == 1);
	CHECK(a->depth == 1 && b->depth == 2 && c->depth == 2);
	CHECK(b->start == 0 && c->start == 3);
	flame_box(f, flame_root(f), &broot);
	flame_box(f, a, &ba);
	flame_box(f, b, &bb);
	flame_box(f, c, &bc);
	/* 1200 pixels less two margins of 10 */
	CHECK(NEAR(broot.x, 10) && NEAR(broot.width, 1180));
	CHECK(NEAR(ba.x, 10) && NEAR(ba.width, 1180));
	CHECK(NEAR(bb.x, 10) && NEAR(bb.width, 885));
	CHECK(NEAR(bc.x, 895) && NEAR(bc.width, 295));
	CHECK(ba.drawn && bb.drawn && bc.drawn);
	/* the root at the bottom, one row of 16 pixels per depth */
	CHECK(NEAR(broot.y - ba.y, 16) && NEAR(ba.y - bb.y, 16));
	CHECK(NEAR(bb.y, bc.y));
	flame_stats(f, &res);
	CHECK(res.stacks == 2 && res.skipped == 0 && res.frames == 4);
	CHECK(res.samples == 4 && res.drawn == 4);
	flame_free(f);

	/* icicle: the root on the first row */
	struct flame_options opt = { .icicle = true, .frame_height = 20 };
	f = from("a;b 3\na;c 1\n", &opt);
	flame_box(f, flame_root(f), &broot);
	flame_box(f, flame_lookup(f, "a;b"), &bb);
	CHECK(NEAR(bb.y - broot.y, 40));
	flame_free(f);
}

static void test_merge_and_order(void)
{
	struct flame *f = from("a;b 2\nz 1\na;b 5\na 1\n\n", NULL);
	const struct flame_node *root = flame_root(f);
	struct flame_result res;

	CHECK(samples(f, "a;b") == 7);
	CHECK(samples(f, "a") == 8);
	CHECK(root->samples == 9);
	/* children in name order, side by side */
	CHECK(root->child && strcmp(root->child->name, "a") == 0);
	CHECK(flame_lookup(f, "z") && flame_lookup(f, "z")->start == 8);
	flame_stats(f, &res);
	CHECK(res.stacks == 4 && res.skipped == 0 && res.frames == 4);
	flame_free(f);
}

static void test_lines(void)
{
	struct flame *f = flame_new();
	struct flame_result res;
	static const char nul[] = "a\0b 3";
	char big[64];

	/* frames keep blanks and punctuation; tabs and CRs around the count */
	CHECK(flame_add_line(f, "main;do thing (x) 2", 19) == 0);
	CHECK(samples(f, "main;do thing (x)") == 2);
	CHECK(flame_add_line(f, "t;u\t3\r", 6) == 0);
	CHECK(samples(f, "t;u") == 3);
	CHECK(flame_add_line(f, "p;;q;  4  ", 10) == 0);
	CHECK(samples(f, "p;q") == 4);
	CHECK(flame_add_line(f, "", 0) == 1);
	CHECK(flame_add_line(f, " \t\r", 3) == 1);
	/* malformed: no count, count alone, glued, zero, sign, no frames */
	CHECK(flame_add_line(f, "a;b", 3) == -1);
	CHECK(flame_add_line(f, "3", 1) == -1);
	CHECK(flame_add_line(f, " 3", 2) == -1);
	CHECK(flame_add_line(f, "a;b3", 4) == -1);
	CHECK(flame_add_line(f, "a;b 0", 5) == -1);
	CHECK(flame_add_line(f, "a;b -1", 6) == -1);
	CHECK(flame_add_line(f, "a;b 1.5", 7) == -1);
	CHECK(flame_add_line(f, ";; 4", 4) == -1);
	CHECK(flame_add_line(f, nul, sizeof(nul) - 1) == -1);
	snprintf(big, sizeof(big), "a %s", "123456789012345678901234567890");
	CHECK(flame_add_line(f, big, strlen(big)) == -1);
	flame_stats(f, &res);
	CHECK(res.stacks == 3 && res.skipped == 10);
	flame_free(f);

	/* the total never wraps */
	f = flame_new();
	CHECK(flame_add_line(f, "x 18446744073709551000", 22) == 0);
	CHECK(flame_add_line(f, "y 1000", 6) == -1);
	CHECK(flame_root(f)->samples == 18446744073709551000ULL);
	flame_free(f);
}

/* Deeper than FLAME_MAX_DEPTH: the outer frames and a marker. */
static void test_depth(void)
{
	size_t cap = 3 * 2000 + 16, len = 0;
	char *line = malloc(cap), *path = malloc(cap);
	struct flame *f = flame_new();
	const struct flame_node *n;
	struct flame_result res;

	for (int i = 0; i < 2000; i++)
		len += (size_t)snprintf(line + len, cap - len, "%sf", i ? ";" : "");
	len += (size_t)snprintf(line + len, cap - len, " 5");
	CHECK(flame_add_line(f, line, len) == 0);
	len = 0;
	for (int i = 0; i < FLAME_MAX_DEPTH - 1; i++)
		len += (size_t)snprintf(path + len, cap - len, "f;");
	snprintf(path + len, cap - len, "[truncated]");
	n = flame_lookup(f, path);
	CHECK(n && n->depth == FLAME_MAX_DEPTH && n->samples == 5 && !n->child);
	flame_stats(f, &res);
	CHECK(res.truncated == 1 && res.stacks == 1);
	flame_free(f);
	free(line);
	free(path);
}

/* A line past FLAME_MAX_LINE is skipped whole; the next one is read. */
static void test_long_line(void)
{
	size_t n = FLAME_MAX_LINE + 100;
	char *text = malloc(n + 64);
	struct flame *f = flame_new();
	struct flame_result res;
	FILE *fp;

	memset(text, 'x', n);
	strcpy(text + n, " 1\nok 2\nlast 3");	/* no final newline */
	fp = fmemopen(text, strlen(text), "r");
	CHECK(flame_read(f, fp) == 0);
	fclose(fp);
	flame_stats(f, &res);
	CHECK(res.skipped == 1 && res.stacks == 2);
	CHECK(samples(f, "ok") == 2 && samples(f, "last") == 3);
	flame_free(f);
	free(text);
}

static void test_min_width(void)
{
	struct flame *f = from("a 1\nb 100000\n", NULL);
	struct flame_box box;
	struct flame_result res;

	flame_box(f, flame_lookup(f, "a"), &box);
	CHECK(!box.drawn && box.width < 0.1);
	flame_box(f, flame_lookup(f, "b"), &box);
	CHECK(box.drawn);
	flame_stats(f, &res);
	CHECK(res.drawn == 2 && res.samples == 100001);
	flame_free(f);
}

static void test_svg(void)
{
	struct flame_options opt = { .title = "T <&> \"q\" 'a'" };
	struct flame_result res;
	char *s;

	s = svg_of("main;operator<<(a&b) 3\nmain;\"quoted\" 'x' 1\n"
		   "main;bad\xff\x01utf8 \xc3\xa9t\xc3\xa9 1\n"
		   "main;sys_read_[k] 1\nnot a stack\n", &opt, &res);
	CHECK(res.skipped == 1 && res.stacks == 4);
	CHECK(strstr(s, "<text id=\"title\" x=\"600\" y=\"24\" "
		     "text-anchor=\"middle\">T &lt;&amp;&gt; &quot;q&quot; "
		     "&apos;a&apos;</text>") != NULL);
	CHECK(strstr(s, "<title>operator&lt;&lt;(a&amp;b) (3 samples, "
		     "50.00%)</title>") != NULL);
	CHECK(strstr(s, "<title>&quot;quoted&quot; &apos;x&apos; (1 sample, "
		     "16.67%)</title>") != NULL);
	/* a stray byte and a control character: U+FFFD; real UTF-8 kept */
	CHECK(strstr(s, "bad&#xFFFD;&#xFFFD;utf8 \xc3\xa9t\xc3\xa9 (1 sample")
	      != NULL);
	CHECK(strstr(s, "<title>all (6 samples, 100.00%)</title>") != NULL);
	CHECK(strstr(s, "1 malformed line skipped") != NULL);
	CHECK(strstr(s, "operator<<") == NULL);
	CHECK(strstr(s, "data-o=\"0\" data-s=\"6\"") != NULL);
	free(s);

	/* nothing to draw: still a picture, saying so */
	s = svg_of("\n\n", NULL, &res);
	CHECK(res.samples == 0 && res.drawn == 0);
	CHECK(strstr(s, "No stack samples") != NULL);
	CHECK(strstr(s, "</svg>\n") != NULL);
	free(s);
}

static void test_options(void)
{
	struct flame_options opt = { .width = 5 };
	struct flame_result res;
	FILE *in = fmemopen("a 1\n", 4, "r");

	CHECK(flame_render(in, stdout, &opt, &res) == -1);
	CHECK(strstr(res.error, "width 5") != NULL);
	opt = (struct flame_options){ .min_width = -1 };
	CHECK(flame_render(in, stdout, &opt, &res) == -1);
	CHECK(strstr(res.error, "minimum width") != NULL);
	opt = (struct flame_options){ .frame_height = 5000 };
	CHECK(flame_render(in, stdout, &opt, &res) == -1);
	fclose(in);
}

int main(void)
{
	test_geometry();
	test_merge_and_order();
	test_lines();
	test_depth();
	test_long_line();
	test_min_width();
	test_svg();
	test_options();
	return CHECK_DONE();
}
