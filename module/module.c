// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: the module. The text of one kernel module: the frame union of
 * every handler, the script's globals (runtime objects for arrays and
 * statistics) and their locks, embedded C, the handlers (stmt.c), the
 * lean probes' counts, each event body's hit (what its handler uses of a
 * context, and the fast path with it), then each attach kind's own C
 * (struct kind_emit, emit_KIND.c: callbacks, readers, tables), the probe
 * table (runtime/probes.h), each kind's table (runtime/KIND.h) and the
 * list of them the runtime arms.
 */
#include "module/emit.h"
#include "lib/deep.h"
#include "lib/hash.h"

#include <ctype.h>

#include "config.h"

/* ---- module ------------------------------------------------------------ */

/*
 * Top-level %{ %} blocks, in order, at file scope after the runtime and
 * before the script's globals and code: #includes and C helpers for the
 * embedded functions.
 */
static void gen_embeds(struct cg *cg, FILE *out)
{
	/* a tapset's static C helpers serve the functions a script uses,
	 * which may be none of them */
	if (cg->prog->nembeds)
		fputs("\n#pragma GCC diagnostic push\n"
		      "#pragma GCC diagnostic ignored \"-Wunused-function\"\n",
		      out);
	bool ustack = false, lines = false;
	/* the line tables, only for a script that asks for source lines
	 * (the fileline tapset's embedded C names them) */
	for (int i = 0; i < cg->prog->nembeds; i++)
		lines |= strstr(cg->prog->embeds[i]->embedded.code,
				"STP_NEED_ULINES") != NULL;
	for (int i = 0; i < cg->prog->nembeds; i++) {
		const struct node *e = cg->prog->embeds[i];
		const struct srcfile *f = session_file(cg->s, e->loc.file);
		/* the user stack tapset's runtime reads the objects' tables */
		if (strstr(e->embedded.code, "STP_NEED_KLINES"))
			gen_kernel_lines(cg, out);
		if (!ustack && strstr(e->embedded.code, "#include \"ustack.c\"")) {
			gen_unwind_tables(cg, out, lines);
			ustack = true;
		}
		fprintf(out, "\n/* embedded C at %s:%d:%d */\n%s\n",
			c_comment(cg, f ? f->name : "?"), e->loc.line, e->loc.col,
			e->embedded.code);
	}
	if (cg->prog->nembeds)
		fputs("#pragma GCC diagnostic pop\n", out);
}

/* Does a -G option set global name? Only those become module parameters,
 * so other scripts' C is unchanged by the feature. */
static bool set_at_load(const struct session *s, const char *name)
{
	for (int i = 0; i < s->nglobal_settings; i++)
		if (!strcmp(s->global_settings[i].name, name))
			return true;
	return false;
}

/* v as a C constant: -2^63 has no literal of its own. */
static const char *c_int64(char buf[32], int64_t v)
{
	if (v == INT64_MIN)
		return "(-9223372036854775807LL - 1)";
	snprintf(buf, 32, "%" PRId64 "LL", v);
	return buf;
}

/* Storage of what the units of a split module share: none (external,
 * under a module-local name), else static. */
static const char *storage(const struct cg *cg)
{
	return cg->split ? "" : "static ";
}

static void gen_globals(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	const char *st = storage(cg);

	if (prog->nglobals)
		fputs("\n/* globals */\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const struct node *init = g->decl ? g->decl->global.init : NULL;
		if (g->type == TY_STATS) {
			const char *h = g->hist == HIST_LOG ? "STP_HIST_LOG" :
				g->hist == HIST_LINEAR ? "STP_HIST_LINEAR" :
				"STP_HIST_NONE";
			/* hi > lo and step > 0 (types.c): hi - lo fits a u64 */
			int nb = g->hist == HIST_LOG ? 128 : g->hist == HIST_LINEAR ?
				(int)(((uint64_t)g->hist_hi - (uint64_t)g->hist_lo) /
				      (uint64_t)g->hist_step) + 3 : 0;
			char lo[32], hi[32];
			fprintf(out, "%sconst struct stp_stat_desc stp_gsd_%s = "
				"{ .hist = %s, .variance = %d, .shift = %d, "
				".lo = %s, .hi = %s, "
				".step = %" PRId64 "LL, .nbuckets = %d };\n",
				st, g->cname, h, g->uses_variance, g->var_shift,
				c_int64(lo, g->hist_lo), c_int64(hi, g->hist_hi),
				g->hist_step, nb);
		}
		if (g->nkeys) {
			char keys[MAX_KEYS + 1];
			for (int k = 0; k < g->nkeys; k++)
				keys[k] = g->key_types[k] == TY_STRING ? 's' : 'l';
			keys[g->nkeys] = '\0';
			int64_t max = g->decl ? g->decl->global.max_entries : 0;
			fprintf(out, "%sconst struct stp_map_desc stp_gmd_%s = "
				"{ .keys = \"%s\", .vtype = %s, .wrap = %s, "
				".max_entries = ", st, g->cname, keys,
				g->type == TY_STRING ? "STP_VAL_STRING" :
				g->type == TY_STATS ? "STP_VAL_STAT" : "STP_VAL_LONG",
				g->decl && g->decl->global.wrap ? "true" : "false");
			if (max > 0)
				fprintf(out, "%" PRId64, max);
			else
				fputs("MAXMAPENTRIES", out);
			if (g->type == TY_STATS)
				fprintf(out, ", .stat = &stp_gsd_%s", g->cname);
			fputs(" };\n", out);
			fprintf(out, "%sstruct stp_%s stp_g_%s;\n", st,
				g->type == TY_STATS ? "pmap" : "map", g->cname);
			continue;
		}
		switch (g->type) {
		case TY_STRING:
			if (init) {
				size_t len = init->str.len;
				if (len > 511)	/* MAXSTRINGLEN - 1 at the default */
					len = 511;
				fprintf(out, "%schar stp_g_%s[MAXSTRINGLEN] = %s;\n",
					st, g->cname, c_string(cg, init->str.value, len));
			} else {
				fprintf(out, "%schar stp_g_%s[MAXSTRINGLEN];\n",
					st, g->cname);
			}
			break;
		case TY_STATS:
			fprintf(out, "%sstruct stp_pstat stp_g_%s;\n", st,
				g->cname);
			break;
		default:
			fprintf(out, "%sint64_t stp_g_%s = %" PRId64 "LL;\n",
				st, g->cname, init ? init->num.value : 0);
			break;
		}
		/* for embedded C that declares it with a pragma (pass 2); of
		 * two private globals of one name, the first file's has them */
		if (g->cname != g->name)
			continue;
		if (set_at_load(cg->s, g->name)) {
			/* -G: the loader passes NAME=VALUE to the module */
			if (g->type == TY_STRING)
				fprintf(out, "module_param_string(%s, stp_g_%s, "
					"MAXSTRINGLEN, 0);\n", g->name, g->cname);
			else
				fprintf(out, "module_param_cb(%s, &stp_param_ops_int64, "
					"&stp_g_%s, 0);\n", g->name, g->cname);
		}
		if (g->type == TY_STRING)
			fprintf(out, "#define STAP_GLOBAL_GET_%s() "
				"((const char *)stp_g_%s)\n"
				"#define STAP_GLOBAL_SET_%s(v) "
				"strlcpy(stp_g_%s, (v), MAXSTRINGLEN)\n",
				g->name, g->cname, g->name, g->cname);
		else if (g->type == TY_LONG)
			fprintf(out, "#define STAP_GLOBAL_GET_%s() (stp_g_%s)\n"
				"#define STAP_GLOBAL_SET_%s(v) "
				"(stp_g_%s = (int64_t)(v))\n",
				g->name, g->cname, g->name, g->cname);
	}
}

