// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: statistics. A statistic is a per-CPU map
 * (a scalar: a per-CPU array of one; an array of them: a per-CPU hash)
 * whose value is struct stp_stat plus its histogram's buckets
 * (struct stp_sN); `<<<` adds into this CPU's slot (stp_stat_add, the
 * prelude's, the module runtime's rules), the user half reads all CPUs'
 * slots and the loader merges them (lib.c), then @count ... @variance,
 * @hist_* printing and foreach sorting by an aggregate use the merge.
 */
#include <string.h>

#include "bpf/emit.h"

int bpf_stat_nbuckets(const struct symbol *sym)
{
	if (sym->hist == HIST_LOG)
		return 128;
	if (sym->hist == HIST_LINEAR && sym->hist_step > 0)
		return (int)((sym->hist_hi - sym->hist_lo) / sym->hist_step) + 3;
	return 0;
}

/* struct stp_sN and the constant stp_dN of a statistics global. */
void bpf_stat_decls(FILE *out, const struct symbol *g)
{
	int nb = bpf_stat_nbuckets(g);

	fprintf(out, "struct stp_s%d { long long count, sum, min, max, avg, m2, "
		"variance;", g->index);
	if (nb)
		fprintf(out, " long long hist[%d];", nb);
	fprintf(out, " };\nstatic const struct stp_stat_desc stp_d%d = { %d, "
		"%d, %d, %lldLL, %lldLL, %lldLL, %d };\n", g->index,
		g->hist == HIST_LOG ? 1 : g->hist == HIST_LINEAR ? 2 : 0,
		g->uses_variance, g->var_shift, (long long)g->hist_lo,
		(long long)g->hist_hi, (long long)g->hist_step, nb);
	if (g->nkeys)
		fprintf(out, "struct stp_e%d { struct stp_k%d k; struct stp_s%d "
			"v; };\n", g->index, g->index, g->index);
}

/* The key of a statistic into C variable name: an array's, or 0. */
static void stat_key(struct emitter *e, const struct node *op,
		     char *name, size_t size)
{
	if (op->kind == N_INDEX)
		bpf_emit_key(e, op->index.array->sym, op->index.keys, name,
			     size);
	else
		fprintf(e->out, "__u32 %s = 0; ", name);
}

static const struct symbol *stat_sym(const struct node *op)
{
	return op->kind == N_INDEX ? op->index.array->sym : op->sym;
}

/* lhs <<< rhs: its value is rhs. */
void bpf_emit_stat_add(struct emitter *e, const struct node *lhs,
		       const struct node *rhs)
{
	const struct symbol *sym = stat_sym(lhs);
	int u = e->nuniq++, id = sym->index;
	int nb = bpf_stat_nbuckets(sym);
	char key[32];
	char hist[48];

	snprintf(key, sizeof(key), "_k%d", u);
	if (nb)
		snprintf(hist, sizeof(hist), "_p%d->hist", u);
	else
		snprintf(hist, sizeof(hist), "(long long *)0");
	fprintf(e->out, "({ long long _v%d = (", u);
	bpf_emit_expr(e, rhs);
	fputs("); ", e->out);
	stat_key(e, lhs, key, sizeof(key));
	int overflow = lhs->kind == N_INDEX ?
		       bpf_overflow_id(e, lhs->index.array) : -1;
	if (e->kernel) {
		fprintf(e->out, "struct stp_s%d *_p%d = bpf_map_lookup_elem("
			"&stp_m%d, &%s); ", id, u, id, key);
		if (lhs->kind == N_INDEX) {
			/* a new key: zeros on every CPU, then this CPU's
			 * slot (a full wrapping array evicts its oldest) */
			fprintf(e->out, "if (!_p%d) { ", u);
			if (bpf_wraps(sym))
				fprintf(e->out, "stp_wupdate%d(&%s, &stp_z%d); ",
					id, key, id);
			else
				fprintf(e->out, "bpf_map_update_elem(&stp_m%d, "
					"&%s, &stp_z%d, BPF_NOEXIST); ", id,
					key, id);
			fprintf(e->out, "_p%d = bpf_map_lookup_elem(&stp_m%d, "
				"&%s); if (!_p%d) ERROR(%d); } ", u, id, key,
				u, overflow);
		} else {
			fprintf(e->out, "if (!_p%d) return; ", u);
		}
	} else {
		fprintf(e->out, "char _b%d[sizeof(struct stp_s%d) * rt->ncpus]; "
			"memset(_b%d, 0, sizeof(_b%d)); bpf_map_lookup_elem("
			"rt->map_fds[%d], &%s, _b%d); struct stp_s%d *_p%d = "
			"(void *)_b%d; ", u, id, u, u, id, key, u, id, u, u);
	}
	fprintf(e->out, "stp_stat_add(&stp_d%d, (struct stp_stat *)_p%d, %s, "
		"_v%d); ", id, u, hist, u);
	if (!e->kernel)
		fprintf(e->out, "if (%s(%d, &%s, _b%d)) ERROR(%d); ",
			bpf_update_macro(sym), id, key, u, overflow >= 0 ? overflow :
			bpf_error_id(e, "Array overflow", lhs));
	fprintf(e->out, "_v%d; })", u);
}

