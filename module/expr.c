// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: expressions to C (see module/emit.h for the scheme): values,
 * arrays and statistics (runtime objects: runtime/map.h, stat.h),
 * printing, calls, regular expressions, typed values through member
 * chains, and context values (a kind's own through its emitter).
 */
#include "module/emit.h"
#include "semantic/format.h"
#include "semantic/regex.h"

#include "config.h"

/*
 * Indentation stops at MAX_INDENT tabs: each arm of an else-if chain is a
 * level deeper, and a 5,000-arm chain wrote a gigabyte of tabs.
 */
enum { MAX_INDENT = 32 };

void emit(struct cg *cg, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < cg->depth && i < MAX_INDENT; i++)
		sb_putc(&cg->code, '\t');
	va_start(ap, fmt);
	sb_vprintf(&cg->code, fmt, ap);
	va_end(ap);
	sb_putc(&cg->code, '\n');
}

void unsupported(struct cg *cg, const struct node *n, const char *what)
{
	diag_error(cg->s, n->loc, "%s is not supported by the code generator "
		   "yet", what);
	cg->errors++;
}

const char *tmp_long(struct cg *cg)
{
	return arena_printf(&cg->s->arena, "t%d", cg->ntemps++);
}

/* A string temporary in the frame. */
const char *tmp_string(struct cg *cg)
{
	int n = cg->ntemps++;

	sb_printf(&cg->frame, "\tchar s%d[MAXSTRINGLEN];\n", n);
	return arena_printf(&cg->s->arena, "l->s%d", n);
}

