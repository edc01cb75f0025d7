// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Flame graphs, the model: folded stack lines into a tree of frames, and
 * the tree's geometry (flame.h says what the input is). flame_svg.c writes
 * the picture.
 *
 * Invariants: a node's samples are the sum of its stacks' counts, so a
 * parent holds at least the sum of its children; the root "all" holds the
 * total. A frame's children are a list, and past FLAME_LIST of them also
 * a hash table of their own, so reading is linear in the input whatever
 * the fan-out, and a new frame under a narrow parent costs no probe of a
 * large table (most frames of a big input are new and narrow); after
 * flame_layout() each parent's children are in name order and lie side by
 * side from the parent's start. Memory is the distinct frames and one line
 * buffer of at most FLAME_MAX_LINE bytes.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame_internal.h"

#define TRUNCATED "[truncated]"
#define FLAME_LIST 4	/* children found by a scan; more: a table */

static struct flame_node *new_node(struct flame *f, struct flame_node *parent,
				   const char *name, size_t len)
{
	struct flame_node *n = arena_alloc(&f->arena, sizeof(*n));

	n->name = arena_strndup(&f->arena, name, len);
	n->len = len;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 0;
	f->nodes++;
	return n;
}

struct flame *flame_new(void)
{
	struct flame *f = xmalloc(sizeof(*f));

	memset(f, 0, sizeof(*f));
	f->root = new_node(f, NULL, "all", 3);
	return f;
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	arena_free(&f->arena);
	free(f);
}

/* p's table slot of name: the child's, or the empty one it would take. */
static struct flame_node **kid_slot(const struct flame_node *p,
				    const char *name, size_t len)
{
	size_t mask = p->kcap - 1;
	size_t i = (size_t)flame_hash(FNV_OFFSET, name, len) & mask;
	struct flame_node *n;

	while ((n = p->kids[i]) &&
	       (n->len != len || memcmp(n->name, name, len) != 0))
		i = (i + 1) & mask;
	return &p->kids[i];
}

/* A new table for p's children, twice the old one's size (or 16). */
static void index_kids(struct flame *f, struct flame_node *p)
{
	p->kcap = p->kcap ? 2 * p->kcap : 16;
	/* the old table stays in the arena: all of them together take at
	   most as much again as the last */
	p->kids = arena_alloc(&f->arena, p->kcap * sizeof(*p->kids));
	for (struct flame_node *c = p->child; c; c = c->next)
		*kid_slot(p, c->name, c->len) = c;
}

static struct flame_node *find(const struct flame_node *p, const char *name,
			       size_t len)
{
	if (p->kids)
		return *kid_slot(p, name, len);
	for (struct flame_node *n = p->child; n; n = n->next)
		if (n->len == len && memcmp(n->name, name, len) == 0)
			return n;
	return NULL;
}

static struct flame_node *child(struct flame *f, struct flame_node *p,
				const char *name, size_t len)
{
	struct flame_node *n = find(p, name, len);

	if (n)
		return n;
	n = new_node(f, p, name, len);
	/* prepended: flame_layout() sorts them */
	n->next = p->child;
	p->child = n;
	p->nchild++;
	if (p->kids && 2 * p->nchild <= p->kcap)
		*kid_slot(p, name, len) = n;
	else if (p->nchild > FLAME_LIST)
		index_kids(f, p);
	return n;
}

/*
 * The child of parent named name, at index k of the current stack (parent
 * is the stack's frame k - 1, or the root): the previous stack's frame k
 * when the stacks agree so far, else found by name.
 */