static bool has_containers(const struct program *prog)
{
	for (int i = 0; i < prog->nglobals; i++)
		if (prog->globals[i]->nkeys || prog->globals[i]->type == TY_STATS)
			return true;
	return false;
}

/* stp_globals_init / stp_globals_free: the arrays and statistics. */
static void gen_globals_init(const struct program *prog, FILE *out)
{
	fputs("\nstatic void stp_globals_free(void)\n{\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (g->nkeys)
			fprintf(out, "\tstp_%s_free(&stp_g_%s);\n",
				g->type == TY_STATS ? "pmap" : "map", g->cname);
		else if (g->type == TY_STATS)
			fprintf(out, "\tstp_pstat_free(&stp_g_%s);\n", g->cname);
	}
	fputs("}\n\nstatic int stp_globals_init(void)\n{\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (g->nkeys && g->type == TY_STATS)
			fprintf(out, "\tif (stp_pmap_init(&stp_g_%s, &stp_gmd_%s))\n"
				"\t\tgoto nomem;\n", g->cname, g->cname);
		else if (g->nkeys)
			fprintf(out, "\tif (stp_map_init(&stp_g_%s, &stp_gmd_%s, "
				"stp_gmd_%s.max_entries))\n\t\tgoto nomem;\n",
				g->cname, g->cname, g->cname);
		else if (g->type == TY_STATS)
			fprintf(out, "\tif (stp_pstat_init(&stp_g_%s, &stp_gsd_%s))\n"
				"\t\tgoto nomem;\n", g->cname, g->cname);
	}
	fputs("\treturn 0;\nnomem:\n\tstp_globals_free();\n\treturn -ENOMEM;\n}\n",
	      out);
}

/*
 * Foreach snapshot slots a CPU may need at once: each loop's array size,
 * times the call depth for loops inside functions.
 */
static void iter_slots(const struct program *prog, const struct node *n,
		       struct strbuf *sb)
{
	if (!n)
		return;
	if (n->kind == N_FOREACH && n->foreach.array->sym) {
		const struct symbol *g = n->foreach.array->sym;
		int64_t max = g->decl ? g->decl->global.max_entries : 0;
		if (max > 0)
			sb_printf(sb, " + %" PRId64, max);
		else
			sb_puts(sb, " + MAXMAPENTRIES");
	}
	switch (n->kind) {
	case N_BLOCK:
		ast_foreach(st, n->block.stmts)
			iter_slots(prog, st, sb);
		break;
	case N_IF:
		iter_slots(prog, n->cond.then, sb);
		iter_slots(prog, n->cond.els, sb);
		break;
	case N_WHILE:
	case N_FOR:
		iter_slots(prog, n->loop.body, sb);
		break;
	case N_FOREACH:
		iter_slots(prog, n->foreach.body, sb);
		break;
	case N_TRY:
		iter_slots(prog, n->try.body, sb);
		iter_slots(prog, n->try.handler, sb);
		break;
	default:
		break;
	}
}

/*
 * A lean body: nothing but counter statements adding constants (or no
 * statement at all). An event probe with one runs without a context,
 * locks or registers: the runtime adds each constant to this CPU's slot
 * (stp_probe_lean) when events are on. What it needs of a context, no
 * other hit on this CPU can disturb, and it cannot fail: the action
 * budget is the only limit, hence .lean = MAXACTION > statements.
 */
static bool lean_stmt(struct cg *cg, const struct node *n,
		      const struct node *skip, struct strbuf *out, int *nstmts)
{
	if (n->kind == N_BLOCK) {
		ast_foreach(st, n->block.stmts)
			if (!lean_stmt(cg, st, skip, out, nstmts))
				return false;
		return true;
	}
	if (n->kind == N_NULL_STMT || n == skip)
		return true;
	const struct node *t = count_target(n);
	int slot = t ? lock_plan_counter(cg->locks, t->sym) : -1;
	if (slot < 0)
		return false;
	const struct node *e = n->stmt.expr;
	uint64_t delta;
	if (e->kind == N_INCDEC)
		delta = e->incdec.increment ? 1 : (uint64_t)-1;
	else if (e->binary.rhs->kind == N_NUMBER)
		delta = e->binary.op == OP_ADD ?
			(uint64_t)e->binary.rhs->num.value :
			0 - (uint64_t)e->binary.rhs->num.value;
	else
		return false;
	sb_printf(out, "\t{ %d, 0x%" PRIx64 "ULL },\n", slot, delta);
	(*nstmts)++;
	return true;
}



/*
 * The table entries of each point the script wrote: a wildcard over
 * aliases (syscall.*) is hundreds of entries, often of one tracepoint,
 * and its lost output is one warning. Open addressing on the point.
 */
struct point_group {
	struct point_slot {
		const struct node *point;
		int first;		/* its first table entry */
	} *slot;
	size_t n, cap;			/* cap: a power of two, or 0 */
};