/* A C string literal for bytes (with escapes, safe in any context). */
const char *c_string(struct cg *cg, const char *s, size_t len)
{
	struct strbuf sb = { 0 };

	sb_c_literal(&sb, s, len, false);
	const char *r = arena_strdup(&cg->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* s quoted for a C comment: a file name or probe point holding "*" "/"
 * or a newline neither ends the comment nor starts a line of C */
const char *c_comment(struct cg *cg, const char *s)
{
	struct strbuf sb = { 0 };

	sb_c_literal(&sb, s, strlen(s), true);
	const char *r = arena_strdup(&cg->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/*
 * "operator '/' at x.stp:7:36" as a C string literal. A long file name (a
 * tapset's path) is the macro STP_SRC_N, N the file's number, defined
 * once at the top of the module (module.c): syscall.*'s thousand-odd
 * locations repeated it.
 */
#define SRC_MACRO_MIN 24

const char *where(struct cg *cg, const struct node *n)
{
	const char *w = diag_describe_token(cg->s, n->loc);
	const struct srcfile *f = session_file(cg->s, n->loc.file);
	const char *at = NULL;

	if (f && cg->src_used && n->loc.file >= 0 &&
	    n->loc.file < cg->s->nfiles && strlen(f->name) >= SRC_MACRO_MIN)
		for (const char *p = strstr(w, f->name); p;
		     p = strstr(p + 1, f->name))
			at = p;
	if (!at)
		return c_string(cg, w, strlen(w));
	cg->src_used[n->loc.file] = true;
	const char *rest = at + strlen(f->name);
	return arena_printf(&cg->s->arena, "%s STP_SRC_%d %s",
			    c_string(cg, w, (size_t)(at - w)), n->loc.file,
			    c_string(cg, rest, strlen(rest)));
}

const char *var_ref(struct cg *cg, const struct symbol *sym)
{
	int slot = lock_plan_counter(cg->locks, sym);

	/* a counter outside its counter statements: no event probe runs
	 * here (locks.c), its per-CPU slots go into the variable first */
	if (slot >= 0)
		emit(cg, "stp_counter_fold(&stp_g_%s, %d);", sym->cname, slot);
	if (sym->kind == SYM_GLOBAL)
		return arena_printf(&cg->s->arena, "stp_g_%s", sym->cname);
	return arena_printf(&cg->s->arena, "l->l_%s", sym->name);
}

static const char *gen_context(struct cg *cg, struct node *n);

/* ---- arrays and statistics ---------------------------------------------- */

bool is_stat_array(const struct symbol *sym)
{
	return sym->nkeys > 0 && sym->type == TY_STATS;
}

/* The C object of a global array or statistic, as a pointer. */
const char *gref(struct cg *cg, const struct symbol *sym)
{
	return arena_printf(&cg->s->arena, "&stp_g_%s", sym->cname);
}

/* The map desc of an array. */
static const char *gdesc(struct cg *cg, const struct symbol *sym)
{
	return arena_printf(&cg->s->arena, "&stp_gmd_%s", sym->cname);
}

bool global_ok(struct cg *cg, struct node *at, const struct symbol *sym)
{
	if (sym && sym->kind == SYM_GLOBAL)
		return true;
	unsupported(cg, at, "a local array or statistic");
	return false;
}

/*
 * Evaluate the keys of an index into a `union stp_key kN[]`; *wild gets a
 * mask of the '*' positions. String keys are copied first when they could
 * change before use (they are read from a map).
 */
const char *gen_keys(struct cg *cg, struct node *keys,
			    const struct symbol *sym, unsigned *wild)
{
	const char *vals[MAX_KEYS];
	int n = 0;

	*wild = 0;
	ast_foreach(k, keys) {
		if (n == MAX_KEYS)
			break;
		if (k->kind == N_WILDCARD) {
			*wild |= 1u << n;
			vals[n++] = NULL;
			continue;
		}
		vals[n++] = gen_expr(cg, k);
	}
	const char *kn = arena_printf(&cg->s->arena, "k%d", cg->ntemps++);
	struct strbuf sb = { 0 };
	sb_printf(&sb, "union stp_key %s[%d] = {", kn, n);
	for (int i = 0; i < n; i++) {
		if (!vals[i])
			sb_printf(&sb, "%s { .l = 0 }", i ? "," : "");
		else if (sym->key_types[i] == TY_STRING)
			sb_printf(&sb, "%s { .s = %s }", i ? "," : "", vals[i]);
		else
			sb_printf(&sb, "%s { .l = %s }", i ? "," : "", vals[i]);
	}
	sb_puts(&sb, " };");
	emit(cg, "%s", sb_str(&sb));
	sb_free(&sb);
	return kn;
}

void overflow_error(struct cg *cg, const struct node *at,
			   const struct symbol *sym)
{
	emit(cg, "\tstp_map_overflow(c, %s, %s);", gdesc(cg, sym),
	     where(cg, at));
	emit(cg, "\tgoto %s;", cg->err);
}

/* array[keys] as an rvalue. */
static const char *gen_index_read(struct cg *cg, struct node *n)
{
	const struct symbol *sym = n->sym;
	unsigned wild;

	if (!global_ok(cg, n, sym))
		return "0";
	if (sym->type == TY_STATS) {
		unsupported(cg, n, "a statistic outside @count/@sum/...");
		return "0";
	}
	const char *k = gen_keys(cg, n->index.keys, sym, &wild);
	if (sym->type == TY_STRING) {
		const char *t = tmp_string(cg);
		emit(cg, "stp_strcpy(%s, stp_map_get_str(%s, %s));", t,
		     gref(cg, sym), k);
		return t;
	}
	const char *t = tmp_long(cg);
	emit(cg, "int64_t %s = stp_map_get_long(%s, %s);", t, gref(cg, sym), k);
	return t;
}

/* array[keys] = value (value already a C expression of the value type). */
static void gen_index_store(struct cg *cg, struct node *n, const char *k,
			    const char *v)
{
	const struct symbol *sym = n->sym;

	emit(cg, "if (unlikely(stp_map_set_%s(%s, %s, %s))) {",
	     sym->type == TY_STRING ? "str" : "long", gref(cg, sym), k, v);
	overflow_error(cg, n->index.array, sym);
	emit(cg, "}");
}

static const char *gen_long_binary(struct cg *cg, struct node *n, enum op op,
				   const char *a, const char *b);

/* Assignments, compound assignments and <<< to an array element. */
static const char *gen_index_assign(struct cg *cg, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;
	const struct symbol *sym = lhs->sym;
	unsigned wild;

	if (!global_ok(cg, lhs, sym))
		return "0";
	const char *k = gen_keys(cg, lhs->index.keys, sym, &wild);
	const char *v = gen_expr(cg, rhs);
	if (n->binary.op == OP_AGG) {
		/* this CPU's map; long keys inline */
		bool longs = true;
		for (int i = 0; i < sym->nkeys; i++)
			longs &= sym->key_types[i] != TY_STRING;
		if (longs)
			emit(cg, "if (unlikely(stp_pmap_add_longs(%s, "
			     "&stp_gsd_%s, %s, %d, %s))) {", gref(cg, sym),
			     sym->cname, k, sym->nkeys, v);
		else
			emit(cg, "if (unlikely(stp_pmap_add(%s, %s, %s))) {",
			     gref(cg, sym), k, v);
		overflow_error(cg, lhs->index.array, sym);
		emit(cg, "}");
		return v;
	}
	if (n->binary.op == OP_ASSIGN) {
		gen_index_store(cg, lhs, k, v);
		return v;
	}
	if (n->binary.op == OP_CONCAT) {
		const char *t = tmp_string(cg);
		emit(cg, "stp_strcpy(%s, stp_map_get_str(%s, %s));", t,
		     gref(cg, sym), k);
		emit(cg, "stp_strcat(%s, %s);", t, v);
		gen_index_store(cg, lhs, k, t);
		return t;
	}
	const char *old = tmp_long(cg);
	emit(cg, "int64_t %s = stp_map_get_long(%s, %s);", old, gref(cg, sym), k);
	const char *r = gen_long_binary(cg, n, n->binary.op, old, v);
	gen_index_store(cg, lhs, k, r);
	return r;
}

static const char *gen_index_incdec(struct cg *cg, struct node *n)
{
	struct node *lv = n->incdec.operand;
	const struct symbol *sym = lv->sym;
	unsigned wild;

	if (!global_ok(cg, lv, sym))
		return "0";
	const char *k = gen_keys(cg, lv->index.keys, sym, &wild);
	const char *old = tmp_long(cg), *nv = tmp_long(cg);
	emit(cg, "int64_t %s = stp_map_get_long(%s, %s);", old, gref(cg, sym), k);
	emit(cg, "int64_t %s = (int64_t)((uint64_t)%s %s 1);", nv, old,
	     n->incdec.increment ? "+" : "-");
	gen_index_store(cg, lv, k, nv);
	return n->incdec.prefix ? nv : old;
}

static const char *gen_in(struct cg *cg, struct node *n)
{
	const struct symbol *sym = n->sym;
	unsigned wild;

	if (!global_ok(cg, n, sym))
		return "0";
	const char *k = gen_keys(cg, n->binary.lhs, sym, &wild);
	const char *t = tmp_long(cg);
	emit(cg, "int64_t %s = stp_%s_exists_match(%s, %s, %uu);", t,
	     is_stat_array(sym) ? "pmap" : "map", gref(cg, sym), k, wild);
	return t;
}

const char *gen_stat_get(struct cg *cg, struct node *op, const char **keys)
{
	const struct symbol *sym = op->sym;
	const char *t = arena_printf(&cg->s->arena, "st%d", cg->ntemps++);
	unsigned wild;

	if (keys)
		*keys = NULL;
	if (op->kind == N_INDEX) {
		const char *k = gen_keys(cg, op->index.keys, sym, &wild);
		emit(cg, "struct stp_stat *%s = stp_pmap_get(%s, %s);", t,
		     gref(cg, sym), k);
		if (keys)
			*keys = k;
	} else {
		emit(cg, "struct stp_stat *%s = stp_pstat_get(%s);", t,
		     gref(cg, sym));
	}
	return t;
}

static void empty_check(struct cg *cg, struct node *n, const char *st)
{
	emit(cg, "if (unlikely(%s->count == 0)) {", st);
	emit(cg, "\tstp_error(c, \"empty aggregate\", %s);", where(cg, n));
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "}");
}

static const char *gen_stat(struct cg *cg, struct node *n)
{
	struct node *op = n->stat.operand;

	if (!op->sym || !global_ok(cg, op, op->sym))
		return "0";
	const char *st = gen_stat_get(cg, op, NULL);
	const char *t = tmp_long(cg);
	const char *field;
	switch (n->stat.op) {
	case STAT_COUNT: field = "count"; break;
	case STAT_SUM: field = "sum"; break;
	case STAT_MIN: field = "min"; break;
	case STAT_MAX: field = "max"; break;
	case STAT_AVG: field = "avg"; break;
	default: field = "variance"; break;
	}
	if (n->stat.op != STAT_COUNT && n->stat.op != STAT_SUM)
		empty_check(cg, n, st);
	emit(cg, "int64_t %s = %s->%s;", t, st, field);
	return t;
}

/*
 * An enclosing foreach over the histogram of this scalar statistic whose
 * body never writes its bucket number idx: SystemTap 4.8 reads such a
 * @hist_*(s)[b] from the loop's aggregate, without the empty-aggregate
 * check (an empty statistic's buckets read 0 there).
 */
static const struct hist_loop *stable_hist_loop(struct cg *cg,
						const struct node *op,
						const struct node *idx)
{
	if (op->kind != N_VAR || idx->kind != N_VAR || !idx->sym)
		return NULL;
	for (int i = cg->nhist_loops - 1; i >= 0; i--) {
		const struct hist_loop *hl = &cg->hist_loops[i];

		if (hl->stat == op->sym && hl->key == idx->sym)
			return hl->stable ? hl : NULL;
	}
	return NULL;
}

/* @hist_*(s)[b] and b in @hist_*(s): bucket b's count (runtime/stat.c). */
static const char *gen_hist_bucket(struct cg *cg, struct node *hist,
				   struct node *idx)
{
	struct node *op = hist->stat.operand;

	if (!op->sym || !global_ok(cg, op, op->sym))
		return "0";
	const char *t = tmp_long(cg);
	const struct hist_loop *hl = stable_hist_loop(cg, op, idx);
	if (hl) {
		emit(cg, "int64_t %s = %s->hist[%s];", t, hl->agg,
		     var_ref(cg, idx->sym));
		return t;
	}
	/* the bucket number first, then the statistic, as SystemTap */
	const char *b = gen_expr(cg, idx);
	const char *st = gen_stat_get(cg, op, NULL);
	emit(cg, "int64_t %s;", t);
	emit(cg, "if (unlikely(stp_stat_bucket(c, &stp_gsd_%s, %s, %s, true, "
	     "&%s, %s)))", op->sym->cname, st, b, t, where(cg, hist));
	emit(cg, "	goto %s;", cg->err);
	return t;
}

/* A histogram printed to the sink (prefix "stp_print"/"stp_sb"). */
static void gen_hist(struct cg *cg, struct node *n, const char *prefix,
		     const char *target)
{
	struct node *op = n->stat.operand;

	if (!op->sym || !global_ok(cg, op, op->sym))
		return;
	const char *st = gen_stat_get(cg, op, NULL);
	if (!n->stat.json)	/* JSON: an empty histogram is [] */
		empty_check(cg, n, st);
	emit(cg, "%s_%shist(%s, &stp_gsd_%s, %s);", prefix,
	     n->stat.json ? "json_" : "", target, op->sym->cname, st);
}

static const char *gen_long_binary(struct cg *cg, struct node *n, enum op op,
				   const char *a, const char *b)
{
	const char *t = tmp_long(cg);

	switch (op) {
	case OP_DIV:
	case OP_MOD:
		emit(cg, "if (unlikely(%s == 0)) {", b);
		emit(cg, "\tstp_error(c, \"division by 0\", %s);", where(cg, n));
		emit(cg, "\tgoto %s;", cg->err);
		emit(cg, "}");
		/* INT64_MIN / -1 traps on x86: -1 is negation (mod is 0). */
		if (!strcmp(b, "((int64_t)0LL)"))
			/* a literal 0 always errs above (gcc warns on x / 0) */
			emit(cg, "int64_t %s = 0;", t);
		else if (op == OP_DIV)
			emit(cg, "int64_t %s = %s == -1 ? (int64_t)(0 - (uint64_t)%s) : %s / %s;",
			     t, b, a, a, b);
		else
			emit(cg, "int64_t %s = %s == -1 ? 0 : %s %% %s;", t, b, a, b);
		return t;
	case OP_ADD:
		emit(cg, "int64_t %s = (int64_t)((uint64_t)%s + (uint64_t)%s);", t, a, b);
		return t;
	case OP_SUB:
		emit(cg, "int64_t %s = (int64_t)((uint64_t)%s - (uint64_t)%s);", t, a, b);
		return t;
	case OP_MUL:
		emit(cg, "int64_t %s = (int64_t)((uint64_t)%s * (uint64_t)%s);", t, a, b);
		return t;
	case OP_SHL:
		emit(cg, "int64_t %s = (int64_t)((uint64_t)%s << (%s & 63));", t, a, b);
		return t;
	case OP_SHR:
		emit(cg, "int64_t %s = %s >> (%s & 63);", t, a, b);
		return t;
	case OP_LSHR:
		emit(cg, "int64_t %s = (int64_t)((uint64_t)%s >> (%s & 63));", t, a, b);
		return t;
	case OP_BAND:
		emit(cg, "int64_t %s = %s & %s;", t, a, b);
		return t;
	case OP_BOR:
		emit(cg, "int64_t %s = %s | %s;", t, a, b);
		return t;
	case OP_BXOR:
		emit(cg, "int64_t %s = %s ^ %s;", t, a, b);
		return t;
	default:
		unsupported(cg, n, "this operator");
		return "0";
	}
}

static const char *cmp_op(enum op op)
{
	switch (op) {
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	default: return ">=";
	}
}

static const char *gen_binary(struct cg *cg, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;
	enum op op = n->binary.op;

	if (op == OP_AND || op == OP_OR) {
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = %d;", t, op == OP_OR);
		const char *a = gen_expr(cg, lhs);
		emit(cg, "if (%s%s) {", op == OP_OR ? "!" : "", a);
		cg->depth++;
		const char *b = gen_expr(cg, rhs);
		emit(cg, "%s = %s != 0;", t, b);
		cg->depth--;
		emit(cg, "}");
		return t;
	}
	if (op == OP_CONCAT) {
		const char *a = gen_expr(cg, lhs);
		const char *b = gen_expr(cg, rhs);
		const char *t = tmp_string(cg);
		emit(cg, "stp_strcpy(%s, %s);", t, a);
		emit(cg, "stp_strcat(%s, %s);", t, b);
		return t;
	}
	const char *a = gen_expr(cg, lhs);
	const char *b = gen_expr(cg, rhs);
	switch (op) {
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
		const char *t = tmp_long(cg);
		if (lhs->type == TY_STRING)
			emit(cg, "int64_t %s = strcmp(%s, %s) %s 0;", t, a, b,
			     cmp_op(op));
		else
			emit(cg, "int64_t %s = %s %s %s;", t, a, cmp_op(op), b);
		return t;
	}
	default:
		return gen_long_binary(cg, n, op, a, b);
	}
}

/* Store value (a C expression of the lhs type) into a scalar lvalue. */
static void store(struct cg *cg, struct node *lhs, const char *value)
{
	const char *ref = var_ref(cg, lhs->sym);

	if (lhs->sym->type == TY_STRING)
		emit(cg, "stp_strcpy(%s, %s);", ref, value);
	else
		emit(cg, "%s = %s;", ref, value);
}

static bool check_scalar_lvalue(struct cg *cg, struct node *lhs)
{
	if (lhs->kind == N_VAR && lhs->sym)
		return true;
	if (lhs->kind == N_INDEX)
		unsupported(cg, lhs, "an array");
	else
		unsupported(cg, lhs, "assigning to this expression");
	return false;
}


static const char *gen_assign(struct cg *cg, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;

	const struct kind_emit *e = scope_emit(cg);
	const char *done;

	if ((lhs->kind == N_TARGET || lhs->kind == N_TMEMBER ||
	     lhs->kind == N_TINDEX) && e && e->assign &&
	    (done = e->assign(cg, n)))
		return done;
	if (lhs->kind == N_INDEX && lhs->sym)
		return gen_index_assign(cg, n);
	if (n->binary.op == OP_AGG) {
		if (lhs->kind != N_VAR || !lhs->sym ||
		    !global_ok(cg, lhs, lhs->sym))
			return "0";
		const char *v = gen_expr(cg, rhs);
		emit(cg, "stp_pstat_add_this(%s, &stp_gsd_%s, %s);",
		     gref(cg, lhs->sym), lhs->sym->cname, v);
		return v;
	}
	if (!check_scalar_lvalue(cg, lhs))
		return "0";
	const char *v = gen_expr(cg, rhs);
	const char *ref = var_ref(cg, lhs->sym);
	switch (n->binary.op) {
	case OP_ASSIGN:
		/* a string copied onto itself: nothing to do */
		if (lhs->sym->type == TY_STRING && strcmp(v, ref) == 0)
			return ref;
		store(cg, lhs, v);
		return ref;
	case OP_CONCAT:
		emit(cg, "stp_strcat(%s, %s);", ref, v);
		return ref;
	default: {
		const char *r = gen_long_binary(cg, n, n->binary.op, ref, v);
		emit(cg, "%s = %s;", ref, r);
		return ref;
	}
	}
}

static const char *gen_incdec(struct cg *cg, struct node *n)
{
	struct node *lv = n->incdec.operand;

	if (lv->kind == N_INDEX && lv->sym)
		return gen_index_incdec(cg, n);
	if (!check_scalar_lvalue(cg, lv))
		return "0";
	const char *ref = var_ref(cg, lv->sym);
	const char *t = tmp_long(cg);
	const char *op = n->incdec.increment ? "+" : "-";
	if (n->incdec.prefix) {
		emit(cg, "%s = (int64_t)((uint64_t)%s %s 1);", ref, ref, op);
		emit(cg, "int64_t %s = %s;", t, ref);
	} else {
		emit(cg, "int64_t %s = %s;", t, ref);
		emit(cg, "%s = (int64_t)((uint64_t)%s %s 1);", ref, ref, op);
	}
	return t;
}

static const char *gen_ternary(struct cg *cg, struct node *n)
{
	bool str = n->type == TY_STRING;
	int64_t live;

	/* pass 2 elaborated only the live branch: generate only it */
	if (sema_folded_defined(n->cond.cond, &live))
		return gen_expr(cg, live ? n->cond.then : n->cond.els);
	const char *t = str ? tmp_string(cg) : tmp_long(cg);

	if (!str)
		emit(cg, "int64_t %s;", t);
	const char *c = gen_expr(cg, n->cond.cond);
	emit(cg, "if (%s) {", c);
	cg->depth++;
	const char *a = gen_expr(cg, n->cond.then);
	emit(cg, str ? "stp_strcpy(%s, %s);" : "%s = %s;", t, a);
	cg->depth--;
	emit(cg, "} else {");
	cg->depth++;
	const char *b = gen_expr(cg, n->cond.els);
	emit(cg, str ? "stp_strcpy(%s, %s);" : "%s = %s;", t, b);
	cg->depth--;
	emit(cg, "}");
	return t;
}

/*
 * The print family writes through one of two sinks: the probe's output
 * (stp_print_*(c, ...)) or a string temporary (stp_sb_*(&sb, ...)).
 */
struct sink {
	const char *prefix;		/* "stp_print" or "stp_sb" */
	const char *target;		/* "c" or "&sbN" */
};

static void sink_str(struct cg *cg, const struct sink *k, const char *s)
{
	emit(cg, "%s_str(%s, %s);", k->prefix, k->target, s);
}

/* Print a value as print() does: longs in decimal, strings as is. */
static void sink_value(struct cg *cg, const struct sink *k, struct node *a,
		       const char *v)
{
	if (a->kind == N_HIST)
		gen_hist(cg, a, k->prefix, k->target);
	else if (a->type == TY_STRING)
		sink_str(cg, k, v);
	else
		emit(cg, "%s_long(%s, &stp_fmt_d, %s);", k->prefix, k->target, v);
}

static void gen_printf(struct cg *cg, struct node *n, const struct sink *k)
{
	struct node *fmt = n->print.args;
	struct fmt_piece *pieces;
	const char *err;
	size_t off;
	int np = format_parse(&cg->s->arena, fmt->str.value, fmt->str.len,
			      &pieces, &err, &off);

	/* evaluate every argument first, in order */
	int nargs = ast_list_length(fmt->next);
	const char **vals = arena_alloc(&cg->s->arena, (size_t)(nargs + 1) * sizeof(*vals));
	int i = 0;
	ast_foreach(a, fmt->next)
		vals[i++] = gen_expr(cg, a);

	/*
	 * first each conversion's value, and the format of one that must
	 * have it now ('*' fields, and %m/%M's check), then the output
	 */
	const char **fmts = arena_alloc(&cg->s->arena, (size_t)(np + 1) * sizeof(*fmts));
	const char **args = arena_alloc(&cg->s->arena, (size_t)(np + 1) * sizeof(*args));
	int ai = 0;
	for (int p = 0; p < np; p++) {
		struct fmt_piece *pc = &pieces[p];
		fmts[p] = NULL;
		args[p] = NULL;
		if (!pc->is_conv)
			continue;
		if (pc->width_star || pc->prec_star) {
			const char *f = arena_printf(&cg->s->arena, "f%d", cg->ntemps++);
			emit(cg, "struct stp_fmt %s = %s;", f, fmt_init(cg, pc));
			if (pc->width_star)
				emit(cg, "%s.width = %s < 0 ? -1 : (int)%s;", f,
				     vals[ai], vals[ai]), ai++;
			if (pc->prec_star)
				emit(cg, "%s.prec = %s < 0 ? -1 : (int)%s;", f,
				     vals[ai], vals[ai]), ai++;
			fmts[p] = f;
		}
		args[p] = vals[ai++];
		/* %m/%M: a read fault is an error before anything is printed */
		if (pc->conv == 'm' || pc->conv == 'M') {
			if (!fmts[p]) {
				fmts[p] = arena_printf(&cg->s->arena, "f%d", cg->ntemps++);
				emit(cg, "static const struct stp_fmt %s = %s;",
				     fmts[p], fmt_init(cg, pc));
			}
			emit(cg, "if (unlikely(stp_mem_check(c, &%s, %s, %s)))",
			     fmts[p], args[p], where(cg, n));
			emit(cg, "\tgoto %s;", cg->err);
		}
	}
	if (!strcmp(k->prefix, "stp_print")) {
		gen_print_pieces(cg, pieces, np, fmts, args);
		return;
	}
	for (int p = 0; p < np; p++) {
		struct fmt_piece *pc = &pieces[p];
		if (!pc->is_conv) {
			sink_str(cg, k, c_string(cg, pc->text, pc->len));
			continue;
		}
		if (!fmts[p]) {
			fmts[p] = arena_printf(&cg->s->arena, "f%d", cg->ntemps++);
			emit(cg, "static const struct stp_fmt %s = %s;", fmts[p],
			     fmt_init(cg, pc));
		}
		const char *fn = pc->conv == 's' ? "string" : "long";
		emit(cg, "%s_%s(%s, &%s, %s);", k->prefix, fn, k->target,
		     fmts[p], args[p]);
	}
}

/* A piece of print()'s output for gen_print_pieces(). */
static void value_piece(struct fmt_piece *pc, bool str)
{
	pc->is_conv = true;
	pc->conv = str ? 's' : 'd';
	pc->width = pc->prec = -1;
}

/*
 * print's values (the list from first, each evaluated in order), with the
 * delimiter d between them when delim is set (printd), then "\n" when
 * newline.
 */
static void print_values(struct cg *cg, const struct sink *k,
			 struct node *delim, const char *d, struct node *first,
			 bool newline)
{
	int nvals = ast_list_length(first), i = 0;
	const char **vals = arena_alloc(&cg->s->arena, (size_t)(nvals + 1) * sizeof(*vals));
	bool hist = false;

	ast_foreach(a, first) {
		hist |= a->kind == N_HIST;
		vals[i++] = a->kind == N_HIST ? "0" : gen_expr(cg, a);
	}
	if (!hist && !strcmp(k->prefix, "stp_print")) {
		/* the print buffer's fast path, as printf's */
		size_t max = 2 * (size_t)nvals + 1;
		struct fmt_piece *pcs = arena_alloc(&cg->s->arena, max * sizeof(*pcs));
		const char **fmts = arena_alloc(&cg->s->arena, max * sizeof(*fmts));
		const char **args = arena_alloc(&cg->s->arena, max * sizeof(*args));
		int np = 0;

		i = 0;
		ast_foreach(a, first) {
			if (i && delim && delim->kind == N_STRING) {
				pcs[np].text = delim->str.value;
				pcs[np].len = delim->str.len;
				pcs[np].width = pcs[np].prec = -1;
				np++;
			} else if (i && delim) {
				value_piece(&pcs[np], true);
				args[np++] = d;
			}
			if (a->kind == N_STRING) {	/* a literal */
				pcs[np].text = a->str.value;
				pcs[np].len = a->str.len;
				pcs[np].width = pcs[np].prec = -1;
			} else {
				value_piece(&pcs[np], a->type == TY_STRING);
			}
			args[np++] = vals[i++];
		}
		if (newline) {
			pcs[np].text = "\n";
			pcs[np].len = 1;
			pcs[np].width = pcs[np].prec = -1;
			np++;
		}
		gen_print_pieces(cg, pcs, np, fmts, args);
		return;
	}
	i = 0;
	ast_foreach(a, first) {
		if (i && delim)
			sink_str(cg, k, d);
		sink_value(cg, k, a, vals[i++]);
	}
	if (newline)
		sink_str(cg, k, "\"\\n\"");
}

static const char *gen_print(struct cg *cg, struct node *n)
{
	enum print_kind kind = n->print.kind;
	bool to_string = kind >= PRINT_SPRINT;
	struct sink k = { "stp_print", "c" };
	const char *result = "0";

	if (to_string) {
		result = tmp_string(cg);
		const char *sb = arena_printf(&cg->s->arena, "sb%d", cg->ntemps++);
		emit(cg, "struct stp_strbuf %s = { %s, 0 };", sb, result);
		emit(cg, "%s[0] = '\\0';", result);
		k.prefix = "stp_sb";
		k.target = arena_printf(&cg->s->arena, "&%s", sb);
	}
	switch (kind) {
	case PRINT_PRINTF:
	case PRINT_SPRINTF:
		gen_printf(cg, n, &k);
		break;
	case PRINT_PRINTD: case PRINT_PRINTDLN:
	case PRINT_SPRINTD: case PRINT_SPRINTDLN: {
		struct node *delim = n->print.args;
		const char *d = gen_expr(cg, delim);
		print_values(cg, &k, delim, d, delim->next,
			     kind == PRINT_PRINTDLN || kind == PRINT_SPRINTDLN);
		break;
	}
	default:
		print_values(cg, &k, NULL, NULL, n->print.args,
			     kind == PRINT_PRINTLN || kind == PRINT_SPRINTLN);
		break;
	}
	return result;
}

/*
 * A script function call: arguments into temporaries (in order), then
 * into the callee's frame one level down; the result is copied back.
 */
static const char *gen_script_call(struct cg *cg, struct node *n,
				   const struct script_func *f)
{
	int nargs = f->nparams, i = 0;
	const char **vals = arena_alloc(&cg->s->arena,
					(size_t)(nargs + 1) * sizeof(*vals));

	ast_foreach(a, n->call.args)
		vals[i++] = gen_expr(cg, a);
	int fc = cg->fn_c ? cg->fn_c[f->index] : f->index;
	const char *ftype = arena_printf(&cg->s->arena,
					 "struct stp_locals_fn_%d", fc);
	emit(cg, "if (unlikely(c->nesting >= STP_MAXNESTING)) {");
	emit(cg, "\tstp_error(c, \"MAXNESTING exceeded\", %s);", where(cg, n));
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "}");
	emit(cg, "{");
	cg->depth++;
	emit(cg, "%s *f = stp_frame(c, c->nesting + 1);", ftype);
	for (i = 0; i < nargs; i++) {
		const struct symbol *p = f->scope->locals[i];
		if (p->type == TY_STRING)
			emit(cg, "stp_strcpy(f->l_%s, %s);", p->name, vals[i]);
		else
			emit(cg, "f->l_%s = %s;", p->name, vals[i]);
	}
	emit(cg, "c->nesting++;");
	/* module.c's find_called finds the functions a module needs
	 * from the program's calls (N_CALL), not from this text */
	emit(cg, "stp_fn_%d(c);", fc);
	cg->calls = true;
	emit(cg, "c->nesting--;");
	cg->depth--;
	emit(cg, "}");
	emit(cg, "if (unlikely(c->last_error))");
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "if (unlikely(c->next))");
	emit(cg, "\tgoto out;");
	const char *ret = arena_printf(&cg->s->arena,
				       "((%s *)stp_frame(c, c->nesting + 1))->ret",
				       ftype);
	if (f->sym->type == TY_STRING) {
		const char *t = tmp_string(cg);
		emit(cg, "stp_strcpy(%s, %s);", t, ret);
		return t;
	}
	const char *t = tmp_long(cg);
	emit(cg, "int64_t %s = %s;", t, ret);
	return t;
}