/*
 * print(@hist_*(s)) in the kernel half (stp_khprintN): the aggregate and
 * every CPU's buckets added up into a record of its own (kind 8: the
 * header, the statistic's struct stp_stat_desc, then its struct stp_sN),
 * built in a per-CPU map (a log histogram's 128 buckets are too big for
 * the stack) and copied to the ring buffer; the loader draws it with the
 * same code as the loader's own print (lib.c, bpf_hist). The buckets'
 * walk is one bpf_loop step per CPU, the first CPU's step assigning (an
 * absent element reads as zeros), a barrier in the loop so clang keeps it
 * a loop rather than a call of memset, which BPF has not.
 */
static void kernel_hist_printer(FILE *out, const struct symbol *g)
{
	int i = g->index, nb = bpf_stat_nbuckets(g);

	fprintf(out, "struct stp_hrec%d { struct stp_hdr h; struct "
		"stp_stat_desc d; struct stp_s%d a; };\n"
		"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
		"__uint(max_entries, 1); __type(key, __u32); __type(value, "
		"struct stp_hrec%d); } stp_hr%d SEC(\".maps\");\n", i, i, i, i);
	fprintf(out, "static long stp_khist%d(__u64 cpu, void *ctx)\n{\n"
		"\tstruct stp_kagg *a = ctx;\n\t__u32 z = 0;\n"
		"\tstruct stp_hrec%d *r = bpf_map_lookup_elem(&stp_hr%d, &z);\n"
		"\tif (!r)\n\t\treturn 1;\n"
		"\tconst struct stp_s%d *sd = bpf_map_lookup_percpu_elem("
		"&stp_m%d, a->k, cpu);\n"
		"\tif (!sd) {\n"
		"\t\tfor (int j = 0; !cpu && j < %d; j++) {\n"
		"\t\t\tlong long v = 0;\n\t\t\tSTP_BARRIER(v);\n"
		"\t\t\tr->a.hist[j] = v;\n\t\t}\n\t\treturn 1;\n\t}\n"
		"\tfor (int j = 0; j < %d; j++) {\n"
		"\t\tlong long v = sd->hist[j];\n"
		"\t\tSTP_BARRIER(v);\n"
		"\t\tr->a.hist[j] = cpu ? r->a.hist[j] + v : v;\n\t}\n"
		"\treturn 0;\n}\n", i, i, i, i, i, nb, nb);
	fprintf(out, "STP_INLINE void stp_khprint%d(const void *k)\n{\n"
		"\t__u32 z = 0;\n\tstruct stp_kagg a;\n"
		"\tstp_kget%d(k, &a);\n"
		"\tstruct stp_hrec%d *r = bpf_map_lookup_elem(&stp_hr%d, &z);\n"
		"\tif (!r)\n\t\treturn;\n"
		"\tr->h.kind = 8;\n\tr->h.id = 0;\n\tr->d = stp_d%d;\n"
		"\tr->a.count = a.count;\n\tr->a.sum = a.sum;\n"
		"\tr->a.min = a.min;\n\tr->a.max = a.max;\n"
		"\tr->a.avg = a.avg;\n\tr->a.m2 = a.m2;\n"
		"\tr->a.variance = a.variance;\n"
		"\ta.k = k;\n\tbpf_loop(STP_MAXCPUS, stp_khist%d, &a, 0);\n"
		"\tif (bpf_ringbuf_output(&stp_rb, r, sizeof(*r), 0))\n"
		"\t\t__sync_fetch_and_add(&G.stp_lost, 1);\n}\n",
		i, i, i, i, i, i);
}