static size_t point_slot(const struct point_group *g, const struct node *p)
{
	size_t i = (size_t)(fnv1a(FNV_OFFSET, &p, sizeof(p)) & (g->cap - 1));

	while (g->slot[i].point && g->slot[i].point != p)
		i = (i + 1) & (g->cap - 1);
	return i;
}

/* The first table entry of point p: k, when this is the first. */
static int point_group_first(struct point_group *g, const struct node *p,
			     int k)
{
	if (!p)
		return k;
	if (2 * (g->n + 1) > g->cap) {
		struct point_group grown = { .n = g->n };

		grown.cap = g->cap ? 2 * g->cap : 64;
		grown.slot = xmalloc(grown.cap * sizeof(*grown.slot));
		memset(grown.slot, 0, grown.cap * sizeof(*grown.slot));
		for (size_t i = 0; i < g->cap; i++)
			if (g->slot[i].point)
				grown.slot[point_slot(&grown,
					   g->slot[i].point)] = g->slot[i];
		free(g->slot);
		*g = grown;
	}
	size_t i = point_slot(g, p);

	if (!g->slot[i].point) {
		g->slot[i] = (struct point_slot){ p, k };
		g->n++;
	}
	return g->slot[i].first;
}

/*
 * Whose lost-output warning entry k's losses join (.lost_to, the
 * point's first entry), and in that one the point as the script wrote
 * it (.point), which the warning names.
 */
static void lost_fields(struct cg *cg, const struct node *point, int k,
			int first, FILE *out)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	fprintf(out, ",\n\t  .lost_to = %d", first);
	if (!point || first != k)
		return;
	m = open_memstream(&text, &len);
	ast_unparse_point(m, point);
	fclose(m);
	fprintf(out, ", .point = %s", c_string(cg, text, len));
	free(text);
}

/*
 * Where the probe is written ("x.stp:2:1": the lost-output warning and
 * -t's report) and, with -t, what it came from, for the report SystemTap
 * prints ("begin, (x.stp:2:1), hits: 1, ... from: begin, ...").
 */
static void timing_fields(struct cg *cg, const struct derived_probe *dp,
			  FILE *out)
{
	const struct node *probe = dp->body->user_probe;
	const struct srcfile *f = session_file(cg->s, probe->loc.file);
	char *loc = arena_printf(&cg->s->arena, "%s:%d:%d", f ? f->name : "?",
				 probe->loc.line, probe->loc.col);
	char *from = NULL;
	size_t len = 0;
	FILE *m;

	fprintf(out, ",\n\t  .location = %s", c_string(cg, loc, strlen(loc)));
	if (!cg->s->timing)
		return;
	m = open_memstream(&from, &len);
	fputs(" from: ", m);
	ast_unparse_point(m, probe->probe.points);
	fclose(m);
	fprintf(out, ", .derivation = %s", c_string(cg, from, len));
	free(from);
}

/* stp_counts_B[] of each lean body B (cg->nlean, cg->filtered). */
static void gen_lean_counts(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	struct strbuf counts = { 0 };

	for (int b = 0; b < prog->nbodies; b++) {
		const struct probe_body *body = prog->bodies[b];
		const struct node *code = body->probe->probe.body;
		const struct node *skip = NULL;
		bool event = false, filtered = true;
		int n = 0;

		cg->nlean[b] = -1;
		cg->filtered[b] = false;
		if (cg->s->timing)
			continue;	/* -t times every hit: a context each */
		int nprobes;
		const struct derived_probe *const *probes =
			body_probes(prog, body, &nprobes);
		for (int i = 0; i < nprobes; i++) {
			const struct derived_probe *dp = probes[i];
			const struct kind_emit *e = emit_of(dp);
			event |= e->lean;
			filtered &= e->filters && e->filters(dp);
		}
		if (!event || body->nentry_values)
			continue;
		if (filtered)
			skip = first_stmt(code);
		else if (body->nctxvars)
			continue;
		sb_reset(&counts);
		if (!lean_stmt(cg, code, skip, &counts, &n))
			continue;
		cg->nlean[b] = n;
		cg->filtered[b] = filtered;
		fprintf(out, "\n/* probe %d is lean%s: these counts only */\n"
			"static const struct stp_count stp_counts_%d[] = {\n"
			"%s\t{ 0, 0 }\t/* ARRAY_SIZE never 0 */\n};\n",
			b, filtered ? " past its filter" : "", b,
			sb_str(&counts));
	}
	sb_free(&counts);
}







/*
 * Does a probe of body b run through the runtime's callbacks (which call
 * the entry's .hit)? Not when all its probes' kinds run stp_run_B
 * from callbacks of their own (own_hits).
 */
static bool runtime_hit(const struct cg *cg, int b)
{
	int n;
	const struct derived_probe *const *probes =
		body_probes(cg->prog, cg->prog->bodies[b], &n);

	for (int i = 0; i < n; i++)
		if (emit_of(probes[i])->event &&
		    !emit_of(probes[i])->own_hits)
			return true;
	return false;
}

/*
 * Each event body B's hit: STP_USE_B (what its handler uses of a
 * context), stp_run_B (the runtime's fast path with the handler and
 * those bits as constants, inlined where a kind's callback calls it:
 * a tracepoint's, a kernel function's own ftrace function) and, for a
 * body the runtime's own callbacks run, stp_hit_B, the same as a
 * function (stp_probe.hit). A body only tracepoints run has no
 * stp_hit_B: syscall.*'s 347 would double the code the compiler makes.
 */
static void gen_hits(struct cg *cg, FILE *out)
{
	for (int b = 0; b < cg->prog->nbodies; b++) {
		if (!cg->locks->event_body[b])
			continue;
		fprintf(out, "\n/* probe %d's hits set up only what it uses */\n"
			"#define STP_USE_%d %s\n"
			"static __always_inline void stp_run_%d(const struct "
			"stp_probe *p,\n\t\tconst struct stp_tp_args *args, "
			"struct pt_regs *regs)\n{\n"
			"\tstp_probe_fast(p, stp_probe_%d, STP_USE_%d,\n"
			"\t\t       sizeof(struct stp_locals_probe_%d), args, "
			"regs);\n}\n", b, b, use_expr(cg, b), b, b, b, b);
		if (runtime_hit(cg, b))
			fprintf(out, "STP_PROBE_HIT(stp_hit_%d, stp_run_%d)\n",
				b, b);
	}
}

