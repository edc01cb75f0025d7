// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: statements, probe bodies and script
 * functions, for either half (e->kernel): loops, foreach, delete, return,
 * try/catch, MAXACTION's charge per statement.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/emit.h"
#include "parser/diag.h"

static void emit_stmt(struct emitter *e, const struct node *n);
static void emit_loop_body(struct emitter *e, const struct node *body);

/*
 * foreach in the kernel half (unsorted: pass 2 refuses the rest): the
 * body is a callback of bpf_for_each_map_elem (5.13+), written at file
 * scope (decls_kernel, an inner foreach's callback first). The callback
 * reaches the enclosing code through struct stp_fc: the scratch, the
 * MAXACTION count, a function's result; the enclosing code keeps its
 * long locals in the scratch (S->v, scratch_locals) for it. The callback
 * returns 1 to stop: break, limit, an error or next (S->err, looked at
 * after the call), a return (C->done).
 */
static void emit_kernel_foreach(struct emitter *e, const struct node *n)
{
	const struct symbol *arr = n->foreach.array->sym;
	int u = e->nuniq++;
	char *cbuf = NULL;
	size_t clen = 0;
	FILE *cb = open_memstream(&cbuf, &clen);
	FILE *saved_out = e->out;
	const char *saved_catch = e->catch_jb, *saved_loop = e->loop_jb;
	bool saved_cb_loop = e->loop_is_callback;
	/* the callback's counts are in the scratch, whose values the
	 * verifier does not follow: a count on the stack would make it
	 * walk the callback once per value */
	int count = bpf_new_tmp(e);
	/* a slice's pattern, built where the foreach is */
	int pat = -1;

	if (n->foreach.slice) {
		fputs("{ ", saved_out);
		pat = bpf_kernel_slice_pattern(e, arr, n->foreach.slice, u);
	}
	fprintf(cb, "static long stp_fe%d(void *map, struct stp_k%d *k, %s *v, "
		"struct stp_fc *C)\n{\n\tstruct stp_scratch *S = C->S;\n"
		"\t(void)map; (void)v;\n"
		"#define stp_actions (S->act)\n#define stp_max_actions (C->max)\n"
		"#define stp_rv (*C->rv)\n#define stp_ret (C->ret)\n"
		"#undef STP_BAIL\n#define STP_BAIL return 1\n", u, arr->index,
		arr->type == TY_STATS ? arena_printf(&e->s->arena,
		"struct stp_s%d", arr->index) : bpf_ctype(arr->type));
	if (pat >= 0)
		fprintf(cb, "\tif (!stp_ksl%d(k, (void *)TMP(%d)))\n"
			"\t\treturn 0;\n", u, pat);
	fprintf(cb, "\tif (C->lim >= 0 && S->v[%d] >= C->lim)\n\t\treturn 1;\n"
		"\tS->v[%d]++;\n", count, count);
	int k = 0;
	ast_foreach(var, n->foreach.keys) {
		if (arr->key_types[k] == TY_STRING)
			fprintf(cb, "\tSTRCPY(TMP(%d), k->k%d);\n",
				bpf_local_slot(e, var->sym), k);
		else
			fprintf(cb, "\tS->v[%d] = k->k%d;\n",
				bpf_local_slot(e, var->sym), k);
		k++;
	}
	if (n->foreach.value) {
		const struct symbol *var = n->foreach.value->sym;
		if (arr->type == TY_STRING)
			fprintf(cb, "\tSTRCPY(TMP(%d), v->s);\n",
				bpf_local_slot(e, var));
		else
			fprintf(cb, "\tS->v[%d] = *v;\n", bpf_local_slot(e, var));
	}
	e->out = cb;
	e->catch_jb = e->loop_jb = "C->trying0";
	e->loop_is_callback = true;
	e->callback_depth++;
	emit_stmt(e, n->foreach.body);
	e->callback_depth--;
	e->loop_is_callback = saved_cb_loop;
	e->catch_jb = saved_catch;
	e->loop_jb = saved_loop;
	e->out = saved_out;
	fputs("\treturn 0;\n#undef stp_actions\n#undef stp_max_actions\n"
	      "#undef stp_rv\n#undef stp_ret\n#undef STP_BAIL\n"
	      "#define STP_BAIL return\n}\n\n", cb);
	fclose(cb);
	fwrite(cbuf, 1, clen, e->decls_kernel);
	free(cbuf);

	/* the call, where the foreach is */
	fprintf(e->out, "{ struct stp_fc _c%d = { .S = S, "
		".max = stp_max_actions, .rv = %s, .ret = %s, .trying0 = "
		"S->trying, .lim = ", u, e->func || e->callback_depth ?
		"&stp_rv" : "0", e->func || e->callback_depth ? "stp_ret" :
		"0");
	if (n->foreach.limit)
		bpf_emit_expr(e, n->foreach.limit);
	else
		fputs("-1", e->out);
	fprintf(e->out, " }; S->v[%d] = 0; S->act = stp_actions; "
		"bpf_for_each_map_elem(&stp_m%d, stp_fe%d, &_c%d, 0); "
		"stp_actions = S->act; if (S->err) STP_BAIL; if (_c%d.done) { ",
		count, arr->index, u, u, u);
	if (e->callback_depth)
		fputs("C->done = 1; return 1; ", e->out);
	else if (e->func)
		fputs("goto stp_out; ", e->out);
	else
		fputs("return; ", e->out);
	fputs(pat >= 0 ? "} } }\n" : "} }\n", e->out);
}