static struct flame_node *step(struct flame *f, struct flame_node *parent,
			       int k, const char *name, size_t len)
{
	struct flame_node *n = k < f->nlast ? f->last[k] : NULL;

	if (!n || n->parent != parent || n->len != len ||
	    memcmp(n->name, name, len) != 0) {
		n = child(f, parent, name, len);
		f->last[k] = n;
		/* what follows in the last stack hangs off another node */
		f->nlast = k + 1;
	}
	return n;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int malformed(struct flame *f)
{
	f->skipped++;
	return -1;
}

int flame_add_line(struct flame *f, const char *line, size_t len)
{
	size_t end = len, digits, stack_len, nframes = 0, kept, pos;
	unsigned long long count = 0;
	struct flame_node *n = f->root;

	/* names are C strings; a NUL is never part of a real symbol */
	if (memchr(line, '\0', len))
		return malformed(f);
	while (end > 0 && (is_blank(line[end - 1]) || line[end - 1] == '\r'))
		end--;
	if (end == 0)
		return 1;

	/* the count: digits after the last blank */
	digits = end;
	while (digits > 0 && line[digits - 1] >= '0' && line[digits - 1] <= '9')
		digits--;
	if (digits == end || digits == 0 || !is_blank(line[digits - 1]))
		return malformed(f);
	for (size_t i = digits; i < end; i++) {
		unsigned int d = (unsigned int)(line[i] - '0');

		if (count > (ULLONG_MAX - d) / 10)
			return malformed(f);
		count = count * 10 + d;
	}
	/* the total must stay exact: every node's samples are below it */
	if (count == 0 || f->root->samples > ULLONG_MAX - count)
		return malformed(f);

	stack_len = digits - 1;
	while (stack_len > 0 && is_blank(line[stack_len - 1]))
		stack_len--;
	/* empty frames (";;", a leading ';') are not frames */
	for (size_t i = 0; i < stack_len; i++)
		if (line[i] != ';' && (i == 0 || line[i - 1] == ';'))
			nframes++;
	if (nframes == 0)
		return malformed(f);

	/* past the limit, the outermost frames stay and a marker ends it */
	kept = nframes;
	if (nframes > FLAME_MAX_DEPTH) {
		kept = FLAME_MAX_DEPTH - 1;
		f->truncated++;
	}
	pos = 0;
	for (size_t k = 0; k < kept; k++) {
		size_t start, stop;

		while (line[pos] == ';')
			pos++;
		start = pos;
		while (pos < stack_len && line[pos] != ';')
			pos++;
		stop = pos;
		n = step(f, n, (int)k, line + start, stop - start);
		n->samples += count;
	}
	if (kept < nframes) {
		n = step(f, n, (int)kept, TRUNCATED, strlen(TRUNCATED));
		n->samples += count;
		kept++;
	}
	f->nlast = (int)kept;
	f->root->samples += count;
	f->stacks++;
	return 0;
}

/* One line read (too_long: it went past FLAME_MAX_LINE). */
static void line_end(struct flame *f, const char *buf, size_t len,
		     int too_long)
{
	if (too_long)
		f->skipped++;
	else
		flame_add_line(f, buf, len);
}

int flame_read(struct flame *f, FILE *in)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	int too_long = 0, c, rc;

	while ((c = getc_unlocked(in)) != EOF) {
		if (c == '\n') {
			line_end(f, buf, len, too_long);
			len = 0;
			too_long = 0;
			continue;
		}
		if (too_long)
			continue;
		if (len == FLAME_MAX_LINE) {
			/* the rest is read and dropped, never stored */
			too_long = 1;
			continue;
		}
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		buf[len++] = (char)c;
	}
	if (len > 0 || too_long)
		line_end(f, buf, len, too_long);
	rc = ferror(in) ? -1 : 0;
	free(buf);
	return rc;
}

void flame_stats(const struct flame *f, struct flame_result *res)
{
	res->stacks = f->stacks;
	res->skipped = f->skipped;
	res->truncated = f->truncated;
	res->samples = f->root->samples;
	res->frames = f->nodes;
	res->drawn = f->drawn;
}

int flame_check_options(const struct flame_options *in,
			struct flame_options *out, char *err, size_t errlen)
{
	static const struct flame_options none;

