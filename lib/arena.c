// SPDX-License-Identifier: GPL-2.0-or-later
/* Bump allocator with large blocks; see arena.h. */
#define _GNU_SOURCE		/* vasprintf */
#include "lib/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024)

struct arena_block {
	struct arena_block *prev;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("stap: fatal: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		fatal("out of memory");
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		fatal("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	return s;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->head;

	size = (size + 15) & ~(size_t)15;
	if (!b || b->used + size > b->size) {
		size_t cap = size > ARENA_BLOCK_SIZE ? size : ARENA_BLOCK_SIZE;

		b = xmalloc(sizeof(*b) + cap);
		b->prev = a->head;
		b->used = 0;
		b->size = cap;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += size;
	return memset(p, 0, size);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head;

	while (b) {
		struct arena_block *prev = b->prev;

		free(b);
		b = prev;
	}
	a->head = NULL;
}