/* stp_scmp, once: strcmp of two zero-padded strings of a map */
void bpf_kernel_scmp(struct emitter *e)
{
	FILE *d = e->decls_kernel;

	if (e->kernel_sort)
		return;
	/* strcmp of two strings of a map, zero-padded as every key
	 * and string value is: a word at a time, unrolled (a loop of
	 * bytes inside the insertion's loop is too much for the
	 * verifier), in a global function (verified once, not at
	 * each step of the insertion: 64 words of a 512-byte string
	 * doubled the load time inline) */
	fputs("__attribute__((noinline)) int stp_scmp(struct stp_sv "
	      "*a, struct stp_sv *b)\n"
	      "{\n\tif (!a || !b)\n\t\treturn 0;\n"
	      "\tconst unsigned long long *x = (const void *)a->s, "
	      "*y = (const void *)b->s;\n#pragma unroll\n"
	      "\tfor (int i = 0; i < STP_STR / 8; i++) {\n"
	      "\t\tunsigned long long p = x[i], q = y[i];\n"
	      "\t\tif (p != q)\n\t\t\treturn __builtin_bswap64(p) < "
	      "__builtin_bswap64(q) ? -1 : 1;\n\t}\n\treturn 0;\n}\n", d);
	/* the same inline, for a map's own key (read-only memory, which
	 * a global function's argument may not be: the verifier asks
	 * that it be writable) */
	fputs("STP_INLINE int stp_scmp_key(const char *a, const char *b)\n"
	      "{\n\tconst unsigned long long *x = (const void *)a, "
	      "*y = (const void *)b;\n#pragma unroll\n"
	      "\tfor (int i = 0; i < STP_STR / 8; i++)\n"
	      "\t\tif (x[i] != y[i])\n\t\t\treturn 1;\n"
	      "\treturn 0;\n}\n", d);
	e->kernel_sort = true;
}

/*
 * A sorted foreach with limit N in the kernel half: a first callback of
 * bpf_for_each_map_elem keeps the first N elements of the order in a
 * per-CPU map of its own (stp_smU: insertion into a sorted array of N,
 * a bounded loop), ordered as the loader's qsort orders (the sort column,
 * then the keys ascending); then the body runs over them in a plain
 * bounded loop, where break and continue are C's.
 */