/* A library function of the runtime (enum builtin_kind says how). */
static const char *gen_builtin_call(struct cg *cg, struct node *n,
				    const struct symbol *sym)
{
	struct strbuf args = { 0 };
	const char *result = "0";

	ast_foreach(a, n->call.args)
		sb_printf(&args, ", %s", gen_expr(cg, a));
	switch (sym->bi_kind) {
	case BI_LONG:
		result = tmp_long(cg);
		emit(cg, "int64_t %s = %s(%s);", result, sym->c_expr,
		     sb_str(&args) + (sb_str(&args)[0] ? 2 : 0));
		break;
	case BI_STRING:
		result = tmp_string(cg);
		emit(cg, "%s(%s%s);", sym->c_expr, result, sb_str(&args));
		break;
	case BI_CTX_STRING:
		result = tmp_string(cg);
		emit(cg, "%s(c, %s%s);", sym->c_expr, result, sb_str(&args));
		break;
	default:
		emit(cg, "%s(c%s);", sym->c_expr, sb_str(&args));
		break;
	}
	/* a builtin given the context may raise an error (a fault) */
	if (sym->bi_kind == BI_CTX_STRING || sym->bi_kind == BI_CTX_VOID) {
		emit(cg, "if (unlikely(c->last_error)) {");
		emit(cg, "\tif (!c->last_where)");
		emit(cg, "\t\tc->last_where = %s;", where(cg, n));
		emit(cg, "\tgoto %s;", cg->err);
		emit(cg, "}");
	}
	sb_free(&args);
	return result;
}

