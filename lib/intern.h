/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * String interning: each distinct string gets a dense id (0, 1, 2, ... in
 * the order first seen), so catalogs store small integers and compare
 * strings by id. Open addressing, at most half full; a slot holds the
 * string's hash (FNV-1a, low 32 bits) above id + 1 (0 is empty): a probe
 * compares bytes only when the hashes are equal, and growing never
 * hashes again.
 *
 * Memory: the strings are copied into the caller's arena (they outlive
 * the table); intern_free() releases the table's own arrays only.
 */
#ifndef LIB_INTERN_H
#define LIB_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/arena.h"

struct intern {
	const char **s;		/* s[id]: the string, in arena */
	uint32_t *hash;		/* hash[id]: its hash (low 32 bits) */
	int n, cap;
	uint64_t *slot;		/* hash << 32 | (id + 1) */
	size_t nslot;		/* a power of two */
	struct arena *arena;	/* set by the caller before first use */
};

/* The id of the n bytes at s (no NUL needed), or -1 if not interned. */
int intern_find(const struct intern *t, const char *s, size_t n);

/* The id of the n bytes at s, added when new. */
int intern_add(struct intern *t, const char *s, size_t n);

void intern_free(struct intern *t);

#endif /* LIB_INTERN_H */