static void emit_kernel_sorted_foreach(struct emitter *e, const struct node *n)
{
	const struct symbol *arr = n->foreach.array->sym;
	int u = e->nuniq++, col = n->foreach.sort_column;
	int nmax = (int)n->foreach.limit->num.value;
	int count = bpf_new_tmp(e);
	FILE *d = e->decls_kernel;

	if (nmax < 1)
		nmax = 1;
	bpf_kernel_scmp(e);
	/* a slice's pattern, built where the foreach is */
	int pat = -1;
	if (n->foreach.slice) {
		fputs("{ ", e->out);
		pat = bpf_kernel_slice_pattern(e, arr, n->foreach.slice, u);
	}
	/* statistics: the elements as they are merged over the CPUs */
	bool stats = arr->type == TY_STATS;
	const char *entry = stats ? arena_printf(&e->s->arena, "stp_ke%d", u) :
			    arena_printf(&e->s->arena, "stp_e%d", arr->index);
	if (stats)
		fprintf(d, "struct stp_ke%d { struct stp_k%d k; struct "
			"stp_kagg v; };\n", u, arr->index);
	fprintf(d, "struct stp_sel%d { struct %s e[%d]; };\n"
		"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
		"__uint(max_entries, 1); __type(key, __u32); __type(value, "
		"struct stp_sel%d); } stp_sm%d SEC(\".maps\");\n", u, entry,
		nmax + 1, u, u);
	/* the order: < 0 when a comes first */
	fprintf(d, "STP_INLINE int stp_sc%d(const struct %s *a, const "
		"struct %s *b)\n{\n\tint c;\n", u, entry, entry);
	/* the sort column, then the keys in order (pass 1) */
	for (int step = -2; step < arr->nkeys; step++) {
		int k = step == -2 ? (col == -1 ? -1 : col - 1) : step;
		bool sort = step == -2;
		if (step == -1)
			continue;
		enum type ty = k == -1 ? arr->type : arr->key_types[k];
		char f[32];
		if (k == -1 && stats)
			snprintf(f, sizeof(f), "%s", bpf_stat_sort_field(
				 n->foreach.sort_agg));
		else if (k == -1)
			snprintf(f, sizeof(f), "v%s", ty == TY_STRING ? ".s" : "");
		else
			snprintf(f, sizeof(f), "k.k%d", k);
		if (ty == TY_STRING)
			fprintf(d, "\tc = stp_scmp((void *)a->%s, (void *)"
				"b->%s);\n", f, f);
		else
			fprintf(d, "\tc = (a->%s > b->%s) - (a->%s < b->%s);\n",
				f, f, f, f);
		fprintf(d, "\tif (c)\n\t\treturn %sc;\n", sort &&
			n->foreach.sort_dir < 0 ? "-" : "");
	}
	fputs("\treturn 0;\n}\n", d);
	/* the selection: the new element into slot N (scratch), then into
	 * place; the walk down indexes by q = the slot before (unsigned, one
	 * bound check): 6.1's verifier loses p - 1's bounds on a shift */
	fprintf(d, "static long stp_fs%d(void *map, struct stp_k%d *k, %s *v, "
		"struct stp_fc *C)\n{\n\tstruct stp_scratch *S = C->S;\n"
		"\t__u32 z = 0;\n\tstruct stp_sel%d *sel = "
		"bpf_map_lookup_elem(&stp_sm%d, &z);\n\t(void)map;\n"
		"\tif (!sel)\n\t\treturn 1;\n"
		"%s"
		"\tstruct %s *t = &sel->e[%d];\n"
		"\tbpf_probe_read_kernel(&t->k, sizeof(*k), k);\n",
		u, arr->index, stats ? arena_printf(&e->s->arena,
		"struct stp_s%d", arr->index) : bpf_ctype(arr->type), u, u,
		pat < 0 ? "" : arena_printf(&e->s->arena, "\tif (!stp_ksl%d(k, "
		"(void *)TMP(%d)))\n\t\treturn 0;\n", u, pat), entry, nmax);
	/* a statistic's value is this CPU's slot: merged from all of
	 * them, by the key copied into the map value (bpf_loop's context,
	 * the aggregate, must be the stack) */
	if (stats)
		fprintf(d, "\t{ struct stp_kagg a; stp_kget%d(&t->k, &a); "
			"a.k = 0; __builtin_memcpy(&t->v, &a, sizeof(a)); }\n",
			arr->index);
	else
		fputs("\tbpf_probe_read_kernel(&t->v, sizeof(*v), v);\n", d);
	fprintf(d, "\tunsigned long long m = S->v[%d], pos;\n"
		"\tif (m < %d) {\n\t\tpos = m;\n\t\tS->v[%d] = m + 1;\n"
		"\t} else if (stp_sc%d(t, &sel->e[%d]) < 0) {\n"
		"\t\tpos = %d;\n\t} else {\n\t\treturn 0;\n\t}\n"
		"\tSTP_BARRIER(pos);\n\tif (pos >= %d)\n\t\treturn 1;\n"
		"\tbpf_probe_read_kernel(&sel->e[pos], sizeof(*t), t);\n"
		"\tfor (int j = 0; j < %d; j++) {\n"
		"\t\tunsigned long long q = pos - 1;\n\t\tSTP_BARRIER(q);\n"
		"\t\tif (q >= %d - 1)\n\t\t\tbreak;\n"
		"\t\tif (stp_sc%d(&sel->e[q + 1], &sel->e[q]) >= 0)\n"
		"\t\t\tbreak;\n"
		"\t\tbpf_probe_read_kernel(t, sizeof(*t), &sel->e[q + 1]);\n"
		"\t\tbpf_probe_read_kernel(&sel->e[q + 1], sizeof(*t), &sel->e[q]);\n"
		"\t\tbpf_probe_read_kernel(&sel->e[q], sizeof(*t), t);\n"
		"\t\tpos = q;\n\t}\n\treturn 0;\n}\n\n",
		count, nmax, count, u, nmax - 1, nmax - 1, nmax, nmax, nmax, u);

	/* where the foreach is: select, then the loop */
	fprintf(e->out, "{ struct stp_fc _c%d = { .S = S }; __u32 _z%d = 0; "
		"S->v[%d] = 0; bpf_for_each_map_elem(&stp_m%d, stp_fs%d, &_c%d, "
		"0); struct stp_sel%d *_s%d = bpf_map_lookup_elem(&stp_sm%d, "
		"&_z%d); if (_s%d) for (unsigned long long _i%d = 0; _i%d < %d "
		"&& _i%d < (unsigned long long)S->v[%d]; _i%d++) { "
		"struct %s *_e%d = &_s%d->e[_i%d]; ", u, u, count,
		arr->index, u, u, u, u, u, u, u, u, u, nmax, u, count, u,
		entry, u, u, u);
	int k = 0;
	ast_foreach(var, n->foreach.keys) {
		if (arr->key_types[k] == TY_STRING)
			fprintf(e->out, "STRCPY(TMP(%d), _e%d->k.k%d); ",
				bpf_local_slot(e, var->sym), u, k);
		else
			fprintf(e->out, "%s = _e%d->k.k%d; ", e->scratch_locals ?
				arena_printf(&e->s->arena, "S->v[%d]",
					     bpf_local_slot(e, var->sym)) :
				arena_printf(&e->s->arena, "l%d",
					     bpf_local_slot(e, var->sym)), u, k);
		k++;
	}
	if (n->foreach.value) {
		const struct symbol *var = n->foreach.value->sym;
		if (arr->type == TY_STRING)
			fprintf(e->out, "STRCPY(TMP(%d), _e%d->v.s); ",
				bpf_local_slot(e, var), u);
		else
			fprintf(e->out, "%s = _e%d->v; ", e->scratch_locals ?
				arena_printf(&e->s->arena, "S->v[%d]",
					     bpf_local_slot(e, var)) :
				arena_printf(&e->s->arena, "l%d",
					     bpf_local_slot(e, var)), u);
	}
	emit_loop_body(e, n->foreach.body);
	fputs(pat >= 0 ? "} } }\n" : "} }\n", e->out);
}

