// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: statements and expressions to C.
 *
 * Every expression is evaluated in script order into temporaries: the
 * generator emits the statements that compute it and returns a C
 * expression (without side effects) for its value. Longs live in C locals;
 * strings live in the frame (struct stp_locals_probe_N or _fn_N in the
 * per-CPU context), never on the kernel stack. A runtime error records a
 * message and jumps to the current error label: `out` (leave the probe or
 * function), or a try's catch label. Arrays and statistics are runtime
 * objects (runtime/map.h, stat.h) allocated at module load.
 */
#include "codegen/codegen.h"
#include "codegen/locks.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "target/tracepoints.h"
#include "lib/strbuf.h"

#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct cg {
	struct session *s;
	const struct program *prog;
	struct strbuf code;		/* the current handler's body */
	struct strbuf frame;		/* its frame struct members */
	int depth;			/* indentation */
	int ntemps;			/* temporaries in this handler */
	int nlabels;
	int loop_break[64], loop_cont[64];	/* label numbers per loop */
	int nloops;
	int errors;
	const char *err;		/* where a runtime error jumps */
	const struct probe_body *scope;	/* the probe or function */
	const struct lock_plan *locks;	/* also which globals are counters */
	int *nlean;			/* [body]: its count statements when
					 * lean (gen_lean_counts), else -1 */
	bool *filtered;			/* [body]: lean after its first
					 * statement, a tracepoint filter */
};

static void emit(struct cg *cg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void emit(struct cg *cg, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < cg->depth; i++)
		sb_putc(&cg->code, '\t');
	va_start(ap, fmt);
	sb_vprintf(&cg->code, fmt, ap);
	va_end(ap);
	sb_putc(&cg->code, '\n');
}

static void unsupported(struct cg *cg, const struct node *n, const char *what)
{
	diag_error(cg->s, n->loc, "%s is not supported by the code generator "
		   "yet", what);
	cg->errors++;
}

static const char *tmp_long(struct cg *cg)
{
	return arena_printf(&cg->s->arena, "t%d", cg->ntemps++);
}

/* A string temporary in the frame. */
static const char *tmp_string(struct cg *cg)
{
	int n = cg->ntemps++;

	sb_printf(&cg->frame, "\tchar s%d[MAXSTRINGLEN];\n", n);
	return arena_printf(&cg->s->arena, "l->s%d", n);
}