/* Does the program read submatches (then every =~ records its match)? */
static bool uses_submatches(const struct program *prog)
{
	for (int i = 0; i < prog->nbuiltins_used; i++) {
		const char *nm = prog->builtins_used[i]->name;
		if (!strcmp(nm, "matched") || !strcmp(nm, "matched_str") ||
		    !strcmp(nm, "ngroups"))
			return true;
	}
	return false;
}

/* Largest submatch scratch in a frame, in ints (16 KiB). */
#define REGEX_MAX_SCRATCH 4096

/*
 * s =~ "re" / s !~ "re": the pattern's tables (semantic/regex.c) as static
 * consts in the handler, then one call of the runtime's matcher; with
 * matched() in the program, its scratch is a frame member.
 */
static const char *gen_regex(struct cg *cg, struct node *n)
{
	const struct node *pat = n->binary.rhs;
	const char *s = gen_expr(cg, n->binary.lhs);
	const char *scratch = "NULL", *err;
	struct strbuf indent = { 0 };
	struct regex re;
	size_t off;

	if (pat->kind != N_STRING || regex_compile(&re, pat->str.value,
						   pat->str.len, &err, &off) < 0) {
		unsupported(cg, n, "this regular expression");
		return "0";
	}
	bool sub = uses_submatches(cg->prog);
	if (sub && regex_scratch_ints(&re) > REGEX_MAX_SCRATCH) {
		diag_error(cg->s, pat->loc, "regular expression too large for "
			   "matched() (%d instructions, %d groups)", re.ninsts,
			   re.ngroups - 1);
		cg->errors++;
		regex_free(&re);
		return "0";
	}
	const char *name = arena_printf(&cg->s->arena, "stp_re%d",
					cg->ntemps++);
	for (int i = 0; i < cg->depth; i++)
		sb_putc(&indent, '\t');
	regex_emit(&re, &cg->code, name, sb_str(&indent), sub);
	if (sub) {
		int k = cg->ntemps++;
		sb_printf(&cg->frame, "\tint r%d[%ld];\n", k,
			  regex_scratch_ints(&re));
		scratch = arena_printf(&cg->s->arena, "l->r%d", k);
	}
	const char *t = tmp_long(cg);
	emit(cg, "int64_t %s = %sstp_re_match(c, &%s, %s, %s);", t,
	     n->binary.op == OP_NMATCH ? "!" : "", name, s, scratch);
	regex_free(&re);
	sb_free(&indent);
	return t;
}