/*
 * The loader's foreach copies the array's elements before its loop, as
 * the kernel's handlers go on writing it (the module's lock holds them
 * off for the probe's length): a[k] at the loop's own keys is the
 * element copied, so the loop prints the values it sorted by. Only
 * where nothing in the body can change that: no write or delete of
 * the array, no assignment to a key variable, no script function call.
 */
struct snapshot_walk {
	const struct node *loop;
	bool safe;
};

static bool is_loop_key(const struct node *loop, const struct symbol *sym)
{
	ast_foreach(k, loop->foreach.keys)
		if (k->sym == sym)
			return true;
	return false;
}

static bool names_array_or_key(const struct node *loop, const struct node *x)
{
	const struct symbol *arr = loop->foreach.array->sym;

	if (!x)
		return false;
	if (x->kind == N_INDEX)
		return x->index.array->sym == arr;
	return x->sym == arr || (x->kind == N_VAR && is_loop_key(loop, x->sym));
}

/* an inner foreach binding one of the loop's key variables */
static bool rebinds_key(const struct node *loop, const struct node *inner)
{
	ast_foreach(k, inner->foreach.keys)
		if (is_loop_key(loop, k->sym))
			return true;
	return inner->foreach.value &&
	       is_loop_key(loop, inner->foreach.value->sym);
}

static void snapshot_check(struct node *x, void *arg)
{
	struct snapshot_walk *w = arg;

	if ((x->kind == N_ASSIGN && names_array_or_key(w->loop, x->binary.lhs)) ||
	    (x->kind == N_INCDEC && names_array_or_key(w->loop,
						      x->incdec.operand)) ||
	    (x->kind == N_DELETE && names_array_or_key(w->loop, x->stmt.expr)) ||
	    (x->kind == N_FOREACH && x != w->loop &&
	     (x->foreach.array->sym == w->loop->foreach.array->sym ||
	      rebinds_key(w->loop, x))) ||
	    (x->kind == N_CALL && x->sym && x->sym->kind == SYM_FUNCTION))
		w->safe = false;
}

static bool snapshot_safe(const struct node *n)
{
	struct snapshot_walk w = { n, true };

	ast_visit(n->foreach.body, snapshot_check, &w);
	return w.safe;
}

/* a[k1, k2] in a loader foreach over a at its keys: the element copied */
bool bpf_snapshot_read(struct emitter *e, const struct node *n)
{
	for (int i = e->nsnap - 1; i >= 0; i--) {
		const struct node *loop = e->snap[i];
		const struct node *k = n->index.keys, *lk = loop->foreach.keys;

		if (n->index.array->sym != loop->foreach.array->sym)
			continue;
		for (; k && lk; k = k->next, lk = lk->next)
			if (k->kind != N_VAR || k->sym != lk->sym)
				break;
		if (k || lk)
			continue;
		if (n->type == TY_STRING)
			fprintf(e->out, "_e%d->v.s", e->snap_u[i]);
		else
			fprintf(e->out, "_e%d->v", e->snap_u[i]);
		return true;
	}
	return false;
}