/*
 * Reading a statistic in the kernel half: stp_kgetN merges every CPU's
 * slot of the per-CPU map into a struct stp_kagg on the stack (no
 * buckets: @hist_* is printed only in the loader) with the loader's
 * formula (lib.c, bpf_stat_merge), one bpf_loop step per CPU through
 * bpf_map_lookup_percpu_elem (6.0+), which answers NULL past the last
 * possible CPU (and for an array's absent element: all zero, as the
 * loader reads it). A second walk adds up m2 for @variance.
 */
void bpf_stat_kernel_reader(FILE *out, const struct symbol *g)
{
	int i = g->index;

	fprintf(out, "static long stp_kagg1_%d(__u64 cpu, void *ctx)\n{\n"
		"\tstruct stp_kagg *a = ctx;\n"
		"\tconst struct stp_s%d *sd = bpf_map_lookup_percpu_elem("
		"&stp_m%d, a->k, cpu);\n"
		"\tif (!sd)\n\t\treturn 1;\n"
		"\tif (!sd->count)\n\t\treturn 0;\n"
		"\tif (!a->count) { a->min = sd->min; a->max = sd->max; }\n"
		"\ta->count += sd->count;\n\ta->sum += sd->sum;\n"
		"\tif (sd->max > a->max)\n\t\ta->max = sd->max;\n"
		"\tif (sd->min < a->min)\n\t\ta->min = sd->min;\n"
		"\treturn 0;\n}\n", i, i, i);
	if (g->uses_variance)
		fprintf(out, "static long stp_kagg2_%d(__u64 cpu, void *ctx)"
			"\n{\n\tstruct stp_kagg *a = ctx;\n"
			"\tconst struct stp_s%d *sd = "
			"bpf_map_lookup_percpu_elem(&stp_m%d, a->k, cpu);\n"
			"\tif (!sd)\n\t\treturn 1;\n"
			"\tif (sd->count) { long long dm = sd->avg - a->avg; "
			"a->m2 += sd->count * dm * dm + (sd->count - 1) * "
			"sd->variance; }\n\treturn 0;\n}\n", i, i, i);
	fprintf(out, "STP_INLINE void stp_kget%d(const void *k, struct "
		"stp_kagg *a)\n{\n"
		"\t__builtin_memset(a, 0, sizeof(*a));\n\ta->k = k;\n"
		"\tbpf_loop(STP_MAXCPUS, stp_kagg1_%d, a, 0);\n"
		"\ta->avg = stp_sdiv((long long)((unsigned long long)a->sum "
		"<< %d), a->count);\n", i, i, g->var_shift);
	if (g->uses_variance)
		fprintf(out, "\tbpf_loop(STP_MAXCPUS, stp_kagg2_%d, a, 0);\n"
			"\ta->variance = stp_sdiv(a->m2, a->count - 1) >> "
			"%d;\n", i, 2 * g->var_shift);
	fprintf(out, "\ta->avg >>= %d;\n}\n", g->var_shift);
	if (bpf_stat_nbuckets(g))
		kernel_hist_printer(out, g);
}

/*
 * delete of a whole array or statistic in the kernel half (stp_kclearN):
 * an array's elements (a hash or per-CPU hash) each deleted by a
 * bpf_for_each_map_elem callback (the kernel's hash maps allow deleting
 * the element being visited); a scalar statistic's slot zeroed on every
 * CPU, one bpf_loop step each (bpf_map_lookup_percpu_elem).
 */
void bpf_kernel_clearer(FILE *out, const struct symbol *g)
{
	int i = g->index;

	if (g->nkeys) {
		fprintf(out, "static long stp_kdel_%d(void *map, const void *k, "
			"void *v, void *ctx)\n{\n\tbpf_map_delete_elem("
			"&stp_m%d, k);\n\treturn 0;\n}\n"
			"STP_INLINE void stp_kclear%d(void)\n{\n"
			"\tbpf_for_each_map_elem(&stp_m%d, stp_kdel_%d, 0, 0);"
			"\n}\n", i, i, i, i, i);
		return;
	}
	fprintf(out, "static long stp_kzero_%d(__u64 cpu, void *ctx)\n{\n"
		"\t__u32 z = 0;\n"
		"\tstruct stp_s%d *sd = bpf_map_lookup_percpu_elem(&stp_m%d, "
		"&z, cpu);\n\tif (!sd)\n\t\treturn 1;\n"
		"\t__builtin_memset(sd, 0, sizeof(*sd));\n\treturn 0;\n}\n"
		"STP_INLINE void stp_kclear%d(void)\n{\n"
		"\tbpf_loop(STP_MAXCPUS, stp_kzero_%d, 0, 0);\n}\n",
		i, i, i, i, i);
}

