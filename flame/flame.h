/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Flame graphs: folded stacks in, one self-contained interactive SVG out.
 *
 * The input is the folded format flamegraph.pl and speedscope read, one
 * stack a line, outermost frame first:
 *
 *	main;run;read_file 12
 *
 * A stack is the text before the last blank (space or tab), its frames
 * split at ';' (a frame may hold any other character, blanks included);
 * the count after it is a positive decimal integer. Identical stacks are
 * summed. Blank lines are ignored; malformed ones (no count, a bad count,
 * no frame, a NUL byte, longer than FLAME_MAX_LINE) are skipped and
 * counted. A stack deeper than FLAME_MAX_DEPTH keeps its outermost frames
 * and ends in a "[truncated]" frame.
 *
 * The stacks become a tree (flame.c) under a root frame "all"; each frame
 * is a box whose width is proportional to its samples, one row per depth,
 * the root at the bottom (or at the top: icicle order). flame_svg.c writes
 * it with a small script of our own: hover details, click to zoom, search.
 *
 * stap/stapflame.c is the command-line front end; the driver calls
 * flame_render() for `stap --flame`.
 */
#ifndef STAP_FLAME_H
#define STAP_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define FLAME_WIDTH		1200	/* default image width, pixels */
#define FLAME_FRAME_HEIGHT	16	/* default row height, pixels */
#define FLAME_MIN_WIDTH		0.1	/* default: narrower boxes not drawn */
#define FLAME_MAX_DEPTH		1024	/* frames kept per stack */
#define FLAME_MAX_LINE		(1 << 20)	/* longer lines are malformed */

struct flame_options {
	const char *title;	/* NULL: "Flame Graph" */
	int width;		/* image width in pixels; 0: FLAME_WIDTH */
	int frame_height;	/* row height in pixels; 0: FLAME_FRAME_HEIGHT */
	double min_width;	/* boxes narrower (pixels) are not drawn but
				   still count in their parents; 0: default */
	bool icicle;		/* root at the top, stacks growing down */
};

/* What flame_render() read and drew. */
struct flame_result {
	unsigned long stacks;		/* lines read as stacks */
	unsigned long skipped;		/* malformed lines (not blank ones) */
	unsigned long truncated;	/* stacks cut at FLAME_MAX_DEPTH */
	unsigned long long samples;	/* their total count */
	unsigned long frames;		/* distinct frames, "all" included */
	unsigned long drawn;		/* boxes in the SVG */
	char error[256];		/* why flame_render() returned -1 */
};

/*
 * Read folded stacks from @folded and write the SVG to @svg. Returns 0, or
 * -1 with the reason in res->error (bad options, a read or write error).
 * An input without any stack still gives a valid SVG saying so (0, with
 * res->samples == 0). @res may be NULL.
 */
int flame_render(FILE *folded, FILE *svg, const struct flame_options *opt,
		 struct flame_result *res);

/*
 * The steps of flame_render(), for the unit tests and for callers that
 * build the stacks themselves.
 */
struct flame_node {
	const char *name;		/* NUL-terminated */
	size_t len;
	int depth;			/* "all" is 0, outermost frames 1 */
	unsigned long long samples;	/* this frame and everything above it */
	unsigned long long start;	/* samples left of it (flame_layout) */
	struct flame_node *parent, *child, *next;	/* children sorted by
							   name after layout */
	/* with many children, also a hash table of them (flame.c) */
	struct flame_node **kids;
	unsigned int nchild, kcap;
};

struct flame;

struct flame *flame_new(void);
void flame_free(struct flame *f);

/*
 * One input line of @len bytes (no newline needed): 0 when it was added,
 * 1 when blank, -1 when malformed (then it is counted as skipped).
 */
int flame_add_line(struct flame *f, const char *line, size_t len);

/* Every line of @in; -1 on a read error (errno set). */
int flame_read(struct flame *f, FILE *in);

/* Counts so far (error[] untouched). */
void flame_stats(const struct flame *f, struct flame_result *res);

/*
 * Sort the children by name, give each frame its start, and fix the rows
 * for @opt (which must have passed flame_check_options). Call once, after
 * the last line.
 */
void flame_layout(struct flame *f, const struct flame_options *opt);

/* Options with the defaults filled in; -1 and a message when invalid. */
int flame_check_options(const struct flame_options *in,
			struct flame_options *out, char *err, size_t errlen);

const struct flame_node *flame_root(const struct flame *f);

/* The frame at path "a;b;c" from the root's children, or NULL. */
const struct flame_node *flame_lookup(const struct flame *f,
				      const char *path);

/* Where a frame's box goes (after flame_layout), in pixels. */
struct flame_box {
	double x, y, width;
	bool drawn;		/* width >= the minimum width */
};

void flame_box(const struct flame *f, const struct flame_node *n,
	       struct flame_box *box);

/* Write the SVG of a laid-out tree; -1 on a write error. */
int flame_write_svg(const struct flame *f, FILE *svg);

#endif /* STAP_FLAME_H */
