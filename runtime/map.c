// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Associative arrays (see map.h).  Entry layout: struct stp_map_entry,
 * then each key (int64_t, or a MAXSTRINGLEN string), then the value
 * (int64_t, a MAXSTRINGLEN string, or a struct stp_stat with its
 * histogram).  Invariants: an entry is on exactly one of `used` (and then
 * in the hash table) or `free`; count == length of `used` <= cap.
 */

int stp_map_init(struct stp_map *m, const struct stp_map_desc *d, u32 cap)
{
	size_t off = sizeof(struct stp_map_entry);
	u32 i;

	memset(m, 0, sizeof(*m));
	m->d = d;
	m->nkeys = strlen(d->keys);
	for (i = 0; i < m->nkeys; i++) {
		off = ALIGN(off, 8);
		m->key_off[i] = off;
		off += d->keys[i] == 's' ? MAXSTRINGLEN : sizeof(int64_t);
	}
	off = ALIGN(off, 8);
	m->val_off = off;
	if (d->vtype == STP_VAL_STRING)
		off += MAXSTRINGLEN;
	else if (d->vtype == STP_VAL_STAT)
		off += STP_STAT_SIZE(d->stat);
	else
		off += sizeof(int64_t);
	m->esize = ALIGN(off, 8);
	m->cap = max_t(u32, cap, 1);
	m->nbuckets = roundup_pow_of_two(m->cap);
	INIT_LIST_HEAD(&m->used);
	INIT_LIST_HEAD(&m->free);
	m->buckets = vzalloc(m->nbuckets * sizeof(*m->buckets));
	m->pool = vzalloc(m->cap * m->esize);
	if (!m->buckets || !m->pool) {
		stp_map_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		struct stp_map_entry *e = (void *)(m->pool + i * m->esize);

		list_add_tail(&e->lnode, &m->free);
	}
	return 0;
}

void stp_map_free(struct stp_map *m)
{
	vfree(m->buckets);
	vfree(m->pool);
	m->buckets = NULL;
	m->pool = NULL;
}

static u32 stp_map_hash(const struct stp_map *m, const union stp_key *k)
{
	u32 h = STP_MAP_HASH_SEED;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->d->keys[i] == 's')
			h = jhash(k[i].s, strnlen(k[i].s, MAXSTRINGLEN - 1), h);
		else
			h = stp_map_hash_long(h, k[i].l);
	}
	return h;
}

static bool stp_map_key_eq(const struct stp_map *m, struct stp_map_entry *e,
			   const union stp_key *k, u32 wild)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (wild & (1u << i))
			continue;
		if (m->d->keys[i] == 's') {
			if (strncmp(stp_map_key_str(m, e, i), k[i].s,
				    MAXSTRINGLEN - 1))
				return false;
		} else if (stp_map_key_long(m, e, i) != k[i].l) {
			return false;
		}
	}
	return true;
}

struct stp_map_entry *
stp_map_find(struct stp_map *m, const union stp_key *k)
{
	u32 h = stp_map_hash(m, k);
	struct stp_map_entry *e;

	hlist_for_each_entry(e, &m->buckets[h & (m->nbuckets - 1)], hnode)
		if (e->hash == h && stp_map_key_eq(m, e, k, 0))
			return e;
	return NULL;
}

static void stp_map_del_entry(struct stp_map *m, struct stp_map_entry *e)
{
	hlist_del(&e->hnode);
	list_move(&e->lnode, &m->free);
	m->count--;
}

/* Find or create the entry for k (value zeroed); NULL when full. */
struct stp_map_entry *
stp_map_add(struct stp_map *m, const union stp_key *k)
{
	u32 h = stp_map_hash(m, k);
	struct stp_map_entry *e;
	int i;

	hlist_for_each_entry(e, &m->buckets[h & (m->nbuckets - 1)], hnode)
		if (e->hash == h && stp_map_key_eq(m, e, k, 0))
			return e;
	if (list_empty(&m->free)) {
		if (!m->d->wrap || list_empty(&m->used))
			return NULL;
		stp_map_del_entry(m, list_first_entry(&m->used,
						      struct stp_map_entry,
						      lnode));
	}
	e = list_first_entry(&m->free, struct stp_map_entry, lnode);
	memset((char *)e + sizeof(*e), 0, m->esize - sizeof(*e));
	for (i = 0; i < m->nkeys; i++) {
		if (m->d->keys[i] == 's')
			stp_strcpy(stp_map_key_str(m, e, i), k[i].s);
		else
			*(int64_t *)((char *)e + m->key_off[i]) = k[i].l;
	}
	e->hash = h;
	hlist_add_head(&e->hnode, &m->buckets[h & (m->nbuckets - 1)]);
	list_move_tail(&e->lnode, &m->used);
	m->count++;
	return e;
}

void stp_map_delete(struct stp_map *m, const union stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k);

	if (e)
		stp_map_del_entry(m, e);
}

void stp_map_clear(struct stp_map *m)
{
	struct stp_map_entry *e, *n;

	list_for_each_entry_safe(e, n, &m->used, lnode)
		stp_map_del_entry(m, e);
}

