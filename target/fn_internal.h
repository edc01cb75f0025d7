/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the function catalog's files (internal to target/): the
 * catalog's cache file (fn_cache.c) and small helpers. functions.c builds
 * the catalog, fn_query.c answers kernel.function and kernel.statement
 * queries on it.
 */
#ifndef TARGET_FN_INTERNAL_H
#define TARGET_FN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#include "target/functions.h"
#include "elf/libdw.h"
#include "lib/intern.h"
#include "lib/strbuf.h"

/* Changes whenever the cache file's format does (part of its key). */
#define KF_CACHE_MAGIC "stap-kfuncs 4"

/* A 64-bit finaliser: spreads addresses and id pairs over hash slots. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* qsort, also for an empty (NULL) array */
static inline void sort_n(void *base, size_t n, size_t size,
			  int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* uint64 -> uint32 map (open addressing); the key UINT64_MAX is reserved
 * (empty slot). A slot holds key and value together: one cache line. */
struct u64slot {
	uint64_t key;
	uint32_t val;
};

struct u64map {
	struct u64slot *slot;
	size_t n, nslot;
};

/* The value slot of key k, or NULL. */
uint32_t *u64map_slot(const struct u64map *m, uint64_t k);
void u64map_put(struct u64map *m, uint64_t k, uint32_t v);
void u64map_clear(struct u64map *m);	/* empty, keeping the slots */
void u64map_free(struct u64map *m);

/* C type names as SystemTap's -L spells them, interned in *strs and
 * cached by the type DIE's offset. */
struct kf_types {
	struct intern *strs;
	struct u64map ids;	/* type DIE offset -> strs id + 1, 0 fails */
};

/* The strs id of type DIE t's name, or -1 when it cannot be spelled. */
int kf_type_id(struct kf_types *tt, Dwarf_Die *t);
/* Append type DIE t's name, as kf_type_id spells it, to o. */
bool kf_type_spell(Dwarf_Die *t, struct strbuf *o);
/* The DIE's type (through DW_AT_signature type units): false if none. */
bool kf_die_type(Dwarf_Die *die, Dwarf_Die *out);

/*
 * libdw's abbreviation of each DIE code of one CU, for DIEs the catalog
 * reads by the million: libdw finds a DIE's abbreviation in a hash table
 * under a rwlock (a sixth of a cold build) and keeps it in
 * Dwarf_Die.abbrev, looking it up only while that is NULL. kf_abbrev()
 * fills it with the one libdw found for the same code in the same CU,
 * which is what libdw's lookup returns, so nothing else changes.
 */
#define KF_ABBREV_CODES 1024
struct kf_abbrevs {
	Dwarf_CU *cu;		/* whose codes of[] holds */
	Dwarf_Abbrev *of[KF_ABBREV_CODES];
	/* a byte per code for the caller, zeroed with of[] */
	unsigned char user[KF_ABBREV_CODES];
};

/* Fill die->abbrev (t NULL: leave it to libdw). Returns the DIE's code
 * when of[] and user[] hold it, else 0. */
unsigned int kf_abbrev(struct kf_abbrevs *t, Dwarf_Die *die);

/*
 * dwarf_attr_integrate() for several attributes of one DIE (not a CU's):
 * the DIEs its DW_AT_abstract_origin / DW_AT_specification references
 * lead to are resolved once, as libdw follows them (17 at most), instead
 * of once per attribute.
 */
#define KF_CHAIN_MAX 17
struct kf_chain {
	Dwarf_Die die[KF_CHAIN_MAX];
	int n;		/* resolved so far, die[0] the DIE itself */
	bool end;	/* die[n - 1] references none */
	struct kf_abbrevs *ab;	/* for the DIEs it resolves, or NULL */
};

static inline void kf_chain_start(struct kf_chain *c, const Dwarf_Die *die,
				  struct kf_abbrevs *ab)
{
	c->die[0] = *die;
	c->n = 1;
	c->end = false;
	c->ab = ab;
}

Dwarf_Attribute *kf_chain_attr(struct kf_chain *c, unsigned int name,
			       Dwarf_Attribute *a);
/* kf_die_type() of the chain's DIE. */
bool kf_chain_type(struct kf_chain *c, Dwarf_Die *out);
/* An entry pc, from DW_AT_entry_pc / low_pc, else the first range. */
bool kf_entry_pc(Dwarf_Die *die, uint64_t *pc);
/* CACHE_DIR/kfuncs-RELEASE.txt, malloc'ed. */
char *kf_cache_path(const char *cache_dir, const char *release);

/* Fill c from the cache file at path when its key matches: true, else
 * false (c may then hold partial data in its arena). */
bool kf_cache_read(struct kf_catalog *c, const char *path, uint64_t key);

/* Write c to path atomically; failures are silent. */
void kf_cache_write(const struct kf_catalog *c, const char *cache_dir,
		    const char *path, uint64_t key);

#endif /* TARGET_FN_INTERNAL_H */