/* A C string literal for bytes (with escapes, safe in any context). */
static const char *c_string(struct cg *cg, const char *s, size_t len)
{
	struct strbuf sb = { 0 };

	sb_putc(&sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			sb_printf(&sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(&sb, "\\n");
		else if (ch < 0x20 || ch >= 0x7f || ch == '?')
			sb_printf(&sb, "\\%03o", ch);	/* '?' avoids trigraphs */
		else
			sb_putc(&sb, (char)ch);
	}
	sb_putc(&sb, '"');
	const char *r = arena_strdup(&cg->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* "operator '/' at x.stp:7:36" as a C string literal. */
static const char *where(struct cg *cg, const struct node *n)
{
	const char *w = diag_describe_token(cg->s, n->loc);

	return c_string(cg, w, strlen(w));
}

static const char *var_ref(struct cg *cg, const struct symbol *sym)
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

static const char *gen_expr(struct cg *cg, struct node *n);
static const char *gen_context(struct cg *cg, struct node *n);
static bool procfs_scope(const struct cg *cg);
static void gen_stmt(struct cg *cg, struct node *n);

/* ---- arrays and statistics ---------------------------------------------- */

static bool is_stat_array(const struct symbol *sym)
{
	return sym->nkeys > 0 && sym->type == TY_STATS;
}

/* The C object of a global array or statistic, as a pointer. */
static const char *gref(struct cg *cg, const struct symbol *sym)
{
	return arena_printf(&cg->s->arena, "&stp_g_%s", sym->cname);
}

/* The map desc of an array. */
static const char *gdesc(struct cg *cg, const struct symbol *sym)
{
	return arena_printf(&cg->s->arena, "&stp_gmd_%s", sym->cname);
}

static bool global_ok(struct cg *cg, struct node *at, const struct symbol *sym)
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
static const char *gen_keys(struct cg *cg, struct node *keys,
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

static void overflow_error(struct cg *cg, const struct node *at,
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
		emit(cg, "if (unlikely(stp_pmap_add(%s, c->cpu, %s, %s))) {",
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

/* The aggregate of a statistic (scalar or element) as a struct stp_stat *. */
static const char *gen_stat_get(struct cg *cg, struct node *op)
{
	const struct symbol *sym = op->sym;
	const char *t = arena_printf(&cg->s->arena, "st%d", cg->ntemps++);
	unsigned wild;

	if (op->kind == N_INDEX) {
		const char *k = gen_keys(cg, op->index.keys, sym, &wild);
		emit(cg, "struct stp_stat *%s = stp_pmap_get(%s, %s);", t,
		     gref(cg, sym), k);
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
	const char *st = gen_stat_get(cg, op);
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

/* A histogram printed to the sink (prefix "stp_print"/"stp_sb"). */
static void gen_hist(struct cg *cg, struct node *n, const char *prefix,
		     const char *target)
{
	struct node *op = n->stat.operand;

	if (!op->sym || !global_ok(cg, op, op->sym))
		return;
	const char *st = gen_stat_get(cg, op);
	empty_check(cg, n, st);
	emit(cg, "%s_hist(%s, &stp_gsd_%s, %s);", prefix, target,
	     op->sym->cname, st);
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

/*
 * `$x = v`, `$x->f = v` in a kernel.function probe (-g): the context
 * value is the address to write (a fault computing it is raised first).
 */
static const char *gen_kf_write(struct cg *cg, struct node *n)
{
	const struct symbol *sym = n->binary.lhs->sym;
	const char *v = tmp_long(cg);
	const char *where_ = where(cg, n->binary.lhs);

	emit(cg, "int64_t %s = %s;", v, gen_expr(cg, n->binary.rhs));

	emit(cg, "if (unlikely(c->tp->faults & (1ULL << %d))) {", sym->index);
	emit(cg, "\tstp_errorf(c, \"read fault [man error::fault] at 0x%%llx\", "
	     "(unsigned long long)c->tp->v[%d]);", sym->index);
	emit(cg, "\tc->last_where = %s;", where_);
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "}");
	emit(cg, "if (stp_kf_write((unsigned long)c->tp->v[%d], (u64)%s, %u)) {",
	     sym->index, v, sym->kf_write_size);
	emit(cg, "\tstp_errorf(c, \"write fault [man error::fault] at 0x%%llx\", "
	     "(unsigned long long)c->tp->v[%d]);", sym->index);
	emit(cg, "\tc->last_where = %s;", where_);
	emit(cg, "\tgoto %s;", cg->err);
	emit(cg, "}");
	return v;
}

static const char *gen_assign(struct cg *cg, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;

	if (lhs->sym && lhs->sym->kind == SYM_CONTEXT && lhs->sym->kf_write_size)
		return gen_kf_write(cg, n);

	if (lhs->kind == N_INDEX && lhs->sym)
		return gen_index_assign(cg, n);
	if (lhs->kind == N_TARGET && procfs_scope(cg)) {
		/* a read probe's $value = s / .= s: the file's content */
		const char *v = gen_expr(cg, rhs);
		emit(cg, "stp_procfs_set(c, %s, %s);", v,
		     n->binary.op == OP_CONCAT ? "true" : "false");
		return v;
	}
	if (n->binary.op == OP_AGG) {
		if (lhs->kind != N_VAR || !lhs->sym ||
		    !global_ok(cg, lhs, lhs->sym))
			return "0";
		const char *v = gen_expr(cg, rhs);
		emit(cg, "stp_pstat_add(%s, c->cpu, %s);", gref(cg, lhs->sym), v);
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

/* A struct stp_fmt initialiser for a printf piece. */
static const char *fmt_init(struct cg *cg, const struct fmt_piece *p)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "{ .conv = '%c', .flags = 0", p->conv);
	if (p->flags & FMT_LEFT)
		sb_puts(&sb, " | STP_FMT_LEFT");
	if (p->flags & FMT_PLUS)
		sb_puts(&sb, " | STP_FMT_PLUS");
	if (p->flags & FMT_SPACE)
		sb_puts(&sb, " | STP_FMT_SPACE");
	if (p->flags & FMT_ALT)
		sb_puts(&sb, " | STP_FMT_ALT");
	if (p->flags & FMT_ZERO)
		sb_puts(&sb, " | STP_FMT_ZERO");
	sb_printf(&sb, ", .width = %d, .prec = %d }", p->width, p->prec);
	const char *r = arena_strdup(&cg->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
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

	/* first each conversion's format and value, then the output */
	const char **fmts = arena_alloc(&cg->s->arena, (size_t)(np + 1) * sizeof(*fmts));
	const char **args = arena_alloc(&cg->s->arena, (size_t)(np + 1) * sizeof(*args));
	int ai = 0;
	for (int p = 0; p < np; p++) {
		struct fmt_piece *pc = &pieces[p];
		if (!pc->is_conv)
			continue;
		const char *f = arena_printf(&cg->s->arena, "f%d", cg->ntemps++);
		if (pc->width_star || pc->prec_star) {
			emit(cg, "struct stp_fmt %s = %s;", f, fmt_init(cg, pc));
			if (pc->width_star)
				emit(cg, "%s.width = %s < 0 ? -1 : (int)%s;", f,
				     vals[ai], vals[ai]), ai++;
			if (pc->prec_star)
				emit(cg, "%s.prec = %s < 0 ? -1 : (int)%s;", f,
				     vals[ai], vals[ai]), ai++;
		} else {
			emit(cg, "static const struct stp_fmt %s = %s;", f,
			     fmt_init(cg, pc));
		}
		fmts[p] = f;
		args[p] = vals[ai++];
		/* %m/%M: a read fault is an error before anything is printed */
		if (pc->conv == 'm' || pc->conv == 'M') {
			emit(cg, "if (unlikely(stp_mem_check(c, &%s, %s, %s)))",
			     f, args[p], where(cg, n));
			emit(cg, "\tgoto %s;", cg->err);
		}
	}
	for (int p = 0; p < np; p++) {
		struct fmt_piece *pc = &pieces[p];
		if (!pc->is_conv) {
			sink_str(cg, k, c_string(cg, pc->text, pc->len));
			continue;
		}
		const char *fn = pc->conv == 's' ? "string" : "long";
		emit(cg, "%s_%s(%s, &%s, %s);", k->prefix, fn, k->target,
		     fmts[p], args[p]);
	}
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
		int nvals = ast_list_length(delim->next), i = 0;
		const char **vals = arena_alloc(&cg->s->arena, (size_t)(nvals + 1) * sizeof(*vals));
		ast_foreach(a, delim->next)
			vals[i++] = a->kind == N_HIST ? "0" : gen_expr(cg, a);
		i = 0;
		ast_foreach(a, delim->next) {
			if (i)
				sink_str(cg, &k, d);
			sink_value(cg, &k, a, vals[i++]);
		}
		if (kind == PRINT_PRINTDLN || kind == PRINT_SPRINTDLN)
			sink_str(cg, &k, "\"\\n\"");
		break;
	}
	default: {
		int nvals = ast_list_length(n->print.args), i = 0;
		const char **vals = arena_alloc(&cg->s->arena, (size_t)(nvals + 1) * sizeof(*vals));
		ast_foreach(a, n->print.args)
			vals[i++] = a->kind == N_HIST ? "0" : gen_expr(cg, a);
		i = 0;
		ast_foreach(a, n->print.args)
			sink_value(cg, &k, a, vals[i++]);
		if (kind == PRINT_PRINTLN || kind == PRINT_SPRINTLN)
			sink_str(cg, &k, "\"\\n\"");
		break;
	}
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
	const char *ftype = arena_printf(&cg->s->arena,
					 "struct stp_locals_fn_%d", f->index);
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
	emit(cg, "stp_fn_%d(c);", f->index);
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
static void pretty_items(struct cg *cg, FILE *out, const struct pretty *p,
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
 * steps as gen_tp_path, but a fault is the script's error at once.
 */
static const char *gen_walk(struct cg *cg, const char *base,
			    const struct tp_path *path, const struct node *n)
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
	for (int i = 0; i < path->nsteps; i++) {
		const struct tp_step *st = &path->steps[i];
		unsigned byte = st->bit_offset / 8;
		if (st->kind == TPS_MEMBER && st->result != TPR_BITS && byte)
			emit(cg, "\tstp_addr += %u;\t/* ->%s */", byte,
			     st->member);
		if (st->kind == TPS_INDEX && st->index_expr)
			emit(cg, "\tstp_addr += (u64)%s * %u;", index[i],
			     st->stride);
		else if (st->kind == TPS_INDEX && st->index)
			emit(cg, "\tstp_addr += %" PRId64 "LL * %u;", st->index,
			     st->stride);
		if (st->result == TPR_READ)
			emit(cg, "\tif (stp_tp_read(&stp_addr, stp_addr, %u, %d))\n"
			     "\t\tgoto fault;", st->size, st->is_signed);
		else if (st->result == TPR_BITS)
			emit(cg, "\tif (stp_tp_read_bits(&stp_addr, stp_addr + %u, "
			     "%u, %u, %d))\n\t\tgoto fault;", byte,
			     st->bit_offset % 8, st->bit_size, st->is_signed);
	}
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

	if (sym->tp_path && sym->tp_path->nsteps)
		v = gen_walk(cg, v, sym->tp_path, n);
	if (!sym->pretty)
		return v;
	int id = cg->ntemps++;
	f = open_memstream(&items, &len);
	pretty_items(cg, f, sym->pretty, "\t");
	fclose(f);
	emit(cg, "static const struct stp_pp_item stp_ppi%d[] = {\n%s};", id,
	     items);
	free(items);
	emit(cg, "static const struct stp_pretty stp_pp%d = { stp_ppi%d, %d };",
	     id, id, sym->pretty->nitems);
	const char *s = tmp_string(cg), *scratch = tmp_string(cg);
	emit(cg, "{");
	emit(cg, "\tstruct stp_strbuf sb;");
	emit(cg, "\tstp_sb_init(&sb, %s);", s);
	emit(cg, "\tstp_pretty(&sb, &stp_pp%d, %s, %s);", id, v, scratch);
	emit(cg, "}");
	return s;
}

/* Tracepoint context: $x (a slot the callback filled), $$..., @defined. */
/* Is the handler being generated a procfs probe's? ($value) */
static bool procfs_scope(const struct cg *cg)
{
	for (int i = 0; i < cg->prog->nprobes; i++)
		if (cg->prog->probes[i]->body == cg->scope)
			return cg->prog->probes[i]->kind == PF_PROCFS;
	return false;
}

/*
 * The C cast that gives $return its type in the handler being generated:
 * an int is the register's low 32 bits, sign-extended (the upper half of
 * the register is not part of it). The functions sharing the handler
 * must agree; otherwise, or for a 64-bit or unknown type, none.
 */
static const char *return_cast(const struct cg *cg)
{
	unsigned size = 0;
	bool is_signed = false, first = true;

	for (int i = 0; i < cg->prog->nprobes; i++) {
		const struct derived_probe *d = cg->prog->probes[i];

		if (d->body != cg->scope || d->kind != PF_KRETFUNC)
			continue;
		if (first) {
			size = d->kf_ret_size;
			is_signed = d->kf_ret_signed;
			first = false;
		} else if (d->kf_ret_size != size ||
			   d->kf_ret_signed != is_signed) {
			return "";
		}
	}
	switch (size) {
	case 1: return is_signed ? "(s8)" : "(u8)";
	case 2: return is_signed ? "(s16)" : "(u16)";
	case 4: return is_signed ? "(s32)" : "(u32)";
	default: return "";
	}
}

static const char *gen_context(struct cg *cg, struct node *n)
{
	if (n->sym && n->sym->kind == SYM_TYPED)
		return gen_typed(cg, n, n->sym);
	if (n->kind == N_UNARY && (!n->sym || n->sym->kind != SYM_CONTEXT)) {
		unsupported(cg, n, "'&' here");
		return "0";
	}

	const char *name = n->target.name;

	if (n->kind == N_TARGET && procfs_scope(cg)) {
		/* a write probe's $value: the bytes written */
		const char *t = tmp_string(cg);
		emit(cg, "strscpy(%s, stp_procfs_data(c)->buf, MAXSTRINGLEN);", t);
		return t;
	}

	if (n->kind == N_ATFUNC && strcmp(n->call.name, "@entry")) {
		if (!n->sym || n->sym->kind != SYM_CONTEXT) {
			unsupported(cg, n, n->call.name);
			return "0";
		}
		return n->sym->index ? "((int64_t)1)" : "((int64_t)0)";
	}
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@entry") && n->sym) {
		/* computed by the handler's entry part (gen_body) */
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = c->tp->v[c->probe->kf_nvals + %d];", t,
		     n->sym->index);
		return t;
	}
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@entry"))
		return gen_expr(cg, n->call.args);	/* values from the entry */
	if (n->sym && n->sym->kind == SYM_CONTEXT) {
		const char *t = tmp_long(cg);
		if (n->sym->tp_path || n->sym->kf_entry) {
			emit(cg, "if (unlikely(c->tp->faults & (1ULL << %d))) {",
			     n->sym->index);
			emit(cg, "\tstp_errorf(c, \"read fault [man error::fault] "
			     "at 0x%%llx\", (unsigned long long)c->tp->v[%d]);",
			     n->sym->index);
			emit(cg, "\tc->last_where = %s;", where(cg, n));
			emit(cg, "\tgoto %s;", cg->err);
			emit(cg, "}");
		}
		emit(cg, "int64_t %s = c->tp->v[%d];", t, n->sym->index);
		return t;
	}
	if (!strncmp(name, "$$parms", 7) || !strncmp(name, "$$vars", 6)) {
		/* $$parms, $$parms$, $$parms$$: mode 0, 1, 2 */
		const char *t = tmp_string(cg), *scratch = tmp_string(cg);
		size_t len = strlen(name), mode = 0;
		while (mode < 2 && name[len - 1 - mode] == '$')
			mode++;
		emit(cg, "stp_tp_parms(c, %s, %zu, %s);", t, mode, scratch);
		return t;
	}
	if (!strcmp(name, "$return")) {
		/* kernel.function(...).return: pass 2 allows nothing else */
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = (int64_t)%sregs_return_value(c->regs);",
		     t, return_cast(cg));
		return t;
	}
	if (!strcmp(name, "$$system"))
		return "c->probe->tp_system";
	if (!strcmp(name, "$$name"))
		return "c->probe->tp_name";
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
static void gen_embedded_stmt(struct cg *cg, struct node *n)
{
	emit(cg, "{");
	emit(cg, "%s\n;", n->embedded.code);
	emit(cg, "}");
}

static const char *gen_expr(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case N_EMBEDDED:
		return gen_embedded_expr(cg, n);
	case N_NUMBER:
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
		return gen_in(cg, n);
	case N_STAT:
		return gen_stat(cg, n);
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
	case N_ATFUNC:
		return gen_context(cg, n);
	case N_HIST:
		unsupported(cg, n, "a histogram outside print");
		return "0";
	default:
		unsupported(cg, n, ast_kind_name(n->kind));
		return "0";
	}
}

/* ---- statements ------------------------------------------------------ */

static void action(struct cg *cg, struct node *n)
{
	if (!strcmp(cg->err, "out"))
		emit(cg, "STP_ACTION(c, 1, %s);", where(cg, n));
	else
		emit(cg, "STP_ACTION_TO(c, 1, %s, %s);", where(cg, n), cg->err);
}

static void gen_block_body(struct cg *cg, struct node *n)
{
	emit(cg, "{");
	cg->depth++;
	gen_stmt(cg, n);
	cg->depth--;
	emit(cg, "}");
}

/* Does running this statement charge the action budget? */
static bool has_action(const struct node *n)
{
	if (n->kind == N_NULL_STMT)
		return false;
	if (n->kind != N_BLOCK)
		return true;
	ast_foreach(st, n->block.stmts)
		if (has_action(st))
			return true;
	return false;
}

static void gen_loop(struct cg *cg, struct node *n)
{
	if (cg->nloops == (int)(sizeof(cg->loop_break) / sizeof(cg->loop_break[0]))) {
		unsupported(cg, n, "loops nested this deep");
		return;
	}
	int brk = cg->nlabels++, cont = cg->nlabels++;
	if (n->loop.init) {
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->loop.init);
		cg->depth--;
		emit(cg, "}");
	}
	emit(cg, "for (;;) {");
	cg->depth++;
	if (n->loop.cond) {
		const char *c = gen_expr(cg, n->loop.cond);
		emit(cg, "if (!%s)", c);
		emit(cg, "\tbreak;");
	}
	/* an empty body still pays per iteration: no loop escapes MAXACTION */
	if (!has_action(n->loop.body))
		action(cg, n);
	cg->loop_break[cg->nloops] = brk;
	cg->loop_cont[cg->nloops] = cont;
	cg->nloops++;
	gen_block_body(cg, n->loop.body);
	cg->nloops--;
	emit(cg, "L%d: ;", cont);
	if (n->loop.step) {
		action(cg, n->loop.step);
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->loop.step);
		cg->depth--;
		emit(cg, "}");
	}
	cg->depth--;
	emit(cg, "}");
	emit(cg, "L%d: ;", brk);
}

static void gen_delete(struct cg *cg, struct node *e)
{
	const struct symbol *sym = e->sym;

	if (!sym)
		return;
	if (e->kind == N_VAR && sym->nkeys == 0 && sym->type != TY_STATS) {
		const char *ref = var_ref(cg, sym);
		emit(cg, sym->type == TY_STRING ? "%s[0] = '\\0';" : "%s = 0;",
		     ref);
		return;
	}
	if (!global_ok(cg, e, sym))
		return;
	if (e->kind == N_VAR && sym->nkeys == 0) {
		emit(cg, "stp_pstat_clear(%s);", gref(cg, sym));
		return;
	}
	const char *kind = is_stat_array(sym) ? "pmap" : "map";
	if (e->kind == N_VAR) {
		emit(cg, "stp_%s_clear(%s);", kind, gref(cg, sym));
		return;
	}
	emit(cg, "{");
	cg->depth++;
	unsigned wild;
	const char *k = gen_keys(cg, e->index.keys, sym, &wild);
	emit(cg, "stp_%s_delete_match(%s, %s, %uu);", kind, gref(cg, sym), k,
	     wild);
	cg->depth--;
	emit(cg, "}");
}

/*
 * foreach: the entries are snapshot into this CPU's iteration slots
 * (c->iter), sorted there, and visited; the slots are released when the
 * loop ends (on an error, by the probe, function or catch that handles it).
 */
static void gen_foreach(struct cg *cg, struct node *n)
{
	struct node *arr = n->foreach.array;
	const struct symbol *sym = arr->sym;

	if (arr->kind != N_VAR || !sym || !global_ok(cg, arr, sym))
		return;
	if (cg->nloops == (int)(sizeof(cg->loop_break) / sizeof(cg->loop_break[0]))) {
		unsupported(cg, n, "loops nested this deep");
		return;
	}
	int brk = cg->nlabels++, cont = cg->nlabels++;
	bool stats = is_stat_array(sym);
	const char *base = tmp_long(cg), *cnt = tmp_long(cg), *i = tmp_long(cg);
	const char *map = stats ? arena_printf(&cg->s->arena, "&stp_g_%s.agg",
					       sym->cname) : gref(cg, sym);
	const char *lim = NULL;

	emit(cg, "{");
	cg->depth++;
	if (n->foreach.limit)
		lim = gen_expr(cg, n->foreach.limit);
	if (stats) {
		emit(cg, "if (unlikely(stp_pmap_aggregate(%s))) {", gref(cg, sym));
		overflow_error(cg, arr, sym);
		emit(cg, "}");
	}
	const char *slice = "NULL";
	unsigned wild = 0;
	if (n->foreach.slice)
		slice = gen_keys(cg, n->foreach.slice, sym, &wild);
	emit(cg, "u32 %s = c->iter_top;", base);
	emit(cg, "u32 %s = stp_map_collect(%s, c->iter + %s, STP_ITER_SLOTS - %s, "
	     "%s, %uu);", cnt, map, base, base, slice, wild);
	emit(cg, "u32 %s;", i);
	emit(cg, "c->iter_top = %s + %s;", base, cnt);
	if (n->foreach.sort_column) {
		emit(cg, "{");
		const char *agg;
		switch (n->foreach.sort_agg) {
		case STAT_SUM: agg = "STP_STAT_SUM"; break;
		case STAT_MIN: agg = "STP_STAT_MIN"; break;
		case STAT_MAX: agg = "STP_STAT_MAX"; break;
		case STAT_AVG: agg = "STP_STAT_AVG"; break;
		default: agg = "STP_STAT_COUNT"; break;
		}
		emit(cg, "\tconst struct stp_sort how = { %s, %d, %d, %s };",
		     map, n->foreach.sort_column, n->foreach.sort_dir, agg);
		emit(cg, "\tstp_map_sort(c->iter + %s, %s, &how);", base, cnt);
		emit(cg, "}");
	}
	emit(cg, "for (%s = 0; %s < %s; %s++) {", i, i, cnt, i);
	cg->depth++;
	if (lim) {
		emit(cg, "if ((int64_t)%s >= %s)", i, lim);
		emit(cg, "\tbreak;");
	}
	const char *e = arena_printf(&cg->s->arena, "e%d", cg->ntemps++);
	emit(cg, "struct stp_map_entry *%s = c->iter[%s + %s];", e, base, i);
	int k = 0;
	ast_foreach(key, n->foreach.keys) {
		if (!key->sym)
			continue;
		const char *ref = var_ref(cg, key->sym);
		if (sym->key_types[k] == TY_STRING)
			emit(cg, "stp_strcpy(%s, stp_map_key_str(%s, %s, %d));",
			     ref, map, e, k);
		else
			emit(cg, "%s = stp_map_key_long(%s, %s, %d);", ref, map,
			     e, k);
		k++;
	}
	struct node *v = n->foreach.value;
	if (v && v->sym) {
		const char *ref = var_ref(cg, v->sym);
		if (stats)
			unsupported(cg, v, "the value of a statistics array in foreach");
		else if (sym->type == TY_STRING)
			emit(cg, "stp_strcpy(%s, (const char *)stp_map_val(%s, %s));",
			     ref, map, e);
		else
			emit(cg, "%s = *(int64_t *)stp_map_val(%s, %s);", ref,
			     map, e);
	}
	if (!has_action(n->foreach.body))
		action(cg, n);
	cg->loop_break[cg->nloops] = brk;
	cg->loop_cont[cg->nloops] = cont;
	cg->nloops++;
	gen_block_body(cg, n->foreach.body);
	cg->nloops--;
	emit(cg, "L%d: ;", cont);
	cg->depth--;
	emit(cg, "}");
	emit(cg, "L%d:", brk);
	emit(cg, "c->iter_top = %s;", base);
	cg->depth--;
	emit(cg, "}");
}

/*
 * try/catch: errors in the body jump to the catch label, which restores
 * the iteration slots, hands the message to the catch variable and clears
 * the error.
 */
static void gen_try(struct cg *cg, struct node *n)
{
	int lcatch = cg->nlabels++, lend = cg->nlabels++;
	int slot = cg->ntemps++;
	const char *outer = cg->err;

	sb_printf(&cg->frame, "\tu32 it%d;\n", slot);
	emit(cg, "l->it%d = c->iter_top;", slot);
	cg->err = arena_printf(&cg->s->arena, "L%d", lcatch);
	gen_block_body(cg, n->try.body);
	cg->err = outer;
	emit(cg, "goto L%d;", lend);
	emit(cg, "L%d:", lcatch);
	emit(cg, "c->iter_top = l->it%d;", slot);
	if (n->try.catch_var) {
		const struct symbol *cv = NULL;
		for (int i = 0; i < cg->scope->nlocals; i++)
			if (!strcmp(cg->scope->locals[i]->name, n->try.catch_var))
				cv = cg->scope->locals[i];
		if (cv)
			emit(cg, "stp_strcpy(%s, c->last_error ? c->last_error : \"\");",
			     var_ref(cg, cv));
	}
	emit(cg, "c->last_error = NULL;");
	emit(cg, "c->last_where = NULL;");
	gen_block_body(cg, n->try.handler);
	emit(cg, "L%d: ;", lend);
}

/* A counter statement: add to this CPU's slot (locks.c). */
static bool gen_count(struct cg *cg, struct node *n)
{
	const struct node *t = count_target(n);
	struct node *e = n->stmt.expr;
	int slot = t ? lock_plan_counter(cg->locks, t->sym) : -1;

	if (slot < 0)
		return false;
	emit(cg, "{");
	cg->depth++;
	if (e->kind == N_INCDEC)
		emit(cg, "this_cpu_%s(stp_counters[%d]);",
		     e->incdec.increment ? "inc" : "dec", slot);
	else
		emit(cg, "this_cpu_%s(stp_counters[%d], (u64)%s);",
		     e->binary.op == OP_ADD ? "add" : "sub", slot,
		     gen_expr(cg, e->binary.rhs));
	cg->depth--;
	emit(cg, "}");
	return true;
}

static void gen_stmt(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		ast_foreach(st, n->block.stmts)
			gen_stmt(cg, st);
		return;
	case N_NULL_STMT:
		return;		/* also what the optimiser left of a statement */
	default:
		break;
	}
	action(cg, n);
	switch (n->kind) {
	case N_EXPR_STMT:
		if (gen_count(cg, n))
			break;
		if (n->stmt.expr->kind == N_EMBEDDED) {
			gen_embedded_stmt(cg, n->stmt.expr);
			break;
		}
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->stmt.expr);
		cg->depth--;
		emit(cg, "}");
		break;
	case N_IF: {
		int64_t live;
		if (sema_folded_defined(n->cond.cond, &live)) {
			if (live)
				gen_stmt(cg, n->cond.then);
			else if (n->cond.els)
				gen_stmt(cg, n->cond.els);
			break;
		}
		emit(cg, "{");
		cg->depth++;
		const char *c = gen_expr(cg, n->cond.cond);
		emit(cg, "if (%s) {", c);
		cg->depth++;
		gen_stmt(cg, n->cond.then);
		cg->depth--;
		if (n->cond.els) {
			emit(cg, "} else {");
			cg->depth++;
			gen_stmt(cg, n->cond.els);
			cg->depth--;
		}
		emit(cg, "}");
		cg->depth--;
		emit(cg, "}");
		break;
	}
	case N_WHILE:
	case N_FOR:
		gen_loop(cg, n);
		break;
	case N_BREAK:
		emit(cg, "goto L%d;", cg->loop_break[cg->nloops - 1]);
		break;
	case N_CONTINUE:
		emit(cg, "goto L%d;", cg->loop_cont[cg->nloops - 1]);
		break;
	case N_NEXT:
		if (cg->scope->func)
			emit(cg, "c->next = true;");
		emit(cg, "goto out;");
		break;
	case N_RETURN:
		if (n->stmt.expr) {
			const char *v = gen_expr(cg, n->stmt.expr);
			if (cg->scope->func->sym->type == TY_STRING)
				emit(cg, "stp_strcpy(l->ret, %s);", v);
			else
				emit(cg, "l->ret = %s;", v);
		}
		emit(cg, "goto out;");
		break;
	case N_DELETE:
		gen_delete(cg, n->stmt.expr);
		break;
	case N_FOREACH:
		gen_foreach(cg, n);
		break;
	case N_TRY:
		gen_try(cg, n);
		break;
	case N_EMBEDDED:
		gen_embedded_stmt(cg, n);
		break;
	default:
		unsupported(cg, n, ast_kind_name(n->kind));
		break;
	}
}

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
	for (int i = 0; i < cg->prog->nembeds; i++) {
		const struct node *e = cg->prog->embeds[i];
		const struct srcfile *f = session_file(cg->s, e->loc.file);
		fprintf(out, "\n/* embedded C at %s:%d:%d */\n%s\n",
			f ? f->name : "?", e->loc.line, e->loc.col,
			e->embedded.code);
	}
	if (cg->prog->nembeds)
		fputs("#pragma GCC diagnostic pop\n", out);
}

static void gen_globals(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;

	if (prog->nglobals)
		fputs("\n/* globals */\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const struct node *init = g->decl ? g->decl->global.init : NULL;
		if (g->type == TY_STATS) {
			const char *h = g->hist == HIST_LOG ? "STP_HIST_LOG" :
				g->hist == HIST_LINEAR ? "STP_HIST_LINEAR" :
				"STP_HIST_NONE";
			int nb = g->hist == HIST_LOG ? 128 : g->hist == HIST_LINEAR ?
				(int)((g->hist_hi - g->hist_lo) / g->hist_step) + 3 : 0;
			fprintf(out, "static const struct stp_stat_desc stp_gsd_%s = "
				"{ .hist = %s, .shift = %d, .lo = %" PRId64 "LL, "
				".hi = %" PRId64 "LL, .step = %" PRId64 "LL, "
				".nbuckets = %d };\n", g->cname, h, g->var_shift,
				g->hist_lo,
				g->hist_hi, g->hist_step, nb);
		}
		if (g->nkeys) {
			char keys[MAX_KEYS + 1];
			for (int k = 0; k < g->nkeys; k++)
				keys[k] = g->key_types[k] == TY_STRING ? 's' : 'l';
			keys[g->nkeys] = '\0';
			int64_t max = g->decl ? g->decl->global.max_entries : 0;
			fprintf(out, "static const struct stp_map_desc stp_gmd_%s = "
				"{ .keys = \"%s\", .vtype = %s, .wrap = %s, "
				".max_entries = ", g->cname, keys,
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
			fprintf(out, "static struct stp_%s stp_g_%s;\n",
				g->type == TY_STATS ? "pmap" : "map", g->cname);
			continue;
		}
		switch (g->type) {
		case TY_STRING:
			if (init) {
				size_t len = init->str.len;
				if (len > 511)	/* MAXSTRINGLEN - 1 at the default */
					len = 511;
				fprintf(out, "static char stp_g_%s[MAXSTRINGLEN] = %s;\n",
					g->cname, c_string(cg, init->str.value, len));
			} else {
				fprintf(out, "static char stp_g_%s[MAXSTRINGLEN];\n",
					g->cname);
			}
			break;
		case TY_STATS:
			fprintf(out, "static struct stp_pstat stp_g_%s;\n", g->cname);
			break;
		default:
			fprintf(out, "static int64_t stp_g_%s = %" PRId64 "LL;\n",
				g->cname, init ? init->num.value : 0);
			break;
		}
		/* for embedded C that declares it with a pragma (pass 2); of
		 * two private globals of one name, the first file's has them */
		if (g->cname != g->name)
			continue;
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

/* Can an unmangled parameter alias `name` sit beside the frame's members? */
static bool alias_ok(const char *name)
{
	return strncmp(name, "l_", 2) && strcmp(name, "ret") &&
	       strcmp(name, "__retvalue") && strcmp(name, "stp_unused");
}

/*
 * An embedded-C function, in the calling convention of script functions
 * (the caller fills the frame at c->nesting + 1, bumps c->nesting, reads
 * `ret` and checks c->last_error and c->next after), with SystemTap's
 * macros defined around the code and undefined after it:
 *   STAP_ARG_x, THIS->l_x   parameter x (int64_t, or a char array)
 *   THIS->x                 the same, with the marker unmangled
 *   STAP_RETVALUE, THIS->__retvalue   the result: int64_t, or a char
 *                           array of MAXSTRINGLEN (write it with strlcpy)
 *   STAP_RETURN(v)          set the result and leave (no argument when the
 *                           function returns nothing)
 *   STAP_ERROR(fmt, ...)    raise a runtime error and leave
 *   STAP_PRINTF(fmt, ...)   print (the kernel's printf conventions)
 *   STAP_NEXT               leave the probe, as `next`
 *   CONTEXT, THIS           the struct stp_context and the frame
 * `return` leaves through `out` as in SystemTap 4.8, so an error the code
 * set by hand (CONTEXT->last_error) still gets its location there.
 * Other markers are ignored for now: pure, stable, unprivileged,
 * myproc-unprivileged and guru (this compiler drops no call and takes
 * embedded C only where it is privileged anyway), pragma:read/write:VAR
 * (globals touched from C are not in the probe's lock mode).
 */
static void gen_embedded_fn(struct cg *cg, FILE *structs, FILE *bodies,
			    const struct probe_body *b)
{
	const struct script_func *fn = b->func;
	const char *code = fn->decl->func.body->embedded.code;
	bool unmangled = strstr(code, "/* unmangled */") != NULL;
	bool str = fn->sym->type == TY_STRING;
	bool value = str || fn->sym->type == TY_LONG;
	const struct srcfile *f = session_file(cg->s, b->probe->loc.file);
	int i;

	fprintf(structs, "struct stp_locals_fn_%d {\n", b->index);
	for (i = 0; i < fn->nparams; i++) {
		const struct symbol *p = b->locals[i];
		const char *ct = p->type == TY_STRING ? "char" : "int64_t";
		const char *dim = p->type == TY_STRING ? "[MAXSTRINGLEN]" : "";
		if (unmangled && alias_ok(p->name))
			fprintf(structs, "\tunion { %s l_%s%s; %s %s%s; };\n",
				ct, p->name, dim, ct, p->name, dim);
		else
			fprintf(structs, "\t%s l_%s%s;\n", ct, p->name, dim);
	}
	fputs(str ? "\tunion { char ret[MAXSTRINGLEN]; "
		    "char __retvalue[MAXSTRINGLEN]; };\n"
		  : "\tunion { int64_t ret; int64_t __retvalue; };\n", structs);
	fputs("\tchar stp_unused;\n};\n", structs);

	fprintf(bodies, "\n/* function %s at %s:%d:%d (embedded C) */\n",
		fn->sym->name, f ? f->name : "?", b->probe->loc.line,
		b->probe->loc.col);
	fprintf(bodies, "static void stp_fn_%d(struct stp_context *c)\n{\n"
		"\tstruct stp_locals_fn_%d *l = stp_frame(c, c->nesting);\n\n",
		b->index, b->index);
	fputs(str ? "\tl->ret[0] = '\\0';\n" : "\tl->ret = 0;\n", bodies);
	fputs("#define CONTEXT c\n#define THIS l\n", bodies);
	for (i = 0; i < fn->nparams; i++)
		fprintf(bodies, "#define STAP_ARG_%s THIS->l_%s\n",
			b->locals[i]->name, b->locals[i]->name);
	if (value)
		fputs("#define STAP_RETVALUE THIS->ret\n", bodies);
	if (str)
		fputs("#define STAP_RETURN(v) do { strlcpy(STAP_RETVALUE, (v), "
		      "MAXSTRINGLEN); goto out; } while (0)\n", bodies);
	else if (value)
		fputs("#define STAP_RETURN(v) do { STAP_RETVALUE = (int64_t)(v); "
		      "goto out; } while (0)\n", bodies);
	else
		fputs("#define STAP_RETURN() do { goto out; } while (0)\n",
		      bodies);
	fputs("#define STAP_ERROR(...) do { stp_errorf(c, __VA_ARGS__); "
	      "goto out; } while (0)\n"
	      "#define STAP_PRINTF(...) do { stp_printf(c, __VA_ARGS__); "
	      "} while (0)\n"
	      "#define STAP_NEXT do { c->next = true; goto out; } while (0)\n"
	      "#define return goto out\n", bodies);
	fprintf(bodies, "\t{\n%s\n\t}\n#undef return\nout:\n", code);
	/* as SystemTap 4.8, an error of the code is "near" the function */
	fprintf(bodies, "\tif (unlikely(c->last_error && !c->last_where))\n"
		"\t\tc->last_where = %s;\n", where(cg, fn->decl));
	fputs("#undef CONTEXT\n#undef THIS\n", bodies);
	for (i = 0; i < fn->nparams; i++)
		fprintf(bodies, "#undef STAP_ARG_%s\n", b->locals[i]->name);
	if (value)
		fputs("#undef STAP_RETVALUE\n", bodies);
	fputs("#undef STAP_RETURN\n#undef STAP_ERROR\n#undef STAP_PRINTF\n"
	      "#undef STAP_NEXT\n}\n", bodies);
}

/*
 * Writes the frame struct of a probe handler or script function to
 * structs and its C function to bodies.
 */
static void gen_body(struct cg *cg, FILE *structs, FILE *bodies,
		     const struct probe_body *b)
{
	const struct script_func *fn = b->func;
	const char *kind = fn ? "fn" : "probe";
	const struct node *body = fn ? fn->decl->func.body : b->probe->probe.body;

	if (fn && fn->embedded) {
		gen_embedded_fn(cg, structs, bodies, b);
		return;
	}
	sb_reset(&cg->code);
	sb_reset(&cg->frame);
	cg->ntemps = 0;
	cg->nlabels = 0;
	cg->nloops = 0;
	cg->depth = 1;
	cg->err = "out";
	cg->scope = b;

	if (fn) {
		sb_puts(&cg->frame, "\tu32 iter_base;\n");
		emit(cg, "l->iter_base = c->iter_top;");
		if (fn->sym->type == TY_STRING) {
			sb_puts(&cg->frame, "\tchar ret[MAXSTRINGLEN];\n");
			emit(cg, "l->ret[0] = '\\0';");
		} else {
			sb_puts(&cg->frame, "\tint64_t ret;\n");
			emit(cg, "l->ret = 0;");
		}
	}
	for (int i = 0; i < b->nlocals; i++) {
		const struct symbol *l = b->locals[i];
		bool param = fn && i < fn->nparams;
		if (l->type == TY_STRING) {
			sb_printf(&cg->frame, "\tchar l_%s[MAXSTRINGLEN];\n", l->name);
			if (!param)
				emit(cg, "l->l_%s[0] = '\\0';", l->name);
		} else {
			sb_printf(&cg->frame, "\tint64_t l_%s;\n", l->name);
			if (!param)
				emit(cg, "l->l_%s = 0;", l->name);
		}
	}
	if (b->nkf_entries) {
		/* a .return probe's @entry(...) values, run at the entry */
		emit(cg, "if (c->kf_entry_out) {");
		cg->depth++;
		for (int j = 0; j < b->nkf_entries; j++) {
			const char *v = gen_expr(cg, b->kf_entries[j]->call.args);
			emit(cg, "c->kf_entry_out[%d] = %s;", j, v);
		}
		emit(cg, "goto out;");
		cg->depth--;
		emit(cg, "}");
	}
	gen_stmt(cg, (struct node *)body);

	const struct srcfile *f = session_file(cg->s, b->probe->loc.file);
	fprintf(structs, "struct stp_locals_%s_%d {\n%s\tchar stp_unused;\n};\n",
		kind, b->index, sb_str(&cg->frame));
	if (fn)
		fprintf(bodies, "\n/* function %s at %s:%d:%d */\n",
			fn->sym->name, f ? f->name : "?", b->probe->loc.line,
			b->probe->loc.col);
	else
		fprintf(bodies, "\n/* probe at %s:%d:%d */\n", f ? f->name : "?",
			b->probe->loc.line, b->probe->loc.col);
	/* a body only "never" probes derive from has no table entry */
	bool listed = fn != NULL;
	for (int i = 0; !listed && i < cg->prog->nprobes; i++)
		listed = cg->prog->probes[i]->body == b &&
			 cg->prog->probes[i]->kind != PF_NEVER;
	fprintf(bodies, "static void %sstp_%s_%d(struct stp_context *c)\n{\n",
		listed ? "" : "__maybe_unused ", kind, b->index);
	fprintf(bodies, "\tstruct stp_locals_%s_%d *l = stp_frame(c, %s);\n\n",
		kind, b->index, fn ? "c->nesting" : "0");
	fputs(sb_str(&cg->code), bodies);
	if (fn)
		fputs("out:\n\tc->iter_top = l->iter_base;\n}\n", bodies);
	else
		fputs("out:\n\treturn;\n}\n", bodies);
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

static bool lean_family(enum probe_kind f)
{
	return f == PF_TIMER || f == PF_TRACEPOINT || f == PF_KFUNC ||
	       f == PF_KRETFUNC;
}

static bool tp_filter(const struct derived_probe *dp,
		      const struct symbol **arg, int64_t *value);
static bool tp_typed(const struct derived_probe *dp);
static const struct node *first_stmt(const struct node *n);

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
		for (int i = 0; i < prog->nprobes; i++) {
			const struct derived_probe *dp = prog->probes[i];
			const struct symbol *arg;
			int64_t value;
			if (dp->body != body)
				continue;
			event |= lean_family(dp->kind);
			filtered &= tp_typed(dp) && tp_filter(dp, &arg, &value);
		}
		if (!event || body->nkf_entries)
			continue;
		if (filtered)
			skip = first_stmt(code);
		else if (body->ntpvars)
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
 * Run typed tracepoint probe i (table entry k) whose filter held: a
 * filtered lean body runs its counts (1 + N statements: the if too).
 */
static void gen_tp_run(struct cg *cg, FILE *out, int i, int k,
		       const char *indent)
{
	int b = cg->prog->probes[i]->body->index;

	if (cg->nlean[b] >= 0 && cg->filtered[b])
		fprintf(out, "%sif (MAXACTION > %d)\n%s\tstp_probe_lean("
			"&stp_probes[%d]);\n%selse\n%s\t", indent,
			cg->nlean[b] + 1, indent, k, indent, indent);
	else
		fputs(indent, out);
	fprintf(out, "stp_probe_run_tp(&stp_probes[%d], &a);\n", k);
}

static const char *family_enum(enum probe_kind f)
{
	switch (f) {
	case PF_BEGIN: return "STP_PROBE_BEGIN";
	case PF_END: return "STP_PROBE_END";
	case PF_ERROR: return "STP_PROBE_ERROR";
	case PF_TIMER: return "STP_PROBE_TIMER";
	case PF_TRACEPOINT: return "STP_PROBE_TRACEPOINT";
	case PF_KFUNC: return "STP_PROBE_KFUNC";
	case PF_KRETFUNC: return "STP_PROBE_KRETFUNC";
	case PF_PROCFS: return "STP_PROBE_PROCFS";
	default: return NULL;
	}
}

/* Does this tracepoint probe need a callback with the exact prototype? */
static bool tp_typed(const struct derived_probe *dp)
{
	return dp->kind == PF_TRACEPOINT && dp->tp && dp->tp->args_ok &&
	       (dp->body->ntpvars || dp->body->tp_parms);
}

static bool tp_c_scalar(const char *c_type)
{
	if (strpbrk(c_type, "*["))
		return true;
	return strncmp(c_type, "struct ", 7) && strncmp(c_type, "union ", 6);
}

/* The first statement a body runs (through leading blocks), or NULL. */
static const struct node *first_stmt(const struct node *n)
{
	while (n && (n->kind == N_BLOCK || n->kind == N_NULL_STMT)) {
		if (n->kind == N_NULL_STMT) {
			n = n->next;
			continue;
		}
		const struct node *inner = first_stmt(n->block.stmts);
		if (inner)
			return inner;
		n = n->next;
	}
	return n;
}

/*
 * A body that starts with `if ($ARG != N) next` (the syscall tapset's
 * form, one alias per value of $id): the argument and N. Probes of one
 * tracepoint that all filter on the same argument share one callback
 * that switches on it, so `syscall.*` costs one call per event.
 */
static bool tp_filter(const struct derived_probe *dp,
		      const struct symbol **arg, int64_t *value)
{
	const struct node *st = first_stmt(dp->body->probe->probe.body);
	const struct node *c, *then, *t, *num;

	if (!st || st->kind != N_IF || st->cond.els)
		return false;
	c = st->cond.cond;
	then = st->cond.then;
	if (then && then->kind == N_BLOCK && then->block.stmts &&
	    !then->block.stmts->next)
		then = then->block.stmts;
	if (!then || then->kind != N_NEXT || c->kind != N_BINARY ||
	    c->binary.op != OP_NE)
		return false;
	t = c->binary.lhs->kind == N_NUMBER ? c->binary.rhs : c->binary.lhs;
	num = t == c->binary.lhs ? c->binary.rhs : c->binary.lhs;
	if ((t->kind != N_TARGET && t->kind != N_TMEMBER) ||
	    num->kind != N_NUMBER || !t->sym || t->sym->kind != SYM_CONTEXT)
		return false;
	*arg = t->sym;		/* $id, or a chain like $regs->orig_ax */
	*value = num->num.value;
	return true;
}

/* Index of probe i in the emitted stp_probes[] ('never' has no entry). */
static int table_index(const struct program *prog, int i)
{
	int k = 0;

	for (int j = 0; j < i; j++)
		k += prog->probes[j]->kind != PF_NEVER;
	return k;
}

/*
 * v[k] for a chain $arg->a->b[2]: walk it from the argument's value with
 * the offsets BTF gave pass 2 (no kernel struct definitions needed), every
 * read fault-safe; a fault leaves its address in v[k] and sets bit k of
 * a.faults, and the body raises the error only if it reads v[k].
 */
static void gen_path_steps(FILE *out, const struct tp_path *path,
			   const char *in);

static void gen_tp_path(FILE *out, const struct symbol *sym, int k,
			const char *in)
{
	const struct tp_path *path = sym->tp_path;

	/* stp_ names cannot clash with the tracepoint's arguments; a local
	 * label, as several probes' values may share one callback */
	fprintf(out, "%s{\t/* %s */\n%s\t__label__ fault;\n", in, sym->name, in);
	fprintf(out, "%s\tu64 stp_addr = (u64)(unsigned long)(%s);\n", in, sym->tp_arg);
	gen_path_steps(out, path, in);
	fprintf(out, "%s\tv[%d] = (int64_t)stp_addr;\n", in, k);
	fprintf(out, "%s\tif (0) {\n%sfault:\n", in, in);
	fprintf(out, "%s\t\tv[%d] = (int64_t)stp_addr;\n", in, k);
	fprintf(out, "%s\t\ta.faults |= 1ULL << %d;\n%s\t}\n", in, k, in);
	fprintf(out, "%s}\n", in);
}

/* The steps of a member chain from stp_addr (each may goto fault). */
static void gen_path_steps(FILE *out, const struct tp_path *path,
			   const char *in)
{
	for (int i = 0; i < path->nsteps; i++) {
		const struct tp_step *st = &path->steps[i];
		unsigned byte = st->bit_offset / 8;
		if (st->kind == TPS_MEMBER && st->result != TPR_BITS && byte)
			fprintf(out, "%s\tstp_addr += %u;\t/* ->%s */\n", in, byte,
				st->member);
		if (st->kind == TPS_INDEX && st->index)
			fprintf(out, "%s\tstp_addr += %" PRId64 "LL * %u;\n", in,
				st->index, st->stride);
		if (st->result == TPR_READ)
			fprintf(out, "%s\tif (stp_tp_read(&stp_addr, stp_addr, %u, %d))\n"
				"%s\t\tgoto fault;\n", in, st->size,
				st->is_signed, in);
		else if (st->result == TPR_BITS)
			fprintf(out, "%s\tif (stp_tp_read_bits(&stp_addr, stp_addr + %u, %u, "
				"%u, %d))\n%s\t\tgoto fault;\n", in, byte,
				st->bit_offset % 8, st->bit_size, st->is_signed,
				in);
	}
}

/* Fill v[] (the body's $x) and all[] (every argument) in a callback. */
static void gen_tp_values(FILE *out, const struct derived_probe *dp,
			  const char *indent, bool with_v, bool with_all)
{
	const struct tracepoint_info *tp = dp->tp;
	const struct probe_body *b = dp->body;

	if (with_v)
		fprintf(out, "%sa.faults = 0;\n", indent);
	for (int k = 0; with_v && k < b->ntpvars; k++)
		if (b->tpvars[k]->tp_path)
			gen_tp_path(out, b->tpvars[k], k, indent);
		else
			fprintf(out, "%sv[%d] = (int64_t)(%s);\n", indent, k,
				b->tpvars[k]->name + 1);
	for (int a = 0; with_all && a < tp->nargs; a++)
		fprintf(out, "%sall[%d] = %s%s%s;\n", indent, a,
			tp_c_scalar(tp->args[a].c_type) ? "(int64_t)(" : "0",
			tp_c_scalar(tp->args[a].c_type) ? tp->args[a].name : "",
			tp_c_scalar(tp->args[a].c_type) ? ")" : "");
}

/*
 * Typed tracepoint callbacks, "void cb(void *data, TP_PROTO)" (checked
 * against the tracepoint by the header's check_trace_callback_type_NAME):
 * they widen the arguments to longs on their stack and run the probe with
 * them. One per probe (data is its table entry), or one per dispatch group
 * (see tp_filter): the group's first entry registers it, the others are
 * tp_shared. group[i] is the probe's group leader, or -1.
 */
static void gen_tp_callbacks(struct cg *cg, FILE *out, int *group)
{
	const struct program *prog = cg->prog;
	const char **done = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*done));
	int ndone = 0;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		if (!tp_typed(dp))
			continue;
		bool seen = false;
		for (int k = 0; k < ndone; k++)
			seen |= !strcmp(done[k], dp->tp->header);
		if (seen)
			continue;
		done[ndone++] = dp->tp->header;
		if (ndone == 1)
			fputs("\n/* typed tracepoint callbacks */\n", out);
		fputs(dp->tp_decls ? dp->tp_decls : "", out);
		fprintf(out, "#include %s%s%s\n",
			dp->tp->header[0] == '/' ? "\"" : "<", dp->tp->header,
			dp->tp->header[0] == '/' ? "\"" : ">");
	}
	free(done);

	/* dispatch groups: same tracepoint, same filtered argument */
	const struct symbol **farg = xmalloc((size_t)(prog->nprobes + 1) *
					     sizeof(*farg));
	int64_t *fval = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*fval));
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		group[i] = -1;
		farg[i] = NULL;
		if (!tp_typed(dp) || !tp_filter(dp, &farg[i], &fval[i]))
			continue;
		for (int j = 0; j < i && group[i] < 0; j++)
			if (farg[j] && !strcmp(farg[j]->name, farg[i]->name) &&
			    !strcmp(prog->probes[j]->tp->system, dp->tp->system) &&
			    !strcmp(prog->probes[j]->tp->name, dp->tp->name))
				group[i] = group[j] >= 0 ? group[j] : j;
		if (group[i] >= 0)
			group[group[i]] = group[i];
	}
	if (prog->nprobes)
		fprintf(out, "\nstatic const struct stp_probe stp_probes[%d];\n",
			table_index(prog, prog->nprobes));

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct tracepoint_info *tp = dp->tp;
		if (!tp_typed(dp) || (group[i] >= 0 && group[i] != i))
			continue;
		int nv = dp->body->ntpvars;
		for (int j = i + 1; group[i] == i && j < prog->nprobes; j++)
			if (group[j] == i && prog->probes[j]->body->ntpvars > nv)
				nv = prog->probes[j]->body->ntpvars;
		bool isvoid = !strcmp(tp->proto, "void");
		fprintf(out, "static void stp_tp_cb_%d(void *data%s%s)\n{\n", i,
			isvoid ? "" : ", ", isvoid ? "" : tp->proto);
		fprintf(out, "\tint64_t v[%d], all[%d];\n"
			"\tstruct stp_tp_args a = { .v = v, .all = all };\n\n",
			nv ? nv : 1, tp->nargs ? tp->nargs : 1);
		fprintf(out, "\tcheck_trace_callback_type_%s(stp_tp_cb_%d);\n",
			tp->name, i);
		if (group[i] != i) {
			/* its own callback: the entry is known here, so a
			 * lean probe's counts compile to immediates */
			int b = dp->body->index;
			gen_tp_values(out, dp, "\t", true, true);
			if (cg->nlean[b] >= 0 && cg->filtered[b] &&
			    !farg[i]->tp_path) {
				/* the filter here: its `next` is all a
				 * hit it rejects would do */
				fprintf(out, "\tif ((int64_t)(%s) != %" PRId64
					"LL)\n\t\treturn;\n", farg[i]->name + 1,
					fval[i]);
				gen_tp_run(cg, out, i, table_index(prog, i), "\t");
			} else {
				fprintf(out, "\tstp_probe_run_tp(&stp_probes[%d], "
					"&a);\n", table_index(prog, i));
			}
			fputs("}\n", out);
			continue;
		}
		gen_tp_values(out, dp, "\t", false, true);
		if (farg[i]->tp_path) {
			/* the key once; a fault matches no case */
			fputs("\ta.faults = 0;\n", out);
			gen_tp_path(out, farg[i], farg[i]->index, "\t");
			fprintf(out, "\tif (!a.faults)\n\tswitch (v[%d]) {\n",
				farg[i]->index);
		} else {
			fprintf(out, "\tswitch ((int64_t)(%s)) {\n",
				farg[i]->name + 1);
		}
		for (int j = i; j < prog->nprobes; j++) {
			bool emitted = false;
			if (group[j] != i)
				continue;
			for (int m = i; m < j && !emitted; m++)
				emitted = group[m] == i && fval[m] == fval[j];
			if (emitted)
				continue;
			/* one case per value; several probes may want it */
			fprintf(out, "\tcase %" PRId64 "LL:\n", fval[j]);
			for (int k = j; k < prog->nprobes; k++) {
				if (group[k] != i || fval[k] != fval[j])
					continue;
				gen_tp_values(out, prog->probes[k], "\t\t", true,
					      false);
				gen_tp_run(cg, out, k, table_index(prog, k),
					   "\t\t");
			}
			fputs("\t\tbreak;\n", out);
		}
		fputs("\t}\n}\n", out);
	}
	free(farg);
	free(fval);
}

