/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A set of 64-bit hashes (of messages, of places): open addressing, at
 * most half full, so a lookup stays O(1) however many there are. 0 is the
 * empty slot; a hash of 0 is stored as 1. Two different keys with the
 * same 64-bit FNV-1a count as one, which the callers accept (they only
 * keep a repeated message from showing twice).
 */
#ifndef LIB_HASHSET_H
#define LIB_HASHSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

struct hashset {
	uint64_t *slot;
	size_t n, cap;		/* cap: a power of two, or 0 */
	struct arena *arena;	/* set: the slots come from it (and go
				 * with it), else from malloc */
};

/* Adds h; false when it was there already. */
bool hashset_add(struct hashset *set, uint64_t h);

/* Whether h is in the set. */
bool hashset_has(const struct hashset *set, uint64_t h);

/* Frees a malloc'd set's slots (nothing for an arena's). */
void hashset_free(struct hashset *set);

#endif /* LIB_HASHSET_H */