/* The table entries before probe i (the table leaves out "never"
 * probes): counted once for the program, as a lookup per probe made
 * pass 3 quadratic. The counts are a cache: prog is the caller's. */
int table_index(const struct program *prog, int i)
{
	if (!prog->table_slot || prog->table_slots != prog->nprobes + 1) {
		struct program *p = (struct program *)prog;
		int *slot = arena_alloc(&p->s->arena, ((size_t)p->nprobes + 1) *
					sizeof(*slot));

		for (int j = 0; j < p->nprobes; j++)
			slot[j + 1] = slot[j] +
				(emit_of(p->probes[j])->probe_type(
					p->probes[j]) != NULL);
		p->table_slot = slot;
		p->table_slots = p->nprobes + 1;
	}
	return prog->table_slot[i];
}

const struct kind_emit *scope_emit(const struct cg *cg)
{
	const struct probe_body *b = context_body(cg->scope);
	const struct derived_probe *dp = b ? body_first_probe(cg->prog, b) :
					     NULL;

	return dp ? emit_of(dp) : NULL;
}

void **kind_state(struct cg *cg, enum attach_kind kind)
{
	return &cg->kind_states[kind];
}

/* Call a hook of every kind with probes in the program, once each, in
 * the order of their first probes. */
static void each_kind(struct cg *cg, FILE *out,
		      void (*(*hook)(const struct kind_emit *))(struct cg *,
								FILE *))
{
	const struct kind_emit **seen = xmalloc((size_t)(cg->prog->nprobes + 1) *
						sizeof(*seen));
	int nseen = 0;

	/* two kinds may share one emitter (a kernel function's entry and
	 * return): it runs once */
	for (int i = 0; i < cg->prog->nprobes; i++) {
		const struct kind_emit *e = emit_of(cg->prog->probes[i]);
		bool done = false;
		for (int k = 0; k < nseen; k++)
			done |= seen[k] == e;
		if (done)
			continue;
		seen[nseen++] = e;
		void (*fn)(struct cg *, FILE *) = hook(e);
		if (fn)
			fn(cg, out);
	}
	free(seen);
}

static void (*defines_hook(const struct kind_emit *e))(struct cg *, FILE *)
{
	return e->defines;
}

static void (*support_hook(const struct kind_emit *e))(struct cg *, FILE *)
{
	return e->support;
}

/* ---- functions, their copies merged ------------------------------------ */

/* One function's frame struct and C function. */
struct fn_text {
	char *structs, *body;
	size_t nstructs, nbody;
	int merged;			/* copies merged into this one */
};

static void gen_fn_text(struct cg *cg, int i, struct fn_text *t)
{
	FILE *sf, *bf;

	free(t->structs);
	free(t->body);
	t->structs = t->body = NULL;
	sf = open_memstream(&t->structs, &t->nstructs);
	bf = open_memstream(&t->body, &t->nbody);
	gen_body(cg, sf, bf, cg->prog->funcs[i]->scope);
	fclose(sf);
	fclose(bf);
}

/* After its first line (the body's comment, which names the probe). */
static const char *past_comment(const char *body)
{
	const char *end = strstr(body, "*/\n");

	return end ? end + 3 : body;
}

/* Are a (of function ia) and b (of ib) the same C but for those numbers
 * in their names (..._fn_IA, ..._fn_IB)? */
static bool same_but_index(const char *a, int ia, const char *b, int ib)
{
	char na[24], nb[24];
	size_t la = (size_t)snprintf(na, sizeof(na), "_fn_%d", ia);
	size_t lb = (size_t)snprintf(nb, sizeof(nb), "_fn_%d", ib);

	while (*a && *b) {
		if (!strncmp(a, na, la) && !isdigit((unsigned char)a[la]) &&
		    !strncmp(b, nb, lb) && !isdigit((unsigned char)b[lb])) {
			a += la;
			b += lb;
			continue;
		}
		if (*a++ != *b++)
			return false;
	}
	return *a == *b;
}

/*
 * The C of the used functions into texts. The copies of one function
 * made for several probe bodies (copies.c) often come out as the same C
 * (the aliases of syscall.* calling one helper that reads $id): a copy
 * whose frame and body are an earlier copy's but for its own number is
 * merged into it, cg->fn_c[i] naming the function its calls run. As the
 * copies' calls of other copies go through fn_c, the kept copies are
 * made again after a merge, until none is left to merge.
 */
static void gen_functions(struct cg *cg, struct fn_text *texts)
{
	const struct program *prog = cg->prog;
	bool changed = true;

	for (int i = 0; i < prog->nfuncs; i++)
		cg->fn_c[i] = i;
	for (int round = 0; changed; round++) {
		changed = false;
		for (int i = 0; i < prog->nfuncs; i++) {
			const struct script_func *f = prog->funcs[i];
			/* other functions never call copies */
			if (f->used && cg->fn_c[i] == i &&
			    (!round || f->copy_of))
				gen_fn_text(cg, i, &texts[i]);
		}
		for (int i = 0; i < prog->nfuncs; i++) {
			const struct script_func *f = prog->funcs[i];
			if (!f->used || !f->copy_of || cg->fn_c[i] != i)
				continue;
			for (int j = 0; j < i; j++) {
				const struct script_func *g = prog->funcs[j];
				if (!g->used || g->copy_of != f->copy_of ||
				    cg->fn_c[j] != j ||
				    !same_but_index(texts[i].structs, i,
						    texts[j].structs, j) ||
				    !same_but_index(past_comment(texts[i].body), i,
						    past_comment(texts[j].body), j))
					continue;
				cg->fn_c[i] = j;
				texts[j].merged += 1 + texts[i].merged;
				changed = true;
				break;
			}
		}
	}
}

/* One function's or handler's C, and the unit of the module it goes to. */
struct chunk {
	char *text;
	size_t len;
	bool fixed;		/* embedded C: in unit 0, with the top-level
				 * %{ %} blocks it may use */
	int fn;			/* the function's index, -1: a handler */
	int unit;
};

/* The C of the kept functions: their structs, their bodies (a merged
 * copy's comment says how many probes share it), a chunk each. */
static void put_functions(struct cg *cg, struct fn_text *texts, FILE *sf,
			  struct chunk *chunks, int *nchunks)
{
	const struct program *prog = cg->prog;