/* Is there an entry matching k, ignoring the keys in the wild mask? */
bool stp_map_exists_match(struct stp_map *m, const union stp_key *k, u32 wild)
{
	struct stp_map_entry *e;

	if (!wild)
		return stp_map_find(m, k) != NULL;
	list_for_each_entry(e, &m->used, lnode)
		if (stp_map_key_eq(m, e, k, wild))
			return true;
	return false;
}

void stp_map_delete_match(struct stp_map *m, const union stp_key *k, u32 wild)
{
	struct stp_map_entry *e, *n;

	if (!wild) {
		stp_map_delete(m, k);
		return;
	}
	list_for_each_entry_safe(e, n, &m->used, lnode)
		if (stp_map_key_eq(m, e, k, wild))
			stp_map_del_entry(m, e);
}

/*
 * The entries in insertion order, at most room of them; with k, only
 * those matching k outside the wild mask (a foreach slice).
 */
u32 stp_map_collect(struct stp_map *m, struct stp_map_entry **out, u32 room,
		    const union stp_key *k, u32 wild)
{
	struct stp_map_entry *e;
	u32 n = 0;

	list_for_each_entry(e, &m->used, lnode) {
		if (n == room)
			break;
		if (k && !stp_map_key_eq(m, e, k, wild))
			continue;
		out[n++] = e;
	}
	return n;
}

static int stp_cmp_long(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int stp_map_cmp_key(const struct stp_map *m, struct stp_map_entry *a,
			   struct stp_map_entry *b, int i)
{
	if (m->d->keys[i] == 's')
		return strcmp(stp_map_key_str(m, a, i), stp_map_key_str(m, b, i));
	return stp_cmp_long(stp_map_key_long(m, a, i),
			    stp_map_key_long(m, b, i));
}

static int stp_map_cmp(const void *pa, const void *pb, const void *priv)
{
	const struct stp_sort *how = priv;
	const struct stp_map *m = how->m;
	struct stp_map_entry *a = *(struct stp_map_entry *const *)pa;
	struct stp_map_entry *b = *(struct stp_map_entry *const *)pb;
	int r = 0, i;

	if (how->column == -1) {
		void *va = stp_map_val(m, a), *vb = stp_map_val(m, b);

		if (m->d->vtype == STP_VAL_STRING)
			r = strcmp(va, vb);
		else if (m->d->vtype == STP_VAL_STAT)
			r = stp_cmp_long(stp_stat_value(va, how->stat_op),
					 stp_stat_value(vb, how->stat_op));
		else
			r = stp_cmp_long(*(int64_t *)va, *(int64_t *)vb);
	} else if (how->column > 0) {
		r = stp_map_cmp_key(m, a, b, how->column - 1);
	}
	if (r)
		return how->dir < 0 ? -r : r;
	/* ties: by the keys in order, ascending */
	for (i = 0; i < m->nkeys && !r; i++)
		r = stp_map_cmp_key(m, a, b, i);
	return r;
}

static void stp_map_swap(void *pa, void *pb, int size, const void *priv)
{
	swap(*(struct stp_map_entry **)pa, *(struct stp_map_entry **)pb);
}

void stp_map_sort(struct stp_map_entry **v, u32 n, const struct stp_sort *how)
{
	if (how->column && n > 1)
		sort_r(v, n, sizeof(*v), stp_map_cmp, stp_map_swap, how);
}

/* Value access for the generated code. */

int stp_map_set_long(struct stp_map *m, const union stp_key *k, int64_t v)
{
	struct stp_map_entry *e = stp_map_add(m, k);

	if (!e)
		return -E2BIG;
	*(int64_t *)stp_map_val(m, e) = v;
	return 0;
}

int stp_map_set_str(struct stp_map *m, const union stp_key *k, const char *v)
{
	struct stp_map_entry *e = stp_map_add(m, k);

	if (!e)
		return -E2BIG;
	stp_strcpy(stp_map_val(m, e), v);
	return 0;
}

int64_t stp_map_get_long(struct stp_map *m, const union stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k);

	return e ? *(int64_t *)stp_map_val(m, e) : 0;
}

const char *
stp_map_get_str(struct stp_map *m, const union stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k);

	return e ? (const char *)stp_map_val(m, e) : "";
}

/* "Array overflow, check size limit (N)" at where. */
void stp_map_overflow(struct stp_context *c, const struct stp_map_desc *d,
		      const char *where)
{
	if (c->last_error)
		return;
	scnprintf(c->error_buf, sizeof(c->error_buf),
		  "Array overflow, check size limit (%u)", d->max_entries);
	stp_error(c, c->error_buf, where);
}

/* Arrays of statistics. */

static inline struct stp_map *stp_pmap_cpu(struct stp_pmap *pm,
					   unsigned int cpu)
{
	return per_cpu_ptr(pm->cpu, cpu);
}