static void emit_foreach(struct emitter *e, const struct node *n)
{
	const struct symbol *arr = n->foreach.array->sym;
	int u = e->nuniq++;
	int col = n->foreach.sort_column, dir = n->foreach.sort_dir;
	bool stats = arr->type == TY_STATS;

	if (e->kernel && col) {
		emit_kernel_sorted_foreach(e, n);
		return;
	}
	if (e->kernel) {
		emit_kernel_foreach(e, n);
		return;
	}

	/* the comparator: the sort column, then the keys in order */
	fprintf(e->decls, "static int stp_cmp%d(const void *pa, const void *pb)"
		"\n{\n\tconst struct stp_e%d *a = pa, *b = pb;\n\tint c;\n", u,
		arr->index);
	for (int pass = 0; pass < 2; pass++) {
		for (int k = -1; k < arr->nkeys; k++) {
			if (pass == 0 && !(col == -1 ? k == -1 : col == k + 1))
				continue;
			if (pass == 1 && k == -1)
				continue;
			int d = pass == 0 ? dir : 1;
			enum type t = k == -1 ? arr->type : arr->key_types[k];
			char f[32];
			if (k == -1 && stats)
				snprintf(f, sizeof(f), "%s", bpf_stat_sort_field(
					 n->foreach.sort_agg));
			else if (k == -1)
				snprintf(f, sizeof(f), "v%s", t == TY_STRING ?
					 ".s" : "");
			else
				snprintf(f, sizeof(f), "k.k%d", k);
			if (t == TY_STRING)
				fprintf(e->decls, "\tc = strcmp(a->%s, b->%s);\n",
					f, f);
			else
				fprintf(e->decls, "\tc = (a->%s > b->%s) - (a->%s "
					"< b->%s);\n", f, f, f, f);
			fprintf(e->decls, "\tif (c)\n\t\treturn %sc;\n",
				d < 0 ? "-" : "");
		}
	}
	fputs("\treturn 0;\n}\n\n", e->decls);

	fputs("{ ", e->out);
	if (stats)
		bpf_emit_stat_dump(e, arr, u);
	else
		fprintf(e->out, "size_t _n%d; struct stp_e%d *_es%d = stp_dump("
			"%d, sizeof(struct stp_k%d), offsetof(struct stp_e%d, "
			"v), sizeof(struct stp_e%d), &_n%d); ", u, arr->index,
			u, arr->index, arr->index, arr->index, arr->index, u);
	if (n->foreach.slice)
		bpf_emit_slice_filter(e, arr, n->foreach.slice, u);
	if (col)
		fprintf(e->out, "qsort(_es%d, _n%d, sizeof(*_es%d), stp_cmp%d); ",
			u, u, u, u);
	fprintf(e->out, "long long _lim%d = ", u);
	if (n->foreach.limit)
		bpf_emit_expr(e, n->foreach.limit);
	else
		fputs("-1", e->out);
	fprintf(e->out, "; for (size_t _i%d = 0; _i%d < _n%d && (_lim%d < 0 || "
		"(long long)_i%d < _lim%d); _i%d++) { struct stp_e%d *_e%d = "
		"&_es%d[_i%d]; ", u, u, u, u, u, u, u, arr->index, u, u, u);
	int k = 0;
	ast_foreach(v, n->foreach.keys) {
		if (arr->key_types[k] == TY_STRING)
			fprintf(e->out, "STRCPY(TMP(%d), _e%d->k.k%d); ",
				bpf_local_slot(e, v->sym), u, k);
		else
			fprintf(e->out, "l%d = _e%d->k.k%d; ",
				bpf_local_slot(e, v->sym), u, k);
		k++;
	}
	if (n->foreach.value) {
		const struct symbol *v = n->foreach.value->sym;
		if (arr->type == TY_STRING)
			fprintf(e->out, "STRCPY(TMP(%d), _e%d->v.s); ",
				bpf_local_slot(e, v), u);
		else
			fprintf(e->out, "l%d = _e%d->v; ", bpf_local_slot(e, v), u);
	}
	const char *saved = e->loop_jb;
	e->loop_jb = e->catch_jb;
	bool snap = !stats && e->nsnap < 8 && snapshot_safe(n);
	if (snap) {
		e->snap[e->nsnap] = n;
		e->snap_u[e->nsnap++] = u;
	}
	emit_stmt(e, n->foreach.body);
	e->nsnap -= snap;
	e->loop_jb = saved;
	fprintf(e->out, "} free(_es%d); }\n", u);
}

static void emit_delete(struct emitter *e, const struct node *x)
{
	if (x->kind == N_INDEX && bpf_has_wildcard(x->index.keys)) {
		bpf_emit_slice_delete(e, x->index.array->sym, x->index.keys);
	} else if (x->kind == N_INDEX) {
		int u = e->nuniq++;
		char key[32];
		snprintf(key, sizeof(key), "_k%d", u);
		fputs("{ ", e->out);
		bpf_emit_key(e, x->index.array->sym, x->index.keys, key,
			     sizeof(key));
		fprintf(e->out, "%s(%d, &%s); }\n",
			bpf_delete_macro(x->index.array->sym),
			x->index.array->sym->index, key);
	} else if (bpf_wraps(x->sym)) {
		fprintf(e->out, "stp_wclear%d();\n", x->sym->index);
	} else if (x->sym->type == TY_STATS) {
		bpf_emit_stat_clear(e, x->sym);
	} else if (x->sym->nkeys > 0 && e->kernel) {
		fprintf(e->out, "stp_kclear%d();\n", x->sym->index);
	} else if (x->sym->nkeys > 0) {
		fprintf(e->out, "stp_clear(%d, sizeof(struct stp_k%d));\n",
			x->sym->index, x->sym->index);
	} else if (x->type == TY_STRING) {
		bpf_emit_expr(e, x);
		fputs("[0] = 0;\n", e->out);
	} else {
		bpf_emit_expr(e, x);
		fputs(" = 0;\n", e->out);
	}
}

static void emit_loop_body(struct emitter *e, const struct node *body)
{
	const char *saved = e->loop_jb;
	bool saved_cb = e->loop_is_callback;

	e->loop_jb = e->catch_jb;
	e->loop_is_callback = false;
	emit_stmt(e, body);
	e->loop_jb = saved;
	e->loop_is_callback = saved_cb;
}

/* return [EXPR]: a probe's end, or the function's value and its end. */
static void emit_return(struct emitter *e, const struct node *n)
{
	if (!e->func) {
		fputs(e->callback_depth ? "{ C->done = 1; return 1; }\n" :
		      e->kernel ? "return;\n" : "goto stp_out;\n", e->out);
		return;
	}
	if (n->stmt.expr && e->func->sym->type == TY_STRING) {
		fputs("STRCPY(stp_ret, ", e->out);
		bpf_emit_expr(e, n->stmt.expr);
		fputs(");\n", e->out);
	} else if (n->stmt.expr) {
		fputs("stp_rv = (", e->out);
		bpf_emit_expr(e, n->stmt.expr);
		fputs(");\n", e->out);
	}
	fputs(e->callback_depth ? "{ C->done = 1; return 1; }\n" :
	      "goto stp_out;\n", e->out);
}