	for (int i = 0; i < prog->nfuncs; i++) {
		struct fn_text *t = &texts[i];
		if (!prog->funcs[i]->used || cg->fn_c[i] != i)
			continue;
		fputs(t->structs, sf);
		const char *rest = past_comment(t->body);
		struct chunk *c = &chunks[(*nchunks)++];
		FILE *bf = open_memstream(&c->text, &c->len);
		if (t->merged && rest != t->body)
			fprintf(bf, "%.*s (the copies for %d more probe "
				"bodies are the same C) */\n%s",
				(int)(rest - t->body - 4), t->body, t->merged,
				rest);
		else
			fputs(t->body, bf);
		fclose(bf);
		c->fixed = prog->funcs[i]->embedded;
		c->fn = i;
	}
	for (int i = 0; i < prog->nfuncs; i++) {
		free(texts[i].structs);
		free(texts[i].body);
	}
}

/*
 * The C of the used functions and of the handlers: their frame structs
 * (and stp_free_B) into *structs, their code into chunks, functions
 * first. Returns the number of chunks.
 */
static int gen_code(struct cg *cg, char **structs, struct chunk *chunks)
{
	const struct program *prog = cg->prog;
	size_t structs_len = 0;
	FILE *sf = open_memstream(structs, &structs_len);
	int n = 0;

	memset(cg->use, 0, ((size_t)prog->nbodies + 1) * sizeof(*cg->use));
	struct fn_text *texts = xmalloc(((size_t)prog->nfuncs + 1) *
					sizeof(*texts));
	memset(texts, 0, ((size_t)prog->nfuncs + 1) * sizeof(*texts));
	gen_functions(cg, texts);
	put_functions(cg, texts, sf, chunks, &n);
	free(texts);
	for (int i = 0; i < prog->nbodies; i++) {
		struct chunk *c = &chunks[n++];
		FILE *bf = open_memstream(&c->text, &c->len);
		gen_body(cg, sf, bf, prog->bodies[i]);
		fclose(bf);
		c->fixed = cg->embedded;
		c->fn = -1;
	}
	fclose(sf);
	return n;
}

/*
 * The functions the handlers call, directly or through other functions:
 * cg->called[i]. Pass 2 keeps a function some probe's code named, but
 * the optimiser may have dropped every call (an alias's variable the
 * probe never reads): such a function's C is left out, which spares the
 * compiler the 40-odd helpers of syscall.* that `a[name]++` never runs.
 * Found on the elaborated program: the calls (N_CALL) of the probe
 * bodies and of their @entry values, then of the functions they reach.
 */
/* ast_visit: a call of a script function marks the function whose C it
 * runs (a copy merged into an identical one: fn_c) */
struct call_walk {
	const struct cg *cg;
	const int *chunk_of;		/* [function]: its chunk, or -1 */
	int *work, nwork;
};

static void note_call(struct node *n, void *arg)
{
	struct call_walk *w = arg;
	int f;

	if (n->kind != N_CALL || !n->sym || n->sym->kind != SYM_FUNCTION)
		return;
	f = w->cg->fn_c[n->sym->func->index];
	if (f < 0 || f >= w->cg->prog->nfuncs || w->cg->called[f] ||
	    w->chunk_of[f] < 0)
		return;
	w->cg->called[f] = true;
	w->work[w->nwork++] = f;
}

/* ast_visit of list for note_call, but for the statement skip. */
static void visit_except(struct node *list, const struct node *skip,
			 struct call_walk *w)
{
	for (struct node *n = list; n; n = n->next) {
		struct node **slot[6];

		if (n == skip)
			continue;
		note_call(n, w);
		for (int i = 0, k = ast_child_slots(n, slot); i < k; i++)
			visit_except(*slot[i], skip, w);
	}
}

static void find_called(struct cg *cg, struct chunk *chunks, int n)
{
	const struct program *prog = cg->prog;
	int *chunk_of = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(*chunk_of));
	struct call_walk w = { cg, chunk_of, NULL, 0 };

	w.work = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(*w.work));
	memset(cg->called, 0, ((size_t)prog->nfuncs + 1) * sizeof(*cg->called));
	for (int i = 0; i < prog->nfuncs; i++)
		chunk_of[i] = -1;
	for (int k = 0; k < n; k++)
		if (chunks[k].fn >= 0)
			chunk_of[chunks[k].fn] = k;
	/* the elaborated program's calls, from the probe bodies on (but
	 * for a filter the probes' callbacks check) */
	for (int b = 0; b < prog->nbodies; b++) {
		const struct probe_body *body = prog->bodies[b];

		if (cg->prefiltered[b])
			visit_except(body->probe->probe.body,
				     first_stmt(body->probe->probe.body), &w);
		else
			ast_visit(body->probe->probe.body, note_call, &w);
		/* and the @entry values its return probes compute at the
		 * function's entry */
		for (int v = 0; v < body->nentry_values; v++)
			ast_visit(body->entry_values[v], note_call, &w);
	}
	while (w.nwork) {
		const struct script_func *f = prog->funcs[w.work[--w.nwork]];
		ast_visit(f->decl->func.body, note_call, &w);
	}
	for (int k = 0; k < n; k++)
		if (chunks[k].fn >= 0 && !cg->called[chunks[k].fn]) {
			free(chunks[k].text);
			chunks[k].text = NULL;
			chunks[k].len = 0;
		}
	free(w.work);
	free(chunk_of);
}

/*
 * Does every probe of body b check its first statement in its callback
 * (a dispatch on the filter of syscall.*'s aliases)? Then its handler
 * skips it. Not with -t, which times the whole handler.
 */
static bool prefiltered(const struct cg *cg, const struct probe_body *b)
{
	int nprobes;
	const struct derived_probe *const *probes =
		body_probes(cg->prog, b, &nprobes);

	for (int i = 0; i < nprobes; i++) {
		const struct kind_emit *e = emit_of(probes[i]);
		if (!e->filters || !e->filters(probes[i]))
			return false;
	}
	return nprobes > 0 && !cg->s->timing && !b->nentry_values;
}

static void free_chunks(struct chunk *chunks, int n)
{
	for (int i = 0; i < n; i++)
		free(chunks[i].text);
}

/*
 * Into how many translation units the C goes, and which chunk goes
 * where. One unless the driver gives several (the CPUs pass 4 may use)
 * and the code that may move is big enough to pay for the kernel
 * headers each unit parses again (about 0.9 s of CPU): UNIT_MIN bytes
 * of handlers per unit. Unit 0 has the fixed chunks and the tail (the
 * hits, the kinds' callbacks, the probe tables), then as many movable
 * chunks from the start as bring it to its share; the rest go in order,
 * a share to each other unit.
 */