static const char *gen_call(struct cg *cg, struct node *n)
{
	const char *name = n->call.name;

	if (!strcmp(name, "exit")) {
		emit(cg, "stp_request_exit(c);");
		return "0";
	}
	if (!strcmp(name, "execname")) {
		const char *t = tmp_string(cg);
		emit(cg, "stp_execname(%s);", t);
		return t;
	}
	if (!strcmp(name, "error")) {
		const char *msg = gen_expr(cg, n->call.args);
		emit(cg, "stp_error(c, %s, NULL);", msg);
		emit(cg, "goto %s;", cg->err);
		return "0";
	}
	if (n->sym && n->sym->kind == SYM_BUILTIN &&
	    (!strcmp(name, "matched") || !strcmp(name, "matched_str"))) {
		const char *k = n->call.args ? gen_expr(cg, n->call.args) : "0";
		const char *t = tmp_string(cg);
		emit(cg, "stp_re_matched(c, %s, %s, %s);", t, k, where(cg, n));
		emit(cg, "if (unlikely(c->last_error))");
		emit(cg, "\tgoto %s;", cg->err);
		return t;
	}
	if (n->sym && n->sym->kind == SYM_BUILTIN && !strcmp(name, "ngroups")) {
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = stp_re_ngroups(c, %s);", t, where(cg, n));
		emit(cg, "if (unlikely(c->last_error))");
		emit(cg, "\tgoto %s;", cg->err);
		return t;
	}
	if (n->sym && n->sym->kind == SYM_FUNCTION)
		return gen_script_call(cg, n, n->sym->func);
	if (n->sym && n->sym->kind == SYM_BUILTIN && n->sym->bi_kind != BI_SPECIAL)
		return gen_builtin_call(cg, n, n->sym);
	if (n->sym && n->sym->kind == SYM_BUILTIN && n->sym->type == TY_STRING)
		return n->sym->c_expr;	/* a constant string: pp() */
	if (n->sym && n->sym->kind == SYM_BUILTIN) {
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = %s;", t, n->sym->c_expr);
		return t;
	}
	unsupported(cg, n, "this function");
	return "0";
}