/* The root of a kernel.function context value into stp_addr. */
static void gen_kf_root(FILE *out, const struct kf_loc *l)
{
	const struct dwloc *d = &l->loc;

	for (const char *p = d->code; *p;) {	/* indent the statements */
		size_t n = strcspn(p, "\n");
		fprintf(out, "\t\t%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (d->kind == DWL_MEMORY && !l->address) {
		fprintf(out, "\t\tif (stp_tp_read(&stp_addr, (unsigned long)%s, "
			"%u, %d)) {\n\t\t\tstp_addr = %s;\n"
			"\t\t\tgoto fault;\n\t\t}\n", d->expr, l->size,
			l->is_signed, d->expr);
		return;
	}
	if (l->reg_address) {
		/* a write's target: the handlers load it back */
		fprintf(out, "\t\tstp_addr = (u64)(unsigned long)&regs->%s;\n",
			d->reg);
		return;
	}
	if (l->spill) {
		/* an aggregate in a register: walk its members in a copy */
		fprintf(out, "\t\tu64 stp_spill = %s;\n\n"
			"\t\tstp_addr = (u64)(unsigned long)&stp_spill;\n", d->expr);
		return;
	}
	fprintf(out, "\t\tstp_addr = %s;\n", d->expr);
	if (l->address || l->size >= 8)
		return;
	/* a register or computed value: only its low bytes are the value */
	fprintf(out, "\t\tstp_addr = (u64)(%s)(%s%d)stp_addr;\n",
		l->is_signed ? "s64" : "u64", l->is_signed ? "s" : "u",
		(int)l->size * 8);
}

/*
 * A kernel.function probe's context values: a function of the registers
 * at the probed function's entry (see stp_probe.kf_vals), one block per
 * value, each leaving the faulting address in v[k] and bit k in *faults.
 */
static void gen_kf_vals(FILE *out, const struct program *prog)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct probe_body *b = dp->body;
		if (!dp->kf_locs || !b->ntpvars)
			continue;
		fprintf(out, "\n/* context values of %s */\n"
			"static void stp_kf_vals_%d(struct pt_regs *regs, "
			"int64_t *v, u64 *faults)\n{\n\t*faults = 0;\n",
			dp->pp, i);
		for (int k = 0; k < b->ntpvars; k++) {
			const struct symbol *sym = b->tpvars[k];
			if (!dp->kf_locs[k])
				continue;
			fprintf(out, "\t{\t/* %s */\n\t\t__label__ fault;\n"
				"\t\tu64 stp_addr;\n\n", sym->name);
			gen_kf_root(out, dp->kf_locs[k]);
			if (sym->tp_path)
				gen_path_steps(out, sym->tp_path, "\t");
			fprintf(out, "\t\tv[%d] = (int64_t)stp_addr;\n"
				"\t\tif (0) {\nfault:\n"
				"\t\t\tv[%d] = (int64_t)stp_addr;\n"
				"\t\t\t*faults |= 1ULL << %d;\n\t\t}\n\t}\n",
				k, k, k);
		}
		fputs("}\n", out);
	}
}