#define UNIT_MIN (96 * 1024)

static int plan_units(const struct cg *cg, struct chunk *chunks, int n,
		      size_t tail)
{
	const struct session *s = cg->s;
	/* the tail is mostly macros, inline functions a callback may not
	 * use and the table's data: on syscall.* its text costs the
	 * compiler a quarter of what handlers' text does */
	size_t movable = 0, fixed = tail / 4;
	int units = s->units;

	for (int i = 0; i < n; i++) {
		if (chunks[i].fixed)
			fixed += chunks[i].len;
		else
			movable += chunks[i].len;
		chunks[i].unit = 0;
	}
	if (!s->units_forced && (size_t)units > movable / UNIT_MIN)
		units = (int)(movable / UNIT_MIN);
	if (units < 2 || !movable)
		return 1;
	size_t share = (fixed + movable) / (size_t)units, have = fixed;
	int i = 0, u = 0;
	for (; i < n; i++) {
		if (chunks[i].fixed)
			continue;
		if (have >= share)
			break;
		have += chunks[i].len;
	}
	size_t left = 0;
	for (int k = i; k < n; k++)
		left += chunks[k].fixed ? 0 : chunks[k].len;
	if (!left)
		return 1;
	share = left / (size_t)(units - 1) + 1;
	have = 0;
	u = 1;
	for (; i < n; i++) {
		if (chunks[i].fixed)
			continue;
		if (have >= share && u < units - 1) {
			u++;
			have = 0;
		}
		chunks[i].unit = u;
		have += chunks[i].len;
	}
	return u + 1;
}

/*
 * A split module's shared names, at the end of the part every unit
 * includes: the globals and every handler and function, external under
 * module-local assembler names (MODULE_g_NAME, MODULE_probe_N, ...) that
 * the runtime's stp_ names and the kernel's cannot clash with.
 */
static void gen_shared_decls(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;

	fputs("\n/* what the units share: external, with module-local "
	      "names */\n#define STP_SYM(name) __asm__(STP_MODULE_NAME \"_\" "
	      "#name)\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const char *n = g->cname;
		if (g->type == TY_STATS)
			fprintf(out, "extern const struct stp_stat_desc stp_gsd_%s "
				"STP_SYM(gsd_%s);\n", n, n);
		if (g->nkeys)
			fprintf(out, "extern const struct stp_map_desc stp_gmd_%s "
				"STP_SYM(gmd_%s);\nextern struct stp_%s stp_g_%s "
				"STP_SYM(g_%s);\n", n, n,
				g->type == TY_STATS ? "pmap" : "map", n, n);
		else if (g->type == TY_STRING)
			fprintf(out, "extern char stp_g_%s[MAXSTRINGLEN] "
				"STP_SYM(g_%s);\n", n, n);
		else if (g->type == TY_STATS)
			fprintf(out, "extern struct stp_pstat stp_g_%s "
				"STP_SYM(g_%s);\n", n, n);
		else
			fprintf(out, "extern int64_t stp_g_%s STP_SYM(g_%s);\n",
				n, n);
	}
	for (int i = 0; i < prog->nfuncs; i++)
		if (cg->called[i])
			fprintf(out, "void stp_fn_%d(struct stp_context *c) "
				"STP_SYM(fn_%d);\n", prog->funcs[i]->index,
				prog->funcs[i]->index);
	for (int i = 0; i < prog->nbodies; i++)
		fprintf(out, "void stp_probe_%d(struct stp_context *c) "
			"STP_SYM(probe_%d);\n", i, i);
}

/* The chunks of unit u, in order. */
static void put_unit(const struct chunk *chunks, int n, int u, FILE *out)
{
	for (int i = 0; i < n; i++)
		if (chunks[i].unit == u && chunks[i].len)
			fwrite(chunks[i].text, 1, chunks[i].len, out);
}

/* Index of probe i in e's runtime table (i = nprobes: its size). */
static int kind_table_index(const struct program *prog,
			    const struct kind_emit *e, int i)
{
	int k = 0;

	for (int j = 0; j < i; j++)
		k += emit_of(prog->probes[j]) == e &&
		     e->probe_type(prog->probes[j]) != NULL;
	return k;
}

/*
 * Each kind's table (its entries point back at the probe table's) and
 * the list of them the runtime arms, in kind_arm_order.
 */
static void gen_kind_tables(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	struct strbuf list = { 0 };

	for (int k = 0; kind_arm_order[k]; k++) {
		const struct kind_emit *e = kind_arm_order[k];
		if (!kind_table_index(prog, e, prog->nprobes))
			continue;
		fprintf(out, "\nstatic const %s %s[%d] = {\n", e->table_type,
			e->table_name, kind_table_index(prog, e, prog->nprobes));
		for (int i = 0; i < prog->nprobes; i++) {
			const struct derived_probe *dp = prog->probes[i];
			if (emit_of(dp) != e || !e->probe_type(dp))
				continue;
			fprintf(out, "\t{ .probe = &stp_probes[%d]",
				table_index(prog, i));
			if (e->fields)
				e->fields(cg, i, out);
			fputs(" },\n", out);
		}
		fputs("};\n", out);
		sb_printf(&list, "\t{ &%s, %s, ARRAY_SIZE(%s) },\n", e->table_ops,
			  e->table_name, e->table_name);
	}
	fprintf(out, "\nstatic const struct stp_kind_table stp_kinds[] = {\n"
		"%s\t{ NULL }\n};\n", sb_str(&list));
	sb_free(&list);
}

/*
 * The end of unit 0: the lean probes' counts, each event body's hit, the
 * kinds' callbacks, the probe table and each kind's table.
 */