/*
 * try { } catch (msg) { } in the user half: the try's own jmp_buf is the
 * innermost handler while its body runs; an error longjmps there with the
 * message (without "near ...") and the call depth of the try restored.
 */
/*
 * try { } catch (msg) { } in the kernel half: S->trying counts the tries
 * the program is in (an error there is not reported: ERROR and FAULT keep
 * its id and address and bail), and STP_BAIL is the jump to this try's
 * catch while its body is written (push_macro/pop_macro nest them); a
 * function called in the body bails to its caller, which bails here.
 * The catch takes errors (S->err 1) and passes on the rest (next: 2).
 */
static void emit_kernel_try(struct emitter *e, const struct node *n)
{
	int u = e->nuniq++;
	char level[32];
	const char *saved = e->catch_jb;

	e->kernel_try = true;
	snprintf(level, sizeof(level), "(_t%d + 1)", u);
	fprintf(e->out, "{ int _t%d = S->trying; S->trying = _t%d + 1;\n"
		"#pragma push_macro(\"STP_BAIL\")\n#undef STP_BAIL\n"
		"#define STP_BAIL goto stp_c%d\n", u, u, u);
	e->catch_jb = arena_strdup(&e->s->arena, level);
	emit_stmt(e, n->try.body);
	e->catch_jb = saved;
	fprintf(e->out, "#pragma pop_macro(\"STP_BAIL\")\nS->trying = _t%d; "
		"goto stp_d%d;\nstp_c%d: S->trying = _t%d; if (S->err != 1) "
		"STP_BAIL; S->err = 0;\n", u, u, u, u);
	if (n->try.catch_var) {
		for (int i = 0; i < e->body->nlocals; i++)
			if (!strcmp(e->body->locals[i]->name, n->try.catch_var))
				fprintf(e->out, "if (S->errid == STP_ERRMSG) "
					"STRCPY(TMP(%d), S->errmsg); else "
					"stp_kwhat(TMP(%d), S->errid, "
					"S->erraddr);\n", e->tmp_base + i,
					e->tmp_base + i);
	}
	if (n->try.handler)
		emit_stmt(e, n->try.handler);
	fprintf(e->out, "stp_d%d: ; }\n", u);
}

static void emit_try(struct emitter *e, const struct node *n)
{
	int u = e->nuniq++;
	char jb[32];
	const char *saved = e->catch_jb;

	if (e->kernel) {
		emit_kernel_try(e, n);
		return;
	}

	snprintf(jb, sizeof(jb), "&_jb%d", u);
	fprintf(e->out, "{ jmp_buf _jb%d; int _d%d = stp_depth; stp_catch = "
		"&_jb%d; if (!setjmp(_jb%d)) {\n", u, u, u, u);
	e->catch_jb = arena_strdup(&e->s->arena, jb);
	emit_stmt(e, n->try.body);
	e->catch_jb = saved;
	fprintf(e->out, "stp_catch = %s; } else { stp_catch = %s; stp_depth = "
		"_d%d;\n", saved, saved, u);
	if (n->try.catch_var) {
		/* the catch variable is a local of the body */
		for (int i = 0; i < e->body->nlocals; i++)
			if (!strcmp(e->body->locals[i]->name, n->try.catch_var))
				fprintf(e->out, "STRCPY(TMP(%d), stp_err_what);\n",
					i);
	}
	if (n->try.handler)
		emit_stmt(e, n->try.handler);
	fputs("} }\n", e->out);
}

/* Charge one statement against MAXACTION, as the module backend does. */
static void emit_action(struct emitter *e, const struct node *n)
{
	fprintf(e->out, "ACTION(%d);\n", bpf_error_id(e, "MAXACTION exceeded", n));
}

/* A for loop's step, charged as a statement of its own (the module's
 * gen_loop): each round of `for (...; i++)` costs its body and its step. */
static void emit_for_step(struct emitter *e, const struct node *step)
{
	fputs("({ ", e->out);
	emit_action(e, step);
	bpf_emit_expr(e, step);
	fputs("; })", e->out);
}