/*
 * $$parms tables of probe i (struct stp_tp_parm[], see runtime/pretty.h),
 * one per mode the body uses: mode 0 prints each argument "%p" (a
 * pointer) or "%#x", modes 1 and 2 its pretty printing ("=?" when its
 * type is unknown), as SystemTap 4.8 does.
 */
static void gen_tp_parms(struct cg *cg, FILE *out, int i)
{
	const struct derived_probe *dp = cg->prog->probes[i];
	const struct tracepoint_info *tp = dp->tp;

	for (int m = 0; m < 3; m++) {
		if (!(dp->body->tp_parms_modes & (1u << m)))
			continue;
		for (int k = 0; m && k < tp->nargs; k++) {
			const struct pretty *p = dp->tp_parms_pretty[m] ?
				dp->tp_parms_pretty[m][k] : NULL;
			if (!p)
				continue;
			fprintf(out, "static const struct stp_pp_item "
				"stp_tppi_%d_%d_%d[] = {\n", i, m, k);
			pretty_items(cg, out, p, "\t");
			fprintf(out, "};\nstatic const struct stp_pretty "
				"stp_tpp_%d_%d_%d = { stp_tppi_%d_%d_%d, %d };\n",
				i, m, k, i, m, k, p->nitems);
		}
		fprintf(out, "static const struct stp_tp_parm stp_tp_parms_%d_%d[] "
			"= {\n", i, m);
		for (int k = 0; k < tp->nargs; k++) {
			const char *name = tp->args[k].name;
			const char *sep = k ? " " : "";
			if (!m) {
				fprintf(out, "\t{ \"%s%s=\", &stp_pp_%s, %d },\n",
					sep, name, strchr(tp->args[k].c_type, '*') ?
					"ptr" : "hex", k);
			} else if (dp->tp_parms_pretty[m] &&
				   dp->tp_parms_pretty[m][k]) {
				fprintf(out, "\t{ \"%s%s=\", &stp_tpp_%d_%d_%d, "
					"%d },\n", sep, name, i, m, k, k);
			} else {
				fprintf(out, "\t{ \"%s%s=?\", NULL, %d },\n", sep,
					name, k);
			}
		}
		fputs("\t{ NULL }\n};\n", out);
	}
}