static void gen_tail(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;

	gen_lean_counts(cg, out);
	gen_hits(cg, out);
	if (prog->nprobes)
		fprintf(out, "\nstatic const struct stp_probe stp_probes[%d];\n",
			table_index(prog, prog->nprobes));
	for (int k = 0; kind_arm_order[k]; k++) {
		const struct kind_emit *e = kind_arm_order[k];
		int n = kind_table_index(prog, e, prog->nprobes);
		if (n)
			fprintf(out, "static const %s %s[%d];\n", e->table_type,
				e->table_name, n);
	}
	each_kind(cg, out, support_hook);

	fprintf(out, "\nstatic const struct stp_probe stp_probes[%d] = {\n",
		table_index(prog, prog->nprobes));
	struct point_group groups = { 0 };
	for (int i = 0, k = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct kind_emit *e = emit_of(dp);
		const char *type = e->probe_type(dp);
		if (!type)
			continue;	/* never */
		int first = point_group_first(&groups, dp->user_point, k++);
		/* pn(): the alias as the script matched it, else the point */
		const char *pn = dp->body->pn ? dp->body->pn : dp->pp;
		int lb = dp->body->index;
		fprintf(out, "\t{ .type = %s, .handler = stp_probe_%d, .pp = %s,\n"
			"\t  .pn = %s,\n", type, lb,
			c_string(cg, dp->pp, strlen(dp->pp)),
			c_string(cg, pn, strlen(pn)));
		fprintf(out, "\t  .frame_size = sizeof(struct stp_locals_probe_%d)",
			lb);
		timing_fields(cg, dp, out);
		lost_fields(cg, dp->user_point, k - 1, first, out);
		if (e->head_fields)
			e->head_fields(cg, i, out);
		if (e->event)
			lock_plan_table_fields(cg->locks, dp, out);
		if (cg->nlean[lb] >= 0 && !cg->filtered[lb] && e->lean)
			fprintf(out, ",\n\t  .lean = MAXACTION > %d", cg->nlean[lb]);
		if (e->event)
			fprintf(out, ",\n\t  .use = STP_USE_%d", lb);
		if (e->event && runtime_hit(cg, lb))
			fprintf(out, ", .hit = stp_hit_%d", lb);
		if (cg->nlean[lb] >= 0 && e->lean)
			fprintf(out, ",\n\t  .counts = stp_counts_%d, .ncounts = "
				"ARRAY_SIZE(stp_counts_%d) - 1", lb, lb);
		if (e->table_name)
			fprintf(out, ",\n\t  .attach = &%s[%d]", e->table_name,
				kind_table_index(prog, e, i));
		fputs(" },\n", out);
	}
	free(groups.slot);
	fputs("};\n", out);
	gen_kind_tables(cg, out);
	fputs("\nSTP_MODULE_PROBES(stp_probes, stp_kinds);\n", out);
}

struct codegen_job {
	struct session *s;
	const struct program *prog;
	const char *module_name;
	FILE *out;
	int rc;
};

static int codegen_module_deep(struct session *s, const struct program *prog,
			       const char *module_name, FILE *out);

static void codegen_job_run(void *arg)
{
	struct codegen_job *job = arg;

	job->rc = codegen_module_deep(job->s, job->prog, job->module_name,
				      job->out);
}

/* Expressions and statements are emitted recursively: on a deep stack. */
int codegen_module(struct session *s, const struct program *prog,
		   const char *module_name, FILE *out)
{
	struct codegen_job job = { s, prog, module_name, out, 0 };

	deep_call(codegen_job_run, &job);
	return job.rc;
}