static void emit_stmt(struct emitter *e, const struct node *n)
{
	int saved = e->ntmp;

	/* a statement with its charge: one C statement, in braces */
	bool charged = n->kind != N_BLOCK && n->kind != N_NULL_STMT;
	if (charged) {
		fputs("{ ", e->out);
		emit_action(e, n);
	}
	if ((n->kind == N_WHILE || n->kind == N_FOR) &&
	    !stmt_charges_action(n->loop.body)) {
		/* an empty body still pays per iteration */
		struct node *body = (struct node *)n->loop.body;
		fputs(n->kind == N_WHILE ? "while (" : "for (", e->out);
		if (n->kind == N_FOR) {
			if (n->loop.init)
				bpf_emit_expr(e, n->loop.init);
			fputs("; ", e->out);
		}
		if (n->loop.cond)
			bpf_emit_expr(e, n->loop.cond);
		else
			fputs("1", e->out);
		if (n->kind == N_FOR) {
			fputs("; ", e->out);
			if (n->loop.step)
				emit_for_step(e, n->loop.step);
		}
		fputs(") { ", e->out);
		emit_action(e, n);
		emit_loop_body(e, body);
		fputs("}\n}\n", e->out);
		e->ntmp = saved;
		return;
	}

	switch (n->kind) {
	case N_BLOCK:
		fputs("{\n", e->out);
		ast_foreach(st, n->block.stmts)
			emit_stmt(e, st);
		fputs("}\n", e->out);
		break;
	case N_NULL_STMT:
		fputs(";\n", e->out);
		break;
	case N_EXPR_STMT:
		fputs("(void)(", e->out);
		bpf_emit_expr(e, n->stmt.expr);
		fputs(");\n", e->out);
		break;
	case N_IF:
		fputs("if (", e->out);
		bpf_emit_expr(e, n->cond.cond);
		fputs(") ", e->out);
		emit_stmt(e, n->cond.then);
		if (n->cond.els) {
			fputs("else ", e->out);
			emit_stmt(e, n->cond.els);
		}
		break;
	case N_WHILE:
		fputs("while (", e->out);
		bpf_emit_expr(e, n->loop.cond);
		fputs(") ", e->out);
		emit_loop_body(e, n->loop.body);
		break;
	case N_FOR:
		fputs("for (", e->out);
		if (n->loop.init)
			bpf_emit_expr(e, n->loop.init);
		fputs("; ", e->out);
		if (n->loop.cond)
			bpf_emit_expr(e, n->loop.cond);
		else
			fputs("1", e->out);
		fputs("; ", e->out);
		if (n->loop.step)
			emit_for_step(e, n->loop.step);
		fputs(") ", e->out);
		emit_loop_body(e, n->loop.body);
		break;
	case N_FOREACH:
		emit_foreach(e, n);
		break;
	case N_BREAK:
	case N_CONTINUE:
		/* out of a try inside the loop: the loop's handler again */
		if (e->loop_jb != e->catch_jb)
			fprintf(e->out, e->kernel ? "S->trying = %s; " :
				"stp_catch = %s; ", e->loop_jb);
		if (e->loop_is_callback)	/* a kernel foreach's body */
			fputs(n->kind == N_BREAK ? "return 1;\n" :
			      "return 0;\n", e->out);
		else
			fputs(n->kind == N_BREAK ? "break;\n" : "continue;\n",
			      e->out);
		break;
	case N_NEXT:
		if (!e->kernel)
			fputs("stp_next();\n", e->out);
		else if (e->func || e->callback_depth)	/* the probe ends too */
			fputs("{ S->err = 2; STP_BAIL; }\n", e->out);
		else
			fputs("return;\n", e->out);
		break;
	case N_RETURN:
		emit_return(e, n);
		break;
	case N_TRY:
		emit_try(e, n);
		break;
	case N_DELETE:
		emit_delete(e, n->stmt.expr);
		break;
	default:
		diag_error(e->s, n->loc, "the bpf backend cannot translate %s",
			   ast_kind_name(n->kind));
	}
	if (charged)
		fputs("}\n", e->out);
	e->ntmp = saved;
}

/* A body's or function's locals: strings in their temporaries, longs
 * as C locals (volatile in the user half: a try's longjmp keeps them). */
static void find_foreach(struct node *n, void *arg)
{
	if (n->kind == N_FOREACH)
		*(bool *)arg = true;
}

static void emit_locals(struct emitter *e, struct probe_body *b, int from)
{
	/* a kernel foreach's callback reads and writes them */
	e->scratch_locals = false;
	if (e->kernel)
		ast_visit(e->func ? b->probe->func.body : b->probe->probe.body,
			  find_foreach, &e->scratch_locals);
	for (int i = 0; i < b->nlocals; i++) {
		int k = e->tmp_base + i;
		if (b->locals[i]->type == TY_STRING && i >= from)
			fprintf(e->out, "\tTMP(%d)[0] = 0;\n", k);
		else if (b->locals[i]->type == TY_STRING)
			fprintf(e->out, "\tSTRCPY(TMP(%d), a%d);\n", k, i);
		else if (e->scratch_locals && i < from)
			fprintf(e->out, "\tS->v[%d] = a%d;\n", k, i);
		else if (e->scratch_locals)
			fprintf(e->out, "\tS->v[%d] = 0;\n", k);
		else if (i < from)
			fprintf(e->out, "\t%slong long l%d = a%d; (void)l%d;\n",
				e->kernel ? "" : "volatile ", k, i, k);
		else
			fprintf(e->out, "\t%slong long l%d = 0; (void)l%d;\n",
				e->kernel ? "" : "volatile ", k, k);
		bpf_new_tmp(e);
	}
	e->ntmp = 0;
}