/* The table entry of body b's first probe of family f with no typed
 * callback of its own, or -1. */
static int lean_entry(const struct program *prog, int b,
		      enum probe_kind f)
{
	for (int i = 0; i < prog->nprobes; i++)
		if (prog->probes[i]->body == prog->bodies[b] &&
		    prog->probes[i]->kind == f && !tp_typed(prog->probes[i]))
			return table_index(prog, i);
	return -1;
}

int codegen_module(struct session *s, const struct program *prog,
		   const char *module_name, FILE *out)
{
	struct cg cg = { .s = s, .prog = prog };
	char *structs = NULL, *bodies = NULL;
	size_t structs_len = 0, bodies_len = 0;
	FILE *sf = open_memstream(&structs, &structs_len);
	FILE *bf = open_memstream(&bodies, &bodies_len);
	struct lock_plan locks;

	lock_plan_build(&locks, prog);
	cg.locks = &locks;

	/* __maybe_unused: the optimiser may have dropped every call of a
	 * side-effect-free library function after pass 2 found it used */
	for (int i = 0; i < prog->nfuncs; i++)
		if (prog->funcs[i]->used)
			fprintf(bf, "static void __maybe_unused stp_fn_%d(struct "
				"stp_context *c);\n", prog->funcs[i]->index);
	for (int i = 0; i < prog->nfuncs; i++)
		if (prog->funcs[i]->used)
			gen_body(&cg, sf, bf, prog->funcs[i]->scope);
	for (int i = 0; i < prog->nbodies; i++)
		gen_body(&cg, sf, bf, prog->bodies[i]);
	fclose(sf);
	fclose(bf);

	fprintf(out, "/* Generated by stap " PACKAGE_VERSION ": do not edit. */\n");
	fprintf(out, "#define STP_MODULE_NAME \"%s\"\n", module_name);
	if (prog->max_nesting < 0)
		fputs("#define STP_MAXNESTING MAXNESTING\n", out);
	else
		fprintf(out, "#define STP_MAXNESTING (%d < MAXNESTING ? %d : "
			"MAXNESTING)\n", prog->max_nesting, prog->max_nesting);
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
	fputs("\n/* each handler's locals and temporaries, in the per-CPU frame */\n", out);
	fputs(structs ? structs : "", out);
	fputs("union stp_frame_union {\n\tchar stp_unused;\n", out);
	for (int i = 0; i < prog->nbodies; i++)
		fprintf(out, "\tstruct stp_locals_probe_%d p%d;\n", i, i);
	for (int i = 0; i < prog->nfuncs; i++)
		if (prog->funcs[i]->used)
			fprintf(out, "\tstruct stp_locals_fn_%d f%d;\n", i, i);
	fputs("};\n#undef STP_FRAME_SIZE\n"
	      "#define STP_FRAME_SIZE sizeof(union stp_frame_union)\n\n", out);
	if (locks.ncounters)
		fprintf(out, "#define STP_NCOUNTERS %d\n", locks.ncounters);
	if (prog->kf_anchor)
		/* the runtime's KASLR offset: run-time minus link-time
		 * address of one exported function */
		fprintf(out, "#define STP_KFUNC_ANCHOR_SYM %s\n"
			"#define STP_KFUNC_ANCHOR_LINK 0x%" PRIx64 "UL\n",
			prog->kf_anchor_sym, prog->kf_anchor);
	fputs("#include \"runtime.h\"\n", out);
	fputs("\nstatic const struct stp_fmt stp_fmt_d __maybe_unused = "
	      "{ .conv = 'd', .width = -1, .prec = -1 };\n", out);
	gen_embeds(&cg, out);
	gen_globals(&cg, out);
	if (has_containers(prog))
		gen_globals_init(prog, out);
	lock_plan_emit_locks(&locks, out);
	fputs(bodies ? bodies : "", out);
	free(structs);
	free(bodies);
	int *nlean = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*nlean));
	cg.nlean = nlean;
	cg.filtered = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*cg.filtered));
	gen_lean_counts(&cg, out);

	int *group = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*group));
	gen_tp_callbacks(&cg, out, group);
	gen_kf_vals(out, prog);
	bool parms = false;
	for (int i = 0; i < prog->nprobes; i++)
		parms |= tp_typed(prog->probes[i]) &&
			 prog->probes[i]->body->tp_parms_modes;
	if (parms)
		fputs("\n/* $$parms */\n"
		      "static const struct stp_pp_item stp_ppi_hex[] = {\n"
		      "\t{ \"\", 'x', STP_PP_VALUE }, { \"\" } };\n"
		      "static const struct stp_pretty stp_pp_hex __maybe_unused = "
		      "{ stp_ppi_hex, 2 };\n"
		      "static const struct stp_pp_item stp_ppi_ptr[] = {\n"
		      "\t{ \"\", 'p', STP_PP_VALUE }, { \"\" } };\n"
		      "static const struct stp_pretty stp_pp_ptr __maybe_unused = "
		      "{ stp_ppi_ptr, 2 };\n", out);
	for (int i = 0; i < prog->nprobes; i++)
		if (tp_typed(prog->probes[i]) &&
		    prog->probes[i]->body->tp_parms_modes)
			gen_tp_parms(&cg, out, i);
	/* a lean body's ftrace function (entry probes) and tracepoint
	 * callback, on its first probe's entry (every probe of a body has
	 * its counts): the counts compile to immediates */
	for (int b = 0; b < prog->nbodies; b++) {
		int k;
		if (nlean[b] < 0 || cg.filtered[b])
			continue;
		if ((k = lean_entry(prog, b, PF_KFUNC)) >= 0)
			fprintf(out, "STP_KF_LEAN_HIT(stp_kf_lean_%d, "
				"&stp_probes[%d])\n", b, k);
		if ((k = lean_entry(prog, b, PF_TRACEPOINT)) >= 0)
			fprintf(out, "STP_TP_LEAN_HIT(stp_tp_lean_%d, "
				"&stp_probes[%d])\n", b, k);
	}
	fprintf(out, "\nstatic const struct stp_probe stp_probes[%d] = {\n",
		table_index(prog, prog->nprobes));
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const char *fam = family_enum(dp->kind);
		if (!fam)
			continue;	/* never */
		/* pn(): the alias as the script matched it, else the point */
		const char *pn = dp->body->list_name ? dp->body->list_name :
				 dp->pp;
		fprintf(out, "\t{ .type = %s, .handler = stp_probe_%d, .pp = %s,\n"
			"\t  .pn = %s,\n", fam, dp->body->index,
			c_string(&cg, dp->pp, strlen(dp->pp)),
			c_string(&cg, pn, strlen(pn)));
		fprintf(out, "\t  .frame_size = sizeof(struct stp_locals_probe_%d),\n",
			dp->body->index);
		fprintf(out, "\t  .priority = %" PRId64 "LL, .period_ns = %" PRIu64 "ULL",
			dp->priority, dp->period_ns);
		lock_plan_table_fields(&locks, dp, out);
		int lb = dp->body->index;
		if (nlean[lb] >= 0 && !cg.filtered[lb] && lean_family(dp->kind))
			fprintf(out, ",\n\t  .lean = MAXACTION > %d", nlean[lb]);
		if (nlean[lb] >= 0 && lean_family(dp->kind))
			fprintf(out, ",\n\t  .counts = stp_counts_%d, .ncounts = "
				"ARRAY_SIZE(stp_counts_%d) - 1", lb, lb);
		if (nlean[lb] >= 0 && !cg.filtered[lb] && dp->kind == PF_KFUNC)
			fprintf(out, ",\n\t  .kf_lean_hit = "
				"STP_KF_LEAN_REF(stp_kf_lean_%d)",
				dp->body->index);
		if (dp->randomize_ns)
			fprintf(out, ", .randomize_ns = %" PRIu64 "ULL",
				dp->randomize_ns);
		if (dp->timer_jiffies)
			fputs(", .timer_flags = STP_TIMER_JIFFIES", out);
		if (dp->timer_profile)
			fputs(", .timer_flags = STP_TIMER_PROFILE", out);
		if (dp->tp_name)
			fprintf(out, ",\n\t  .tp_name = %s",
				c_string(&cg, dp->tp_name, strlen(dp->tp_name)));
		if (dp->tp)
			fprintf(out, ", .tp_system = %s",
				c_string(&cg, dp->tp->system,
					 strlen(dp->tp->system)));
		/* an inlined copy has no symbol to fall back on */
		if (dp->kf_symbol && !dp->kf_inline)
			fprintf(out, ",\n\t  .kf_symbol = %s, .kf_maxactive = %d",
				c_string(&cg, dp->kf_symbol, strlen(dp->kf_symbol)),
				(int)dp->kf_maxactive);
		if (dp->kf_addr && prog->kf_anchor)
			fprintf(out, ",\n\t  .kf_addr = 0x%" PRIx64 "UL%s",
				dp->kf_addr, dp->kf_inline ?
				", .kf_flags = STP_KF_INLINE" :
				dp->kf_statement ? ", .kf_flags = STP_KF_STMT" :
				"");
		if (dp->kf_locs && dp->body->ntpvars)
			fprintf(out, ",\n\t  .kf_vals = stp_kf_vals_%d, "
				".kf_nvals = %d", i, dp->body->ntpvars);
		if (dp->kind == PF_KRETFUNC && dp->body->nkf_entries)
			fprintf(out, ",\n\t  .kf_nentry = %d",
				dp->body->nkf_entries);
		if (dp->kind == PF_KRETFUNC &&
		    ((dp->kf_locs && dp->body->ntpvars) || dp->body->nkf_entries))
			fprintf(out, ",\n\t  .kf_entry = stp_kf_save_entry, "
				".kf_data_size = sizeof(u64) * (1 + %d)",
				(dp->kf_locs ? dp->body->ntpvars : 0) +
				dp->body->nkf_entries);
		if (dp->procfs_path)
			fprintf(out, ",\n\t  .procfs_path = %s, .procfs_write = %s, "
				".procfs_bufsize = %" PRId64 ", .procfs_umask = 0%"
				PRIo64, c_string(&cg, dp->procfs_path,
						 strlen(dp->procfs_path)),
				dp->procfs_write ? "true" : "false",
				dp->procfs_maxsize, (uint64_t)dp->procfs_umask);
		if (tp_typed(dp) && group[i] >= 0 && group[i] != i)
			fprintf(out, ",\n\t  .tp_shared = true");
		else if (tp_typed(dp))
			fprintf(out, ",\n\t  .tp_callback = stp_tp_cb_%d", i);
		else if (nlean[lb] >= 0 && !cg.filtered[lb] &&
			 dp->kind == PF_TRACEPOINT)
			fprintf(out, ",\n\t  .tp_callback = stp_tp_lean_%d",
				dp->body->index);
		if (tp_typed(dp) && dp->body->tp_parms_modes) {
			fputs(",\n\t  .tp_parms = {", out);
			for (int m = 0; m < 3; m++)
				if (dp->body->tp_parms_modes & (1u << m))
					fprintf(out, " [%d] = stp_tp_parms_%d_%d,",
						m, i, m);
			fputs(" }", out);
		}
		fputs(" },\n", out);
	}
	fputs("};\n\nSTP_MODULE_PROBES(stp_probes);\n", out);
	lock_plan_free(&locks);
	free(nlean);
	free(cg.filtered);
	free(group);
	sb_free(&cg.code);
	sb_free(&cg.frame);
	return cg.errors;
}