static int codegen_module_deep(struct session *s, const struct program *prog,
			       const char *module_name, FILE *out)
{
	struct cg cg = { .s = s, .prog = prog };
	char *structs = NULL, *tail = NULL;
	size_t tail_len = 0;
	struct lock_plan locks;

	lock_plan_build(&locks, prog);
	cg.locks = &locks;
	cg.use = xmalloc(((size_t)prog->nbodies + 1) * sizeof(*cg.use));
	cg.fn_c = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(*cg.fn_c));
	struct chunk *chunks = xmalloc(((size_t)prog->nfuncs +
					(size_t)prog->nbodies + 1) *
				       sizeof(*chunks));
	cg.called = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(*cg.called));
	cg.bare = xmalloc(((size_t)prog->nbodies + 1) * sizeof(*cg.bare));
	memset(cg.bare, 0, ((size_t)prog->nbodies + 1) * sizeof(*cg.bare));
	cg.src_used = xmalloc(((size_t)s->nfiles + 1) * sizeof(*cg.src_used));
	memset(cg.src_used, 0, ((size_t)s->nfiles + 1) * sizeof(*cg.src_used));
	cg.prefiltered = xmalloc(((size_t)prog->nbodies + 1) *
				 sizeof(*cg.prefiltered));
	for (int b = 0; b < prog->nbodies; b++)
		cg.prefiltered[b] = prefiltered(&cg, prog->bodies[b]);
	int nchunks = gen_code(&cg, &structs, chunks);
	find_called(&cg, chunks, nchunks);

	/* the tail of unit 0: each body's hit, the kinds' callbacks and
	 * tables, the probe table */
	int *nlean = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*nlean));
	cg.nlean = nlean;
	cg.filtered = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*cg.filtered));
	FILE *tf = open_memstream(&tail, &tail_len);
	gen_tail(&cg, tf);
	fclose(tf);

	/* split: the same C again, with shared names external */
	int units = s->nerrors ? 1 : plan_units(&cg, chunks, nchunks, tail_len);
	if (units > 1) {
		free_chunks(chunks, nchunks);
		free(structs);
		cg.split = true;
		nchunks = gen_code(&cg, &structs, chunks);
		find_called(&cg, chunks, nchunks);
		units = plan_units(&cg, chunks, nchunks, tail_len);
	}

	fprintf(out, "/* Generated by stap " PACKAGE_VERSION ": do not edit. */\n");
	fprintf(out, "#define STP_MODULE_NAME \"%s\"\n", module_name);
	/* SystemTap's version macros for embedded C: the language version
	 * the script is compiled for (--compatible, default 4.8) */
	{
		int major = 0, minor = 0;
		sscanf(s->compatible ? s->compatible : "", "%d.%d", &major,
		       &minor);
		fprintf(out, "#define STAP_VERSION(a, b) (((a) << 8) + (b))\n"
			"#define STAP_COMPAT_VERSION STAP_VERSION(%d, %d)\n",
			major, minor);
	}
	/*
	 * SystemTap 4.8's MAXNESTING: the deepest call chain (at least 1),
	 * or with recursion recursive_nesting; -D MAXNESTING=N still wins.
	 */
	fprintf(out, "#ifndef MAXNESTING\n#define MAXNESTING %d\n#endif\n"
		"#define STP_MAXNESTING MAXNESTING\n", prog->max_nesting < 0 ?
		prog->recursive_nesting : prog->max_nesting > 2 ?
		prog->max_nesting - 1 : 1);
	if (has_containers(prog)) {
		struct strbuf probes = { 0 }, funcs = { 0 };
		for (int i = 0; i < prog->nbodies; i++)
			iter_slots(prog, prog->bodies[i]->probe->probe.body, &probes);
		for (int i = 0; i < prog->nfuncs; i++)
			if (prog->funcs[i]->used)
				iter_slots(prog, prog->funcs[i]->decl->func.body,
					   &funcs);
		fprintf(out, "#define STP_HAVE_GLOBALS 1\n");
		fprintf(out, "#define STP_ITER_SLOTS (0%s + (0%s) * (STP_MAXNESTING + 1))\n",
			sb_str(&probes), sb_str(&funcs));
		sb_free(&probes);
		sb_free(&funcs);
	}
	/* temporaries and labels are generated whether used or not */
	fputs("#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
	      "#pragma GCC diagnostic ignored \"-Wunused-label\"\n", out);
	fputs("#include <linux/types.h>\n#include \"defines.h\"\n", out);
	for (int i = 0; i < s->nfiles; i++) {
		const struct srcfile *f = session_file(s, i);
		if (cg.src_used[i] && f)
			fprintf(out, "#define STP_SRC_%d %s\n", i,
				c_string(&cg, f->name, strlen(f->name)));
	}
	fputs("\n/* each handler's locals and temporaries, in the per-CPU frame */\n", out);
	fputs(structs ? structs : "", out);
	fputs("union stp_frame_union {\n\tchar stp_unused;\n", out);
	for (int i = 0; i < prog->nbodies; i++)
		fprintf(out, "\tstruct stp_locals_probe_%d p%d;\n", i, i);
	for (int i = 0; i < prog->nfuncs; i++)
		if (prog->funcs[i]->used && cg.fn_c[i] == i)
			fprintf(out, "\tstruct stp_locals_fn_%d f%d;\n", i, i);
	fputs("};\n#undef STP_FRAME_SIZE\n"
	      "#define STP_FRAME_SIZE sizeof(union stp_frame_union)\n\n", out);
	if (locks.ncounters)
		fprintf(out, "#define STP_NCOUNTERS %d\n", locks.ncounters);
	each_kind(&cg, out, defines_hook);
	fputs("#include \"runtime.h\"\n", out);
	fputs("\nstatic const struct stp_fmt stp_fmt_d __maybe_unused = "
	      "{ .conv = 'd', .width = -1, .prec = -1 };\n", out);
	if (cg.split)
		gen_shared_decls(&cg, out);
	s->units_out = cg.split ? units : 0;
	for (int u = 0; u < units; u++) {
		if (cg.split) {
			fputc('\n', out);
			s->unit_start[u] = ftell(out);
			fprintf(out, "/* stap: unit %d of %d */\n", u, units);
		}
		if (!u) {
			gen_embeds(&cg, out);
			gen_globals(&cg, out);
			if (has_containers(prog))
				gen_globals_init(prog, out);
			lock_plan_emit_locks(&locks, out);
			/* the functions handlers call (find_called);
			 * __maybe_unused: the caller may be a handler no
			 * table entry names */
			for (int i = 0; !cg.split && i < prog->nfuncs; i++)
				if (cg.called[i])
					fprintf(out, "static void __maybe_unused "
						"stp_fn_%d(struct stp_context "
						"*c);\n",
						prog->funcs[i]->index);
		}
		put_unit(chunks, nchunks, u, out);
		if (!u)
			fwrite(tail, 1, tail_len, out);
	}
	free(structs);
	free(tail);
	free_chunks(chunks, nchunks);
	free(chunks);
	lock_plan_free(&locks);
	free(nlean);
	free(cg.filtered);
	free(cg.prefiltered);
	free(cg.called);
	free(cg.src_used);
	free(cg.bare);
	free(cg.use);
	for (int k = 0; k < ATTACH_NKINDS; k++)
		free(cg.kind_states[k]);
	free(cg.fn_c);
	sb_free(&cg.code);
	sb_free(&cg.frame);
	return cg.errors;
}

/*
 * v[k] for a chain $arg->a->b[2]: walk it from the argument's value with
 * the offsets BTF gave pass 2 (no kernel struct definitions needed), every
 * read fault-safe; a fault leaves its address in v[k] and sets bit k of
 * a.faults, and the body raises the error only if it reads v[k].
 */
/* The steps of a member chain from stp_addr (each may goto fault). */
void path_steps(struct strbuf *sb, const struct member_path *path,
		const char *in, const char *cont, const char *const *index)
{
	for (int i = 0; i < path->nsteps; i++) {
		const struct member_step *st = &path->steps[i];
		unsigned byte = st->bit_offset / 8;
		if (st->kind == STEP_MEMBER && st->result != STEP_BITS &&
		    byte) {
			sb_printf(sb, "%s\tstp_addr += %u;\t/* ->", in, byte);
			sb_c_literal(sb, st->member, strlen(st->member), true);
			sb_puts(sb, " */\n");
		}
		if (st->kind == STEP_INDEX && index && st->index_expr)
			sb_printf(sb, "%s\tstp_addr += (u64)%s * %u;\n", in,
				  index[i], st->stride);
		else if (st->kind == STEP_INDEX && st->index)
			sb_printf(sb, "%s\tstp_addr += %" PRId64 "LL * %u;\n",
				  in, st->index, st->stride);
		/* a user program's types: the process's memory */
		const char *u = path->user ? "u" : "";
		if (st->result == STEP_READ)
			sb_printf(sb, "%s\tif (stp_tp_%sread(&stp_addr, stp_addr, "
				  "%u, %d))\n%s\t\tgoto fault;\n", in, u,
				  st->size, st->is_signed, cont);
		else if (st->result == STEP_BITS)
			sb_printf(sb, "%s\tif (stp_tp_%sread_bits(&stp_addr, "
				  "stp_addr + %u, %u, %u, %d))\n%s\t\tgoto "
				  "fault;\n", in, u, byte, st->bit_offset % 8,
				  st->bit_size, st->is_signed, cont);
	}
}

void gen_path_steps(FILE *out, const struct member_path *path,
		    const char *in)
{
	struct strbuf sb = { 0 };

	path_steps(&sb, path, in, in, NULL);
	fputs(sb_str(&sb), out);
	sb_free(&sb);
}