void bpf_emit_body(struct emitter *e, struct probe_body *b, FILE *out)
{
	e->body = b;
	e->func = NULL;
	e->ntmp = 0;
	e->out = out;
	e->catch_jb = e->loop_jb = e->kernel ? "0" : "&stp_jb";
	bool interruptible = false;
	for (int j = 0; j < e->prog->nprobes; j++) {
		enum bpf_place p = bpf_place_of(e->prog->probes[j], NULL, NULL);
		if (e->prog->probes[j]->body == b && (p == BPF_PLACE_BEGIN ||
						     p == BPF_PLACE_END))
			interruptible = true;
	}
	/* MAXACTION, and MAXACTION_INTERRUPTIBLE (10 times that unless
	 * -D sets it) for begin and end, as the module's */
	long long max = bpf_limit(e->s, interruptible ?
				  "MAXACTION_INTERRUPTIBLE" : "MAXACTION");
	if (e->kernel) {
		fprintf(out, "STP_FN void stp_b%d(void)\n{\n\tBODY_PROLOGUE\n"
			"\tlong stp_actions = 0, stp_max_actions = %lld;\n",
			b->index, max);
		/* no match yet in this probe (the module's context) */
		if (bpf_kernel_groups(e))
			fputs("\tSTP_KRE_RESET();\n", out);
	} else {
		/* an error ends the probe here: said by the loader */
		fprintf(out, "static void stp_b%d(void)\n{\n"
			"\tchar stp_tmp[STP_TMPS][STP_STR];\n\tjmp_buf stp_jb;\n"
			"\tstp_actions = 0;\n\tstp_max_actions = %lld;\n"
			"\tstp_depth = 0;\n\tstp_catch = stp_body_jb = &stp_jb;\n"
			"\tswitch (setjmp(stp_jb)) {\n\tcase 0: break;\n"
			"\tcase 1: rt->error_text(stp_err_full); return;\n"
			"\tdefault: return;\n\t}\n", b->index, max);
	}
	emit_locals(e, b, 0);
	emit_stmt(e, b->probe->probe.body);
	fputs(e->kernel ? "}\n\n" : "stp_out: ;\n}\n\n", out);
}

/* A script function's C signature (the user half). */
void bpf_func_signature(struct emitter *e, const struct script_func *f,
			   FILE *out)
{
	if (e->kernel)
		fprintf(out, "STP_FN long long stp_kf%d(struct stp_scratch *S, "
			"long *stp_ap, long stp_max_actions, char *stp_ret, "
			"unsigned stp_site", f->index);
	else
		fprintf(out, "static long long stp_f%d(char *stp_ret, "
			"unsigned stp_site", f->index);
	for (int i = 0; i < f->nparams; i++)
		fprintf(out, f->scope->locals[i]->type == TY_STRING ?
			", const char *a%d" : ", long long a%d", i);
	fputc(')', out);
}

/* A script function (user half): its frame on the C stack, MAXNESTING
 * counted in stp_depth, a string result in the caller's stp_ret;
 * stp_site: the error of MAXNESTING at the call (its place). */
void bpf_emit_function(struct emitter *e, const struct script_func *f,
			  FILE *out)
{
	struct probe_body *b = f->scope;
	const struct program *prog = e->prog;
	/* the module's MAXNESTING: the program's own unless -D sets it */
	long long nesting = bpf_limit(e->s, "MAXNESTING");
	if (nesting < 0)
		nesting = prog->max_nesting < 0 ? prog->recursive_nesting :
			  prog->max_nesting > 2 ? prog->max_nesting - 1 : 1;

	e->body = b;
	e->func = f;
	e->ntmp = 0;
	e->out = out;
	e->catch_jb = e->loop_jb = e->kernel ? "stp_trying0" :
				   "stp_saved_catch";
	if (e->kernel) {
		/* inlined; no recursion (pass 2), so no nesting count */
		fputs("#undef STP_BAIL\n#define STP_BAIL return 0\n"
		      "#define stp_actions (*stp_ap)\n", out);
		bpf_func_signature(e, f, out);
		/* a return from inside a try: the caller's level of tries */
		fputs("\n{\n\tlong long stp_rv = 0;\n\tif (stp_ret)\n"
		      "\t\tstp_ret[0] = 0;\n\tint stp_trying0 = S->trying;\n"
		      "\t(void)stp_trying0;\n", out);
		/* MAXNESTING: counted in here, out by the caller (an error
		 * returns from anywhere) */
		fprintf(out, "\tif (++S->depth > %lld)\n"
			"\t\tERROR(stp_site);\n", nesting);
		emit_locals(e, b, f->nparams);
		emit_stmt(e, b->probe->func.body);
		fputs("stp_out:\n\tS->trying = stp_trying0;\n"
		      "\treturn stp_rv;\n}\n#undef stp_actions\n"
		      "#undef STP_BAIL\n#define STP_BAIL return\n\n", out);
		e->func = NULL;
		return;
	}
	bpf_func_signature(e, f, out);
	fprintf(out, "\n{\n\tchar stp_tmp[STP_TMPS][STP_STR];\n"
		"\tlong long stp_rv = 0;\n\tjmp_buf *stp_saved_catch = "
		"stp_catch;\n\tif (stp_ret)\n\t\tstp_ret[0] = 0;\n"
		"\tif (stp_depth >= %lld)\n\t\tERROR(stp_site);\n"
		"\tstp_depth++;\n", nesting);
	emit_locals(e, b, f->nparams);
	emit_stmt(e, b->probe->func.body);
	fputs("stp_out:\n\tstp_catch = stp_saved_catch;\n\tstp_depth--;\n"
	      "\treturn stp_rv;\n}\n\n", out);
	e->func = NULL;
}

