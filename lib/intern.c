// SPDX-License-Identifier: GPL-2.0-or-later
/* String interning; see intern.h. */
#include "lib/intern.h"
#include "lib/hash.h"

#include <stdlib.h>
#include <string.h>

static void intern_grow(struct intern *t)
{
	size_t ns = t->nslot ? 2 * t->nslot : 1024;
	uint64_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		fatal("out of memory");
	for (int i = 0; i < t->n; i++) {
		size_t h = t->hash[i] & (ns - 1);

		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = (uint64_t)t->hash[i] << 32 | ((uint32_t)i + 1);
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
}

/* The slot of the n bytes at s with hash h: theirs, or the empty one
 * where they would go. */
static size_t lookup(const struct intern *t, const char *s, size_t n,
		     uint32_t h)
{
	size_t i;

	for (i = h & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		const char *c;

		if (t->slot[i] >> 32 != h)
			continue;
		c = t->s[(uint32_t)t->slot[i] - 1];
		if (strncmp(c, s, n) == 0 && c[n] == '\0')
			break;
	}
	return i;
}

int intern_find(const struct intern *t, const char *s, size_t n)
{
	size_t i;

	if (!t->nslot)
		return -1;
	i = lookup(t, s, n, (uint32_t)fnv1a(FNV_OFFSET, s, n));
	return (int)(uint32_t)t->slot[i] - 1;
}

int intern_add(struct intern *t, const char *s, size_t n)
{
	uint32_t h = (uint32_t)fnv1a(FNV_OFFSET, s, n);
	size_t i;

	/* at most half full: probe sequences stay short */
	if ((size_t)(t->n + 1) * 2 > t->nslot)
		intern_grow(t);
	i = lookup(t, s, n, h);
	if (t->slot[i])
		return (int)(uint32_t)t->slot[i] - 1;
	if (t->n >= t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->s = xrealloc(t->s, (size_t)t->cap * sizeof(*t->s));
		t->hash = xrealloc(t->hash, (size_t)t->cap * sizeof(*t->hash));
	}
	t->s[t->n] = arena_strndup(t->arena, s, n);
	t->hash[t->n] = h;
	t->slot[i] = (uint64_t)h << 32 | (uint32_t)++t->n;
	return t->n - 1;
}

void intern_free(struct intern *t)
{
	free(t->s);
	free(t->hash);
	free(t->slot);
	t->s = NULL;
	t->hash = NULL;
	t->slot = NULL;
	t->n = t->cap = 0;
	t->nslot = 0;
}
