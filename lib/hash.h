/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FNV-1a, the one hash of the compiler: cache keys (catalogs, modules,
 * feature headers) and hash tables. Cache keys persist in file names, so
 * the function must never change.
 */
#ifndef LIB_HASH_H
#define LIB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL	/* the empty input's hash */

/* Continue hash h over n bytes at p (start with FNV_OFFSET). */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif /* LIB_HASH_H */