/*
 * A pretty-printing table (see runtime/pretty.h) as C initialisers: the
 * items of p, one a line, for an array of struct stp_pp_item.
 */
void pretty_items(struct cg *cg, FILE *out, const struct pretty *p,
			 const char *indent)
{
	static const char *const src[] = {
		[PS_VALUE] = "STP_PP_VALUE", [PS_ADDR] = "STP_PP_ADDR",
		[PS_READ] = "STP_PP_READ", [PS_BITS] = "STP_PP_BITS",
	};

	for (int i = 0; i < p->nitems; i++) {
		const struct pretty_item *it = &p->items[i];
		fprintf(out, "%s{ %s, ", indent,
			c_string(cg, it->text, strlen(it->text)));
		if (it->conv)
			fprintf(out, "'%c', ", it->conv);
		else
			fputs("0, ", out);
		fprintf(out, "%s, %u, %d, %u, %u, %u },\n", src[it->src],
			it->size, it->is_signed, it->bit_shift, it->bit_size,
			it->offset);
	}
}

/*
 * Walk path from the value base in the handler (a @cast chain): the same
 * steps as a callback's (path_steps), but a fault is the script's error
 * at once.
 */
static const char *gen_walk(struct cg *cg, const char *base,
			    const struct member_path *path, const struct node *n)
{
	const char *t = tmp_long(cg);
	const char **index = arena_alloc(&cg->s->arena, (size_t)(path->nsteps + 1) *
					 sizeof(*index));

	/* computed indexes first, in script order */
	for (int i = 0; i < path->nsteps; i++)
		if (path->steps[i].index_expr)
			index[i] = gen_expr(cg, path->steps[i].index_expr);
	emit(cg, "int64_t %s;", t);
	emit(cg, "{");
	emit(cg, "\t__label__ fault;");
	emit(cg, "\tu64 stp_addr = (u64)%s;", base);
	/* the same steps as a callback's, at this handler's indentation
	 * (emit() indents the first line of what it is given) */
	char *in = arena_alloc(&cg->s->arena, (size_t)cg->depth + 1);
	memset(in, '\t', (size_t)cg->depth);
	path_steps(&cg->code, path, in, "", index);
	emit(cg, "\t%s = (int64_t)stp_addr;", t);
	emit(cg, "\tif (0) {");
	emit(cg, "fault:");
	emit(cg, "\t\tstp_errorf(c, \"read fault [man error::fault] at "
	     "0x%%llx\", (unsigned long long)stp_addr);");
	emit(cg, "\t\tc->last_where = %s;", where(cg, n));
	emit(cg, "\t\tgoto %s;", cg->err);
	emit(cg, "\t}");
	emit(cg, "}");
	return t;
}

