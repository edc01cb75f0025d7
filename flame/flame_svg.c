// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Flame graphs, the picture: a laid-out tree (flame.c) as one SVG file
 * with its own style and script, nothing fetched.
 *
 * Each drawn frame is
 *
 *	<g class="f" data-o="START" data-s="SAMPLES"><title>NAME (N samples,
 *	P%)</title><rect .../><text ...>LABEL</text></g>
 *
 * in depth-first order, the root first. The script works from data-o and
 * data-s (exact sample counts), so zooming never compounds the rounding of
 * the pixel attributes. Whatever the input bytes, the file is well-formed
 * XML: markup characters are escaped, and what XML 1.0 cannot carry
 * (control characters, bytes that are not UTF-8) becomes U+FFFD.
 */
#include "config.h"

#include <string.h>

#include "flame/flame_internal.h"

/*
 * The script: hover shows a frame's title in the details line; a click
 * zooms into a frame (its descendants fill the width, its ancestors span
 * it dimmed, the rest hide) and "Reset Zoom" zooms back to the root;
 * "Search" asks for a regular expression, colours the matching frames and
 * shows the share of samples they cover (a match inside another counted
 * once). "#z=I&s=RE" in the URL zooms into the I-th frame and searches on
 * load (links, and the headless browser test). When it is done it sets
 * data-flame-ready on the root element to the number of frames.
 * FLAME (written before it) holds the geometry.
 */