int stp_pmap_init(struct stp_pmap *pm, const struct stp_map_desc *d)
{
	unsigned int cpu;
	int rc;

	memset(pm, 0, sizeof(*pm));
	pm->d = d;
	pm->cpu = alloc_percpu(struct stp_map);
	pm->scratch = vzalloc(STP_STAT_SIZE(d->stat));
	if (!pm->cpu || !pm->scratch)
		goto nomem;
	for_each_possible_cpu(cpu) {
		rc = stp_map_init(stp_pmap_cpu(pm, cpu), d, d->max_entries);
		if (rc)
			goto nomem;
	}
	rc = stp_map_init(&pm->agg, d, d->max_entries);
	if (rc)
		goto nomem;
	return 0;
nomem:
	stp_pmap_free(pm);
	return -ENOMEM;
}

void stp_pmap_free(struct stp_pmap *pm)
{
	unsigned int cpu;

	if (pm->cpu)
		for_each_possible_cpu(cpu)
			stp_map_free(stp_pmap_cpu(pm, cpu));
	free_percpu(pm->cpu);
	stp_map_free(&pm->agg);
	vfree(pm->scratch);
	pm->cpu = NULL;
	pm->scratch = NULL;
}

/* `<<<` with any keys: this CPU's map (preemption is off). */
int stp_pmap_add(struct stp_pmap *pm, const union stp_key *k, int64_t v)
{
	struct stp_map *m = this_cpu_ptr(pm->cpu);
	struct stp_map_entry *e = stp_map_add(m, k);

	if (!e)
		return -E2BIG;
	stp_stat_add(pm->d->stat, stp_map_val(m, e), v);
	return 0;
}

/* One key aggregated over the CPUs (count 0 when absent). */
struct stp_stat *
stp_pmap_get(struct stp_pmap *pm, const union stp_key *k)
{
	const struct stp_stat_desc *sd = pm->d->stat;
	struct stp_stat *agg = pm->scratch;
	unsigned int cpu;

	pm->scratch_gen++;
	memset(agg, 0, STP_STAT_SIZE(sd));
	for_each_possible_cpu(cpu) {
		struct stp_map *m = stp_pmap_cpu(pm, cpu);
		struct stp_map_entry *e = stp_map_find(m, k);

		if (e)
			stp_stat_merge1(sd, agg, stp_map_val(m, e));
	}
	stp_stat_merge_mid(sd, agg);
	for_each_possible_cpu(cpu) {
		struct stp_map *m = stp_pmap_cpu(pm, cpu);
		struct stp_map_entry *e = stp_map_find(m, k);

		if (e)
			stp_stat_merge2(agg, stp_map_val(m, e));
	}
	stp_stat_merge_end(sd, agg);
	return agg;
}

/* The keys of entry e of map m, as a lookup in another map takes them. */
static void stp_map_entry_keys(struct stp_map *m, struct stp_map_entry *e,
			       union stp_key *k)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->d->keys[i] == 's')
			k[i].s = stp_map_key_str(m, e, i);
		else
			k[i].l = stp_map_key_long(m, e, i);
	}
}

/* Every key aggregated into pm->agg (for foreach); -E2BIG if it overflows. */
int stp_pmap_aggregate(struct stp_pmap *pm)
{
	const struct stp_stat_desc *sd = pm->d->stat;
	struct stp_map *agg = &pm->agg;
	union stp_key k[STP_MAX_KEYS];
	struct stp_map_entry *e, *a;
	unsigned int cpu;

	stp_map_clear(agg);
	for_each_possible_cpu(cpu) {
		struct stp_map *m = stp_pmap_cpu(pm, cpu);

		list_for_each_entry(e, &m->used, lnode) {
			stp_map_entry_keys(m, e, k);
			a = stp_map_add(agg, k);
			if (!a)
				return -E2BIG;
			stp_stat_merge1(sd, stp_map_val(agg, a),
					stp_map_val(m, e));
		}
	}
	list_for_each_entry(a, &agg->used, lnode)
		stp_stat_merge_mid(sd, stp_map_val(agg, a));
	for_each_possible_cpu(cpu) {
		struct stp_map *m = stp_pmap_cpu(pm, cpu);

		list_for_each_entry(e, &m->used, lnode) {
			stp_map_entry_keys(m, e, k);
			a = stp_map_find(agg, k);
			if (a)
				stp_stat_merge2(stp_map_val(agg, a),
						stp_map_val(m, e));
		}
	}
	list_for_each_entry(a, &agg->used, lnode)
		stp_stat_merge_end(sd, stp_map_val(agg, a));
	return 0;
}

bool stp_pmap_exists_match(struct stp_pmap *pm, const union stp_key *k,
			   u32 wild)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (stp_map_exists_match(stp_pmap_cpu(pm, cpu), k, wild))
			return true;
	return false;
}

void stp_pmap_delete_match(struct stp_pmap *pm, const union stp_key *k,
			   u32 wild)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_map_delete_match(stp_pmap_cpu(pm, cpu), k, wild);
}

void stp_pmap_clear(struct stp_pmap *pm)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_map_clear(stp_pmap_cpu(pm, cpu));
}
