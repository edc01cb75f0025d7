/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Associative arrays: 1..9 keys (long or string), a long, string or
 * statistic value.  Every entry comes from a pool allocated at module load
 * (max_entries of them), so probe context never allocates.  Entries sit in
 * a hash table and, in insertion order, on a list; a full wrapping array
 * (`global a%[N]`) evicts its oldest entry.
 *
 * Arrays of statistics are per CPU (struct stp_pmap): `<<<` touches only
 * the current CPU's map, readers aggregate (an event probe's locks: its
 * CPU's part of the statistic, or every CPU's, see probes.h).
 */
#ifndef RUNTIME_MAP_H
#define RUNTIME_MAP_H

#define STP_MAX_KEYS 9

enum stp_val_type {
	STP_VAL_LONG,
	STP_VAL_STRING,
	STP_VAL_STAT,
};

/* A key as the generated code passes it. */
union stp_key {
	int64_t l;
	const char *s;
};

/* The shape of an array, fixed by the translator. */
struct stp_map_desc {
	const char *keys;		/* one letter per key: 'l' or 's' */
	u8 vtype;			/* enum stp_val_type */
	bool wrap;			/* % : evict the oldest when full */
	u32 max_entries;
	const struct stp_stat_desc *stat;	/* STP_VAL_STAT */
};

struct stp_map_entry {
	struct hlist_node hnode;
	struct list_head lnode;		/* insertion order, or the free list */
	u32 hash;
	/* keys and value follow at the map's offsets */
};

struct stp_map {
	const struct stp_map_desc *d;
	int nkeys;
	u32 key_off[STP_MAX_KEYS];
	u32 val_off;
	size_t esize;
	u32 cap, count, nbuckets;
	struct hlist_head *buckets;
	struct list_head used, free;
	char *pool;
};

/* An array of statistics: a map per CPU plus an aggregate. */
struct stp_pmap {
	const struct stp_map_desc *d;
	struct stp_map __percpu *cpu;	/* each CPU's own */
	struct stp_map agg;		/* filled by stp_pmap_aggregate */
	struct stp_stat *scratch;	/* one key's aggregate */
	u32 scratch_gen;		/* stp_pmap_get()s so far: a foreach
					 * over a key's histogram sees when
					 * its body reused the scratch */
};

/* How foreach orders the entries it visits. */
struct stp_sort {
	const struct stp_map *m;
	int column;			/* 0 none, -1 value, k: key k (1-based) */
	int dir;			/* +1 ascending, -1 descending */
	int stat_op;			/* enum stp_stat_op for statistics */
};

int stp_map_init(struct stp_map *m, const struct stp_map_desc *d, u32 cap);
void stp_map_free(struct stp_map *m);
struct stp_map_entry *stp_map_find(struct stp_map *m, const union stp_key *k);
struct stp_map_entry *stp_map_add(struct stp_map *m, const union stp_key *k);
void stp_map_delete(struct stp_map *m, const union stp_key *k);
void stp_map_clear(struct stp_map *m);
bool stp_map_exists_match(struct stp_map *m, const union stp_key *k, u32 wild);
void stp_map_delete_match(struct stp_map *m, const union stp_key *k, u32 wild);
u32 stp_map_collect(struct stp_map *m, struct stp_map_entry **out, u32 room,
		    const union stp_key *k, u32 wild);
void stp_map_sort(struct stp_map_entry **v, u32 n, const struct stp_sort *how);

int stp_pmap_init(struct stp_pmap *pm, const struct stp_map_desc *d);
void stp_pmap_free(struct stp_pmap *pm);

/* Values, and the statistics of a per-CPU map (map.c) */
int stp_map_set_long(struct stp_map *m, const union stp_key *k, int64_t v);
int stp_map_set_str(struct stp_map *m, const union stp_key *k, const char *v);
int64_t stp_map_get_long(struct stp_map *m, const union stp_key *k);
const char *stp_map_get_str(struct stp_map *m, const union stp_key *k);
void stp_map_overflow(struct stp_context *c, const struct stp_map_desc *d,
		      const char *where);
int stp_pmap_add(struct stp_pmap *pm, const union stp_key *k, int64_t v);
struct stp_stat *stp_pmap_get(struct stp_pmap *pm, const union stp_key *k);
int stp_pmap_aggregate(struct stp_pmap *pm);
bool stp_pmap_exists_match(struct stp_pmap *pm, const union stp_key *k,
			   u32 wild);
void stp_pmap_delete_match(struct stp_pmap *pm, const union stp_key *k,
			   u32 wild);
void stp_pmap_clear(struct stp_pmap *pm);

/*
 * The hash of a key: a long mixed in by one multiplication (the high
 * half of its product with 2^64 / phi), a string by jhash. Inline: the
 * generated code's `<<<` hashes its long keys itself.
 */
#define STP_MAP_HASH_SEED 0x5354u

static __always_inline u32 stp_map_hash_long(u32 h, int64_t v)
{
	return (u32)((((u64)v + h) * 0x9e3779b97f4a7c15ULL) >> 32);
}

/* Where keys start in an entry; keys that are all longs lie in a row,
 * the value after them (stp_map_init's layout). */
#define STP_MAP_KEY0 ALIGN(sizeof(struct stp_map_entry), 8)

/*
 * `<<<` into an array of statistics whose n keys are all longs, from the
 * generated code (sd its constant descriptor, so only what the statistic
 * keeps is compiled): this CPU's map (preemption is off), the entry
 * found inline, or added (stp_map_add) when new. -E2BIG when the map is
 * full.
 */
static __always_inline int stp_pmap_add_longs(struct stp_pmap *pm,
					      const struct stp_stat_desc *sd,
					      const union stp_key *k, int n,
					      int64_t v)
{
	struct stp_map *m = this_cpu_ptr(pm->cpu);
	struct stp_map_entry *e;
	u32 h = STP_MAP_HASH_SEED;
	int i;

	for (i = 0; i < n; i++)
		h = stp_map_hash_long(h, k[i].l);
	hlist_for_each_entry(e, &m->buckets[h & (m->nbuckets - 1)], hnode) {
		const int64_t *ek = (const int64_t *)((char *)e + STP_MAP_KEY0);

		if (e->hash != h)
			continue;
		for (i = 0; i < n && ek[i] == k[i].l; i++)
			;
		if (i == n)
			goto found;
	}
	e = stp_map_add(m, k);
	if (unlikely(!e))
		return -E2BIG;
found:
	stp_stat_add(sd, (struct stp_stat *)((char *)e + STP_MAP_KEY0 +
					     n * sizeof(int64_t)), v);
	return 0;
}

static inline void *stp_map_val(const struct stp_map *m,
				struct stp_map_entry *e)
{
	return (char *)e + m->val_off;
}

static inline int64_t stp_map_key_long(const struct stp_map *m,
				       struct stp_map_entry *e, int i)
{
	return *(int64_t *)((char *)e + m->key_off[i]);
}

static inline char *stp_map_key_str(const struct stp_map *m,
				    struct stp_map_entry *e, int i)
{
	return (char *)e + m->key_off[i];
}

#endif /* RUNTIME_MAP_H */