static const char script[] =
	"\"use strict\";\n"
	"(function () {\n"
	"var svg = document.documentElement, frames = [], byG = new WeakMap();\n"
	"var root = null, details, matched, unzoomBtn, searchBtn, searching = false;\n"
	"var FULL = FLAME.width - 2 * FLAME.xpad;\n"
	"\n"
	"/* as much of the name as fits in w pixels (flame_svg.c's rule) */\n"
	"function label(f, w) {\n"
	"\tvar n = Math.floor((w - 6) / (FLAME.font * FLAME.glyph));\n"
	"\tif (n < 3)\n"
	"\t\treturn \"\";\n"
	"\treturn f.name.length <= n ? f.name : f.name.slice(0, n - 2) + \"..\";\n"
	"}\n"
	"\n"
	"function place(f, x, w) {\n"
	"\tf.rect.setAttribute(\"x\", x.toFixed(2));\n"
	"\tf.rect.setAttribute(\"width\", w.toFixed(2));\n"
	"\tf.text.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\tf.text.textContent = label(f, w);\n"
	"}\n"
	"\n"
	"/* f is in f0's row or further from the root */\n"
	"function outward(f, f0) {\n"
	"\treturn FLAME.icicle ? f.y >= f0.y : f.y <= f0.y;\n"
	"}\n"
	"\n"
	"function zoom(f0) {\n"
	"\tvar k = FULL / f0.s;\n"
	"\tframes.forEach(function (f) {\n"
	"\t\tvar inside = f.o >= f0.o && f.o + f.s <= f0.o + f0.s;\n"
	"\t\tvar around = f.o <= f0.o && f.o + f.s >= f0.o + f0.s;\n"
	"\t\tvar show = true;\n"
	"\t\tif (inside && outward(f, f0)) {\n"
	"\t\t\tplace(f, FLAME.xpad + (f.o - f0.o) * k, f.s * k);\n"
	"\t\t\tf.g.classList.remove(\"parent\");\n"
	"\t\t} else if (around && !outward(f, f0)) {\n"
	"\t\t\tplace(f, FLAME.xpad, FULL);\n"
	"\t\t\tf.g.classList.add(\"parent\");\n"
	"\t\t} else {\n"
	"\t\t\tshow = false;\n"
	"\t\t}\n"
	"\t\tf.g.style.display = show ? \"\" : \"none\";\n"
	"\t});\n"
	"\tunzoomBtn.style.visibility = f0 === root ? \"hidden\" : \"visible\";\n"
	"\tsvg.setAttribute(\"data-flame-zoom\", String(f0.i));\n"
	"}\n"
	"\n"
	"function search(re) {\n"
	"\tvar rx, hits = [], sum = 0, end = 0;\n"
	"\tframes.forEach(function (f) { f.rect.setAttribute(\"fill\", f.fill); });\n"
	"\tsearching = false;\n"
	"\tsearchBtn.textContent = \"Search\";\n"
	"\tmatched.textContent = \" \";\n"
	"\tif (!re)\n"
	"\t\treturn;\n"
	"\ttry {\n"
	"\t\trx = new RegExp(re);\n"
	"\t} catch (e) {\n"
	"\t\tmatched.textContent = \"Bad regular expression\";\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tframes.forEach(function (f) {\n"
	"\t\tif (rx.test(f.name)) {\n"
	"\t\t\thits.push(f);\n"
	"\t\t\tf.rect.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
	"\t\t}\n"
	"\t});\n"
	"\t/* by start, outer frames first: a match inside one is skipped */\n"
	"\thits.sort(function (a, b) { return a.o - b.o || b.s - a.s; });\n"
	"\thits.forEach(function (f) {\n"
	"\t\tif (f.o >= end) {\n"
	"\t\t\tsum += f.s;\n"
	"\t\t\tend = f.o + f.s;\n"
	"\t\t}\n"
	"\t});\n"
	"\tsearching = true;\n"
	"\tsearchBtn.textContent = \"Reset Search\";\n"
	"\tmatched.textContent = \"Matched: \" +\n"
	"\t\t(100 * sum / FLAME.total).toFixed(2) + \"%\";\n"
	"}\n"
	"\n"
	"function frameOf(el) {\n"
	"\tvar g = el.closest ? el.closest(\"g.f\") : null;\n"
	"\treturn g ? byG.get(g) : null;\n"
	"}\n"
	"\n"
	"function init() {\n"
	"\tvar gs = svg.querySelectorAll(\"g.f\"), args = {};\n"
	"\tdetails = document.getElementById(\"details\");\n"
	"\tmatched = document.getElementById(\"matched\");\n"
	"\tunzoomBtn = document.getElementById(\"unzoom\");\n"
	"\tsearchBtn = document.getElementById(\"search\");\n"
	"\tfor (var i = 0; i < gs.length; i++) {\n"
	"\t\tvar g = gs[i], r = g.querySelector(\"rect\");\n"
	"\t\tvar title = g.querySelector(\"title\").textContent;\n"
	"\t\tvar f = { i: i, g: g, rect: r, text: g.querySelector(\"text\"),\n"
	"\t\t\ttitle: title, fill: r.getAttribute(\"fill\"),\n"
	"\t\t\tname: title.replace(/ \\(\\d+ samples?, [\\d.]+%\\)$/, \"\"),\n"
	"\t\t\to: Number(g.getAttribute(\"data-o\")),\n"
	"\t\t\ts: Number(g.getAttribute(\"data-s\")),\n"
	"\t\t\ty: Number(r.getAttribute(\"y\")) };\n"
	"\t\tframes.push(f);\n"
	"\t\tbyG.set(g, f);\n"
	"\t}\n"
	"\troot = frames.length ? frames[0] : null;\n"
	"\tsvg.addEventListener(\"mouseover\", function (e) {\n"
	"\t\tvar f = frameOf(e.target);\n"
	"\t\tdetails.textContent = f ? f.title : \" \";\n"
	"\t});\n"
	"\tsvg.addEventListener(\"mouseout\", function () {\n"
	"\t\tdetails.textContent = \" \";\n"
	"\t});\n"
	"\tsvg.addEventListener(\"click\", function (e) {\n"
	"\t\tvar f = frameOf(e.target);\n"
	"\t\tif (f)\n"
	"\t\t\tzoom(f);\n"
	"\t\telse if (e.target === unzoomBtn && root)\n"
	"\t\t\tzoom(root);\n"
	"\t\telse if (e.target === searchBtn)\n"
	"\t\t\tsearch(searching ? \"\" :\n"
	"\t\t\t       window.prompt(\"Search for (regular expression):\", \"\"));\n"
	"\t});\n"
	"\tlocation.hash.slice(1).split(\"&\").forEach(function (kv) {\n"
	"\t\tvar at = kv.indexOf(\"=\");\n"
	"\t\tif (at > 0)\n"
	"\t\t\targs[kv.slice(0, at)] = decodeURIComponent(kv.slice(at + 1));\n"
	"\t});\n"
	"\tif (args.z && frames[Number(args.z)])\n"
	"\t\tzoom(frames[Number(args.z)]);\n"
	"\tif (args.s && root)\n"
	"\t\tsearch(args.s);\n"
	"\tsvg.setAttribute(\"data-flame-ready\", String(frames.length));\n"
	"}\n"
	"\n"
	"window.addEventListener(\"load\", init);\n"
	"})();\n";

static const char style[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; }\n"
	".ctl { cursor: pointer; fill: #1a3f9e; }\n"
	".f { cursor: pointer; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	".parent { opacity: 0.5; }\n";

/*
 * The length of the valid UTF-8 character at p (2 to 4 bytes), or 0 when
 * the bytes there are not one (or are U+FFFE/U+FFFF, which XML refuses).
 * Overlong forms and surrogates are refused by the second byte's range.
 */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && c == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
		return 0;
	return n;
}

/* len bytes as XML character data (attribute-safe too). */
static void put_text(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned char c = *p;
		size_t n;

		if (c >= 0x80) {
			n = utf8_len(p, end);
			if (n) {
				fwrite(p, 1, n, out);
				p += n;
			} else {
				fputs("&#xFFFD;", out);
				p++;
			}
			continue;
		}
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (c < 0x20 && c != '\t')
				fputs("&#xFFFD;", out);
			else
				putc_unlocked(c, out);
		}
		p++;
	}
}

/*
 * How much of a name its box shows: the bytes of the first characters
 * that fit at FLAME_CHAR em each, less two for ".." (*cut) when the whole
 * name does not; 0 when fewer than three would fit. The script's label()
 * applies the same rule after a zoom.
 */
