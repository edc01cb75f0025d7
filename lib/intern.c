// SPDX-License-Identifier: GPL-2.0-or-later
/* String interning; see intern.h. */
#include "lib/intern.h"
#include "lib/hash.h"

#include <stdlib.h>
#include <string.h>

static void intern_grow(struct intern *t)
{
	size_t ns = t->nslot ? 2 * t->nslot : 1024;
	uint32_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		fatal("out of memory");
	for (int i = 0; i < t->n; i++) {
		size_t h = fnv1a(FNV_OFFSET, t->s[i], strlen(t->s[i])) &
			   (ns - 1);

		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
}

int intern_find(const struct intern *t, const char *s, size_t n)
{
	size_t h;

	if (!t->nslot)
		return -1;
	for (h = fnv1a(FNV_OFFSET, s, n) & (t->nslot - 1); t->slot[h];
	     h = (h + 1) & (t->nslot - 1)) {
		const char *c = t->s[t->slot[h] - 1];

		if (strncmp(c, s, n) == 0 && c[n] == '\0')
			return (int)t->slot[h] - 1;
	}
	return -1;
}

int intern_add(struct intern *t, const char *s, size_t n)
{
	int id = intern_find(t, s, n);
	size_t h;

	if (id >= 0)
		return id;
	/* at most half full: probe sequences stay short */
	if ((size_t)(t->n + 1) * 2 > t->nslot)
		intern_grow(t);
	h = fnv1a(FNV_OFFSET, s, n) & (t->nslot - 1);
	while (t->slot[h])
		h = (h + 1) & (t->nslot - 1);
	VEC_PUSH(t->s, t->n, t->cap, arena_strndup(t->arena, s, n));
	t->slot[h] = (uint32_t)t->n;
	return t->n - 1;
}

void intern_free(struct intern *t)
{
	free(t->s);
	free(t->slot);
	t->s = NULL;
	t->slot = NULL;
	t->n = t->cap = 0;
	t->nslot = 0;
}
