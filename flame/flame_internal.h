/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flame graph's tree, shared by flame.c (reading, layout) and
 * flame_svg.c (writing). Nothing else includes it.
 */
#ifndef STAP_FLAME_INTERNAL_H
#define STAP_FLAME_INTERNAL_H

#include <stdint.h>

#include "lib/arena.h"
#include "lib/hash.h"
#include "flame/flame.h"

/* The fixed parts of the picture, in pixels. */
#define FLAME_XPAD	10	/* left and right margins */
#define FLAME_TOP	36	/* title and controls above the rows */
#define FLAME_NOTE	16	/* the note of skipped lines, when any */
#define FLAME_BOTTOM	34	/* the details line below them */
#define FLAME_FONT	12	/* frame labels */
#define FLAME_CHAR	0.59	/* average glyph width per font pixel */

struct flame {
	struct arena arena;		/* nodes and names */
	struct flame_node *root;
	unsigned long nodes;
	/* the previous stack's frames, outermost first: consecutive lines
	   of sorted input share a prefix, found without the table */
	struct flame_node *last[FLAME_MAX_DEPTH];
	int nlast;
	unsigned long stacks, skipped, truncated;
	/* set by flame_layout() */
	struct flame_options opt;	/* defaults filled in */
	double scale;			/* pixels per sample */
	int rows;			/* rows holding a drawn box */
	int top;			/* y of the first row */
	unsigned long drawn;
	bool laid_out;
};

/*
 * FNV-1a of a name, its bits mixed (MurmurHash3's finaliser): FNV's low
 * bits barely move between short names ("a", "b"), and both the table
 * index (flame.c) and the colours (flame_svg.c) are taken from low bits.
 */
static inline uint64_t flame_hash(uint64_t h, const char *name, size_t len)
{
	h = fnv1a(h, name, len);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

#endif /* STAP_FLAME_INTERNAL_H */