static size_t label_len(const char *name, size_t len, double width,
			bool *cut)
{
	double fit = (width - 6) / (FLAME_FONT * FLAME_CHAR);
	size_t chars = 0, keep, i;

	*cut = false;
	if (fit < 3)
		return 0;
	for (i = 0; i < len; i++)
		if ((name[i] & 0xc0) != 0x80)
			chars++;
	if (chars <= fit)
		return len;
	*cut = true;
	keep = (size_t)fit - 2;
	chars = 0;
	for (i = 0; i < len; i++)
		if ((name[i] & 0xc0) != 0x80 && chars++ == keep)
			break;
	return i;
}

/*
 * A warm colour from the name's hash, so a function keeps its colour from
 * one graph to the next; kernel frames (perf's "_[k]" suffix) in an orange
 * range of their own, the truncation marker grey.
 */
static void colour(const struct flame_node *n, int rgb[3])
{
	uint64_t h = flame_hash(FNV_OFFSET, n->name, n->len);
	double v1, v2, v3;

	v1 = (double)(h & 0xffff) / 0xffff;
	v2 = (double)((h >> 16) & 0xffff) / 0xffff;
	v3 = (double)((h >> 32) & 0xffff) / 0xffff;
	if (strcmp(n->name, "[truncated]") == 0) {
		rgb[0] = rgb[1] = rgb[2] = 170;
	} else if (n->len > 4 && strcmp(n->name + n->len - 4, "_[k]") == 0) {
		rgb[0] = 220 + (int)(35 * v1);
		rgb[1] = 120 + (int)(60 * v2);
		rgb[2] = (int)(40 * v3);
	} else {
		rgb[0] = 205 + (int)(50 * v3);
		rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
	}
}

static void put_frame(const struct flame *f, const struct flame_node *n,
		      FILE *out)
{
	unsigned long long total = f->root->samples;
	struct flame_box b;
	int rgb[3];
	size_t keep;
	bool cut;

	flame_box(f, n, &b);
	colour(n, rgb);
	fprintf(out, "<g class=\"f\" data-o=\"%llu\" data-s=\"%llu\"><title>",
		n->start, n->samples);
	put_text(out, n->name, n->len);
	fprintf(out, " (%llu sample%s, %.2f%%)</title>", n->samples,
		n->samples == 1 ? "" : "s", 100.0 * (double)n->samples /
		(double)total);
	fprintf(out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
		b.x, b.y, b.width, f->opt.frame_height - 1,
		rgb[0], rgb[1], rgb[2]);
	fprintf(out, "<text x=\"%.2f\" y=\"%.0f\">", b.x + 3,
		b.y + f->opt.frame_height - 4);
	keep = label_len(n->name, n->len, b.width, &cut);
	put_text(out, n->name, keep);
	fputs(cut ? "..</text></g>\n" : "</text></g>\n", out);
}

/* Depth first, the root first; a box too narrow hides its subtree. */
static void put_frames(const struct flame *f, const struct flame_node *n,
		       FILE *out)
{
	struct flame_box b;

	flame_box(f, n, &b);
	if (!b.drawn)
		return;
	put_frame(f, n, out);
	for (const struct flame_node *c = n->child; c; c = c->next)
		put_frames(f, c, out);
}

int flame_write_svg(const struct flame *f, FILE *out)
{
	const struct flame_options *o = &f->opt;
	int rows = f->rows ? f->rows : 1;
	int height = f->top + rows * o->frame_height + FLAME_BOTTOM;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		o->width, height, o->width, height);
	fprintf(out, "<style>\n%s</style>\n", style);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var FLAME = { width: %d, xpad: %d, font: %d, glyph: %.2f, "
		"icicle: %s, total: %llu };\n%s]]></script>\n",
		o->width, FLAME_XPAD, FLAME_FONT, FLAME_CHAR,
		o->icicle ? "true" : "false", f->root->samples, script);
	fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
	      "fill=\"#f8f8f0\"/>\n", out);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\" "
		"text-anchor=\"middle\">", o->width / 2);
	put_text(out, o->title, strlen(o->title));
	fputs("</text>\n", out);
	if (f->skipped || f->truncated) {
		fprintf(out, "<text id=\"note\" x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\">", o->width / 2,
			FLAME_TOP + 6);
		if (f->skipped)
			fprintf(out, "%lu malformed line%s skipped%s",
				f->skipped, f->skipped == 1 ? "" : "s",
				f->truncated ? "; " : "");
		if (f->truncated)
			fprintf(out, "%lu stack%s truncated at %d frames",
				f->truncated, f->truncated == 1 ? "" : "s",
				FLAME_MAX_DEPTH);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"unzoom\" class=\"ctl\" x=\"%d\" y=\"24\" "
		"style=\"visibility: hidden\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n",
		FLAME_XPAD, o->width - FLAME_XPAD);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\"> </text>\n",
		FLAME_XPAD, height - 14, o->width - FLAME_XPAD, height - 14);
	if (!f->root->samples)
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			"No stack samples in the input</text>\n",
			o->width / 2, f->top + o->frame_height - 4);
	fputs("<g id=\"frames\">\n", out);
	if (f->root->samples)
		put_frames(f, f->root, out);
	fputs("</g>\n</svg>\n", out);
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
