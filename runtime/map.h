/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Associative arrays: 1..9 keys (long or string), a long, string or
 * statistic value.  Every entry comes from a pool allocated at module load
 * (max_entries of them), so probe context never allocates.  Entries sit in
 * a hash table and, in insertion order, on a list; a full wrapping array
 * (`global a%[N]`) evicts its oldest entry.
 *
 * Arrays of statistics are per CPU (struct stp_pmap): `<<<` touches only
 * the current CPU's map, readers aggregate.
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
	struct stp_map *cpu;		/* [nr_cpu_ids] */
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
int stp_pmap_add(struct stp_pmap *pm, unsigned int cpu, const union stp_key *k,
		 int64_t v);
struct stp_stat *stp_pmap_get(struct stp_pmap *pm, const union stp_key *k);
int stp_pmap_aggregate(struct stp_pmap *pm);
bool stp_pmap_exists_match(struct stp_pmap *pm, const union stp_key *k,
			   u32 wild);
void stp_pmap_delete_match(struct stp_pmap *pm, const union stp_key *k,
			   u32 wild);
void stp_pmap_clear(struct stp_pmap *pm);

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