/*
 * A typed value (SYM_TYPED): its base's value, the steps of a @cast chain
 * if any, then its pretty printing if asked.
 */
static const char *gen_typed(struct cg *cg, const struct node *n,
			     const struct symbol *sym)
{
	const char *v = gen_expr(cg, sym->typed_base);
	char *items = NULL;
	size_t len = 0;
	FILE *f;

	if (sym->member_path && sym->member_path->nsteps)
		v = gen_walk(cg, v, sym->member_path, n);
	if (!sym->pretty)
		return v;
	int id = cg->ntemps++;
	f = open_memstream(&items, &len);
	pretty_items(cg, f, sym->pretty, "\t");
	fclose(f);
	emit(cg, "static const struct stp_pp_item stp_ppi%d[] = {\n%s};", id,
	     items);
	free(items);
	emit(cg, "static const struct stp_pretty stp_pp%d = { stp_ppi%d, %d, "
	     "%d };", id, id, sym->pretty->nitems, sym->pretty->user);
	const char *s = tmp_string(cg), *scratch = tmp_string(cg);
	emit(cg, "{");
	emit(cg, "\tstruct stp_strbuf sb;");
	emit(cg, "\tstp_sb_init(&sb, %s);", s);
	emit(cg, "\tstp_pretty(&sb, &stp_pp%d, %s, %s);", id, v, scratch);
	emit(cg, "}");
	return s;
}




/*
 * Context values: a slot the probe's callback filled (c->tp->v[k], with
 * the fault its read met), a folded @defined, a typed value; anything
 * else is the attach kind's ($value, $$parms, $return, @entry, ...).
 */
const char *gen_ctx_write(struct cg *cg, const struct node *n,
			  const char *writer)
{
	const struct symbol *sym = n->binary.lhs->sym;
	const char *v = tmp_long(cg);
	const char *where_ = where(cg, n->binary.lhs);

	emit(cg, "int64_t %s = %s;", v, gen_expr(cg, n->binary.rhs));
	fault_check(cg, n->binary.lhs, sym->index);
	emit(cg, "if (%s((unsigned long)c->tp->v[%d], (u64)%s, %u)) {",
	     writer, sym->index, v, sym->write_size);
	emit(cg, "\tstp_errorf(c, \"write fault [man error::fault] at 0x%%llx\", "
	     "(unsigned long long)c->tp->v[%d]);", sym->index);
	emit(cg, "\tc->last_where = %s;", where_);
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "}");
	return v;
}

