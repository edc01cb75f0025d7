/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bump allocator: everything a compilation allocates lives in one arena and
 * is freed at once. Allocation never fails (out of memory aborts).
 */
#ifndef LIB_ARENA_H
#define LIB_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;	/* newest block; older ones chained */
};

void *arena_alloc(struct arena *a, size_t size);	/* zeroed */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap);
void arena_free(struct arena *a);

/* Abort with a message: for out-of-memory and impossible states only. */
void fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void *xmalloc(size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* A malloc'ed formatted string (error messages returned to callers). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The growable array: a malloc'ed v of n items, cap allocated. VEC_GROW
 * makes room for one more (doubling when full: appends stay amortised
 * O(1)); VEC_PUSH appends item.
 */
#define VEC_GROW(v, n, cap)                                                \
	do {                                                               \
		if ((n) >= (cap)) {                                        \
			(cap) = (cap) ? 2 * (cap) : 64;                    \
			(v) = xrealloc((v), (size_t)(cap) * sizeof(*(v))); \
		}                                                          \
	} while (0)

#define VEC_PUSH(v, n, cap, item)                                          \
	do {                                                               \
		VEC_GROW(v, n, cap);                                       \
		(v)[(n)++] = (item);                                       \
	} while (0)

#endif /* LIB_ARENA_H */