	*out = in ? *in : none;
	if (!out->title)
		out->title = "Flame Graph";
	if (out->width == 0)
		out->width = FLAME_WIDTH;
	if (out->frame_height == 0)
		out->frame_height = FLAME_FRAME_HEIGHT;
	if (out->min_width == 0)
		out->min_width = FLAME_MIN_WIDTH;
	if (out->width < 2 * FLAME_XPAD + 10 || out->width > 1000000) {
		snprintf(err, errlen, "width %d: must be %d to 1000000 pixels",
			 out->width, 2 * FLAME_XPAD + 10);
		return -1;
	}
	if (out->frame_height < 2 || out->frame_height > 1000) {
		snprintf(err, errlen,
			 "frame height %d: must be 2 to 1000 pixels",
			 out->frame_height);
		return -1;
	}
	/* also refuses NaN */
	if (!(out->min_width > 0 && out->min_width <= out->width)) {
		snprintf(err, errlen,
			 "minimum width %g: must be above 0 and at most the width",
			 out->min_width);
		return -1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct flame_node *x = *(struct flame_node *const *)a;
	const struct flame_node *y = *(struct flame_node *const *)b;
	size_t len = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, len);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Sort n's children, give them their starts, count what is drawn. The
 * recursion is at most FLAME_MAX_DEPTH + 1 deep; *scratch is reused, since
 * a level is done with it before going down.
 */
static void lay(struct flame *f, struct flame_node *n,
		struct flame_node ***scratch, size_t *cap)
{
	size_t k = 0;
	unsigned long long start = n->start;

	if (n->samples * f->scale >= f->opt.min_width) {
		f->drawn++;
		if (n->depth + 1 > f->rows)
			f->rows = n->depth + 1;
	}
	if (!n->child)
		return;
	if (!n->child->next) {	/* one child: the common case deep down */
		n->child->start = start;
		lay(f, n->child, scratch, cap);
		return;
	}
	for (struct flame_node *c = n->child; c; c = c->next) {
		VEC_GROW(*scratch, k, *cap);
		(*scratch)[k++] = c;
	}
	qsort(*scratch, k, sizeof(**scratch), by_name);
	for (size_t i = 0; i < k; i++) {
		struct flame_node *c = (*scratch)[i];

		c->next = i + 1 < k ? (*scratch)[i + 1] : NULL;
		c->start = start;
		start += c->samples;
	}
	n->child = (*scratch)[0];
	for (struct flame_node *c = n->child; c; c = c->next)
		lay(f, c, scratch, cap);
}

void flame_layout(struct flame *f, const struct flame_options *opt)
{
	struct flame_node **scratch = NULL;
	size_t cap = 0;

	f->opt = *opt;
	f->scale = f->root->samples ?
		(double)(opt->width - 2 * FLAME_XPAD) / (double)f->root->samples :
		0;
	f->rows = 0;
	f->drawn = 0;
	if (f->root->samples)
		lay(f, f->root, &scratch, &cap);
	free(scratch);
	/* a line under the title says what was skipped or cut */
	f->top = FLAME_TOP + (f->skipped || f->truncated ? FLAME_NOTE : 0);
	f->laid_out = true;
}

const struct flame_node *flame_root(const struct flame *f)
{
	return f->root;
}

const struct flame_node *flame_lookup(const struct flame *f,
				      const char *path)
{
	const struct flame_node *n = f->root;

	while (n && *path) {
		size_t len = strcspn(path, ";");

		n = find(n, path, len);
		path += len;
		if (*path == ';')
			path++;
	}
	return n;
}

void flame_box(const struct flame *f, const struct flame_node *n,
	       struct flame_box *box)
{
	int row = f->opt.icicle ? n->depth : f->rows - 1 - n->depth;

	box->x = FLAME_XPAD + (double)n->start * f->scale;
	box->width = (double)n->samples * f->scale;
	box->y = f->top + row * f->opt.frame_height;
	box->drawn = f->root->samples && box->width >= f->opt.min_width;
}

int flame_render(FILE *folded, FILE *svg, const struct flame_options *opt,
		 struct flame_result *res)
{
	struct flame_result dummy;
	struct flame_options o;
	struct flame *f;
	int rc = 0;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (flame_check_options(opt, &o, res->error, sizeof(res->error)))
		return -1;
	f = flame_new();
	if (flame_read(f, folded)) {
		snprintf(res->error, sizeof(res->error),
			 "reading the stacks: %s", strerror(errno));
		rc = -1;
	} else {
		flame_layout(f, &o);
		if (flame_write_svg(f, svg)) {
			snprintf(res->error, sizeof(res->error),
				 "writing the SVG: %s", strerror(errno));
			rc = -1;
		}
	}
	flame_stats(f, res);
	flame_free(f);
	return rc;
}