void fault_check(struct cg *cg, const struct node *n, int slot)
{
	emit(cg, "if (unlikely(c->tp->faults & (1ULL << %d))) {", slot);
	emit(cg, "\tstp_errorf(c, \"read fault [man error::fault] "
	     "at 0x%%llx\", (unsigned long long)c->tp->v[%d]);", slot);
	emit(cg, "\tc->last_where = %s;", where(cg, n));
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "}");
}

static const char *gen_context(struct cg *cg, struct node *n)
{
	const struct kind_emit *e = scope_emit(cg);

	if (n->sym && n->sym->kind == SYM_TYPED)
		return gen_typed(cg, n, n->sym);
	if (n->kind == N_UNARY && (!n->sym || n->sym->kind != SYM_CONTEXT)) {
		unsupported(cg, n, "'&' here");
		return "0";
	}
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined")) {
		if (!n->sym || n->sym->kind != SYM_CONTEXT) {
			unsupported(cg, n, n->call.name);
			return "0";
		}
		return n->sym->index ? "((int64_t)1)" : "((int64_t)0)";
	}
	if (n->kind != N_ATFUNC && n->sym && n->sym->kind == SYM_CONTEXT) {
		const char *t = tmp_long(cg);
		if (n->sym->member_path || n->sym->may_fault)
			fault_check(cg, n, n->sym->index);
		emit(cg, "int64_t %s = c->tp->v[%d];", t, n->sym->index);
		return t;
	}
	for (int k = 0; n->kind == N_ATFUNC && k < ATTACH_NKINDS; k++) {
		const char *v = kind_emitters[k] && kind_emitters[k]->at_func ?
				kind_emitters[k]->at_func(cg, n) : NULL;
		if (v)
			return v;
	}
	if (e && e->context)
		return e->context(cg, n);
	unsupported(cg, n, ast_kind_name(n->kind));
	return "0";
}

/*
 * Embedded C in a script body (privileged code only; pass 1 checks).
 * The text is pasted as is: `c` (the context) and `l` (the frame) are in
 * scope, as in SystemTap 4.8's probe bodies; no STAP_* macros here. The
 * newline before the closing parenthesis ends a trailing // comment.
 */
static const char *gen_embedded_expr(struct cg *cg, struct node *n)
{
	const char *code = n->embedded.code;

	if (n->type == TY_STRING) {	/* pass 2 saw a string marker */
		const char *t = tmp_string(cg);
		emit(cg, "stp_strcpy(%s, (const char *)(%s\n));", t, code);
		return t;
	}
	const char *t = tmp_long(cg);
	emit(cg, "int64_t %s = (int64_t)(%s\n);", t, code);
	return t;
}

/*
 * The same in statement position: pasted as C statements rather than an
 * expression, so `%{ f(); g(); %}` works (SystemTap 4.8 takes only an
 * expression there); the `;` after it ends a code that has none.
 */
void gen_embedded_stmt(struct cg *cg, struct node *n)
{
	emit(cg, "{");
	emit(cg, "%s\n;", n->embedded.code);
	emit(cg, "}");
}

const char *gen_expr(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case N_EMBEDDED:
		cg->embedded = true;
		return gen_embedded_expr(cg, n);
	case N_NUMBER:
		if (n->num.anchor)	/* a kernel variable's address */
			return arena_printf(&cg->s->arena, "((int64_t)((unsigned "
					    "long)&%s + (%" PRId64 "LL)))",
					    n->num.anchor, (int64_t)((uint64_t)
					    n->num.value - n->num.anchor_link));
		if (n->num.value == INT64_MIN)
			return "((int64_t)(-9223372036854775807LL - 1))";
		return arena_printf(&cg->s->arena, "((int64_t)%" PRId64 "LL)",
				    n->num.value);
	case N_STRING:
		return c_string(cg, n->str.value, n->str.len);
	case N_VAR: {
		if (!n->sym)
			return "0";
		const char *ref = var_ref(cg, n->sym);
		if (n->sym->type == TY_STRING)
			return ref;
		/* snapshot: a later operand may change the variable */
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = %s;", t, ref);
		return t;
	}
	case N_BINARY:
		if (n->binary.op == OP_MATCH || n->binary.op == OP_NMATCH)
			return gen_regex(cg, n);
		return gen_binary(cg, n);
	case N_UNARY: {
		if (n->unary.op == OP_ADDR)	/* &$x->f, &@cast(...)->f */
			return gen_context(cg, n);
		const char *a = gen_expr(cg, n->unary.operand);
		const char *t = tmp_long(cg);
		switch (n->unary.op) {
		case OP_NEG:
			emit(cg, "int64_t %s = (int64_t)(0 - (uint64_t)%s);", t, a);
			break;
		case OP_NOT:
			emit(cg, "int64_t %s = !%s;", t, a);
			break;
		case OP_BNOT:
			emit(cg, "int64_t %s = ~%s;", t, a);
			break;
		default:
			emit(cg, "int64_t %s = %s;", t, a);
			break;
		}
		return t;
	}
	case N_ASSIGN:
		return gen_assign(cg, n);
	case N_INCDEC:
		return gen_incdec(cg, n);
	case N_TERNARY:
		return gen_ternary(cg, n);
	case N_PRINT:
		return gen_print(cg, n);
	case N_CALL:
		return gen_call(cg, n);
	case N_INDEX:
		return gen_index_read(cg, n);
	case N_IN:
		if (n->binary.rhs->kind == N_HIST)
			return gen_hist_bucket(cg, n->binary.rhs, n->binary.lhs);
		return gen_in(cg, n);
	case N_STAT:
		return gen_stat(cg, n);
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
	case N_ATFUNC:
		if (ast_hist_index(n))
			return gen_hist_bucket(cg, n->target.base,
					       n->target.index);
		return gen_context(cg, n);
	case N_HIST:
		unsupported(cg, n, "a histogram outside print");
		return "0";
	default:
		unsupported(cg, n, ast_kind_name(n->kind));
		return "0";
	}
}
