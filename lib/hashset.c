// SPDX-License-Identifier: GPL-2.0-or-later
/* A set of 64-bit hashes; see hashset.h. */
#include "lib/hashset.h"
#include "lib/arena.h"

#include <stdlib.h>

static void hashset_grow(struct hashset *set)
{
	size_t cap = set->cap ? 2 * set->cap : 8;
	uint64_t *slot = set->arena ?
			 arena_alloc(set->arena, cap * sizeof(*slot)) :
			 xmalloc(cap * sizeof(*slot));

	for (size_t i = 0; i < cap; i++)
		slot[i] = 0;
	for (size_t i = 0; i < set->cap; i++) {
		size_t j = set->slot[i] & (cap - 1);

		if (!set->slot[i])
			continue;
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = set->slot[i];
	}
	if (!set->arena)
		free(set->slot);
	set->slot = slot;
	set->cap = cap;
}

bool hashset_add(struct hashset *set, uint64_t h)
{
	size_t i;

	if (!h)
		h = 1;
	if (2 * (set->n + 1) > set->cap)
		hashset_grow(set);
	for (i = h & (set->cap - 1); set->slot[i]; i = (i + 1) & (set->cap - 1))
		if (set->slot[i] == h)
			return false;
	set->slot[i] = h;
	set->n++;
	return true;
}

bool hashset_has(const struct hashset *set, uint64_t h)
{
	if (!h)
		h = 1;
	if (!set->cap)
		return false;
	for (size_t i = h & (set->cap - 1); set->slot[i];
	     i = (i + 1) & (set->cap - 1))
		if (set->slot[i] == h)
			return true;
	return false;
}

void hashset_free(struct hashset *set)
{
	if (!set->arena)
		free(set->slot);
	set->slot = NULL;
	set->n = set->cap = 0;
}