/* The merged aggregate of a statistic into C variable name. */
static void stat_get(struct emitter *e, const struct node *op,
		     const char *name)
{
	const struct symbol *sym = stat_sym(op);
	int u = e->nuniq++;
	char key[32];

	snprintf(key, sizeof(key), "_k%d", u);
	stat_key(e, op, key, sizeof(key));
	if (e->kernel) {
		fprintf(e->out, "struct stp_kagg %s; stp_kget%d(&%s, &%s); ",
			name, sym->index, key, name);
		return;
	}
	fprintf(e->out, "struct stp_s%d %s; stp_stat_get(%d, &%s, &stp_d%d, "
		"sizeof(struct stp_s%d), (struct stp_stat *)&%s); ",
		sym->index, name, sym->index, key, sym->index, sym->index,
		name);
}

/* @count(s), @sum ... @variance(s[, shift]). */
void bpf_emit_stat_read(struct emitter *e, const struct node *n)
{
	static const char *const fields[] = {
		[STAT_COUNT] = "count", [STAT_SUM] = "sum", [STAT_MIN] = "min",
		[STAT_MAX] = "max", [STAT_AVG] = "avg",
		[STAT_VARIANCE] = "variance",
	};
	int u = e->nuniq++;
	char name[32];

	snprintf(name, sizeof(name), "_a%d", u);
	fputs("({ ", e->out);
	stat_get(e, n->stat.operand, name);
	if (n->stat.op != STAT_COUNT && n->stat.op != STAT_SUM)
		fprintf(e->out, "if (!%s.count) ERROR(%d); ", name,
			bpf_error_id(e, "empty aggregate", n));
	fprintf(e->out, "%s.%s; })", name, fields[n->stat.op]);
}

/* print(@hist_log(s)) and print(@hist_linear(s, lo, hi, step)). */
void bpf_emit_hist_print(struct emitter *e, const struct node *h)
{
	const struct node *op = h->stat.operand;
	int u = e->nuniq++;
	char name[32];

	snprintf(name, sizeof(name), "_a%d", u);
	fputs("({ ", e->out);
	if (e->kernel) {
		char key[32];
		snprintf(key, sizeof(key), "_k%d", u);
		stat_key(e, op, key, sizeof(key));
		fprintf(e->out, "stp_khprint%d(&%s); 0; })",
			stat_sym(op)->index, key);
		return;
	}
	stat_get(e, op, name);
	fprintf(e->out, "rt->hist(NULL, &stp_d%d, (struct stp_stat *)&%s); "
		"0; })", stat_sym(op)->index, name);
}

/* The dump a foreach over a statistics array sorts. */
void bpf_emit_stat_dump(struct emitter *e, const struct symbol *arr, int u)
{
	fprintf(e->out, "size_t _n%d; struct stp_e%d *_es%d = stp_dump_stats("
		"%d, sizeof(struct stp_k%d), offsetof(struct stp_e%d, v), "
		"sizeof(struct stp_e%d), sizeof(struct stp_s%d), &stp_d%d, "
		"&_n%d); ", u, arr->index, u, arr->index, arr->index,
		arr->index, arr->index, arr->index, arr->index, u);
}

/* The field a foreach sorts a statistics array by (default @count). */
const char *bpf_stat_sort_field(enum stat_op op)
{
	switch (op) {
	case STAT_SUM: return "v.sum";
	case STAT_MIN: return "v.min";
	case STAT_MAX: return "v.max";
	case STAT_AVG: return "v.avg";
	case STAT_VARIANCE: return "v.variance";
	default: return "v.count";
	}
}

/* delete s: every CPU's slot zeroed (a per-CPU array has no delete). */
void bpf_emit_stat_clear(struct emitter *e, const struct symbol *sym)
{
	if (e->kernel) {
		fprintf(e->out, "stp_kclear%d();\n", sym->index);
		return;
	}
	if (sym->nkeys) {
		fprintf(e->out, "stp_clear(%d, sizeof(struct stp_k%d));\n",
			sym->index, sym->index);
		return;
	}
	fprintf(e->out, "{ __u32 _z = 0; char _b[sizeof(struct stp_s%d) * "
		"rt->ncpus]; memset(_b, 0, sizeof(_b)); bpf_map_update_elem("
		"rt->map_fds[%d], &_z, _b, BPF_ANY); }\n", sym->index,
		sym->index);
}
