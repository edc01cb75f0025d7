// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: statements and expressions to C.
 *
 * Every expression is evaluated in script order into temporaries: the
 * generator emits the statements that compute it and returns a C
 * expression (without side effects) for its value. Longs live in C locals;
 * strings live in the probe's frame (struct stp_locals_probe_N in the
 * per-CPU context), never on the kernel stack. A runtime error records a
 * message and jumps to the handler's `out` label.
 */
#include "codegen/codegen.h"
#include "semantic/format.h"
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
	if (sym->kind == SYM_GLOBAL)
		return arena_printf(&cg->s->arena, "stp_g_%s", sym->name);
	return arena_printf(&cg->s->arena, "l->l_%s", sym->name);
}

static const char *gen_expr(struct cg *cg, struct node *n);
static void gen_stmt(struct cg *cg, struct node *n);

static const char *gen_long_binary(struct cg *cg, struct node *n, enum op op,
				   const char *a, const char *b)
{
	const char *t = tmp_long(cg);

	switch (op) {
	case OP_DIV:
	case OP_MOD:
		emit(cg, "if (unlikely(%s == 0)) {", b);
		emit(cg, "\tstp_error(c, \"division by 0\", %s);", where(cg, n));
		emit(cg, "\tgoto out;");
		emit(cg, "}");
		/* INT64_MIN / -1 traps on x86: -1 is negation (mod is 0). */
		if (op == OP_DIV)
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

	if (n->binary.op == OP_AGG) {
		unsupported(cg, n, "a statistic ('<<<')");
		return "0";
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
	if (a->type == TY_STRING)
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

	int ai = 0;
	for (int p = 0; p < np; p++) {
		struct fmt_piece *pc = &pieces[p];
		if (!pc->is_conv) {
			sink_str(cg, k, c_string(cg, pc->text, pc->len));
			continue;
		}
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
		const char *fn = pc->conv == 's' ? "string" : "long";
		emit(cg, "%s_%s(%s, &%s, %s);", k->prefix, fn, k->target, f,
		     vals[ai++]);
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
			vals[i++] = gen_expr(cg, a);
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
			vals[i++] = gen_expr(cg, a);
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
		emit(cg, "goto out;");
		return "0";
	}
	if (n->sym && n->sym->kind == SYM_BUILTIN) {
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = %s;", t, n->sym->c_expr);
		return t;
	}
	unsupported(cg, n, "this function");
	return "0";
}

static const char *gen_expr(struct cg *cg, struct node *n)
{
	switch (n->kind) {
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
		if (n->binary.op == OP_MATCH || n->binary.op == OP_NMATCH) {
			unsupported(cg, n, "regular expression matching");
			return "0";
		}
		return gen_binary(cg, n);
	case N_UNARY: {
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
	case N_IN:
		unsupported(cg, n, "an array");
		return "0";
	case N_STAT:
	case N_HIST:
		unsupported(cg, n, "a statistic");
		return "0";
	default:
		unsupported(cg, n, ast_kind_name(n->kind));
		return "0";
	}
}

/* ---- statements ------------------------------------------------------ */

static void action(struct cg *cg, struct node *n)
{
	emit(cg, "STP_ACTION(c, 1, %s);", where(cg, n));
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

static void gen_stmt(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		ast_foreach(st, n->block.stmts)
			gen_stmt(cg, st);
		return;
	case N_NULL_STMT:
		return;
	default:
		break;
	}
	action(cg, n);
	switch (n->kind) {
	case N_EXPR_STMT:
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->stmt.expr);
		cg->depth--;
		emit(cg, "}");
		break;
	case N_IF: {
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
		emit(cg, "goto out;");
		break;
	case N_DELETE: {
		struct node *e = n->stmt.expr;
		if (e->kind == N_VAR && e->sym && e->sym->nkeys == 0 &&
		    e->sym->type != TY_STATS) {
			const char *ref = var_ref(cg, e->sym);
			emit(cg, e->sym->type == TY_STRING ? "%s[0] = '\\0';" :
			     "%s = 0;", ref);
		} else {
			unsupported(cg, n, "deleting an array or statistic");
		}
		break;
	}
	case N_FOREACH:
		unsupported(cg, n, "foreach");
		break;
	case N_TRY:
		unsupported(cg, n, "try/catch");
		break;
	default:
		unsupported(cg, n, ast_kind_name(n->kind));
		break;
	}
}

/* ---- module ------------------------------------------------------------ */

static void gen_globals(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;

	if (prog->nglobals)
		fputs("\n/* globals */\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const struct node *init = g->decl ? g->decl->global.init : NULL;
		if (g->nkeys) {
			unsupported(cg, g->decl, "an array");
			continue;
		}
		switch (g->type) {
		case TY_STRING:
			if (init) {
				size_t len = init->str.len;
				if (len > 511)	/* MAXSTRINGLEN - 1 at the default */
					len = 511;
				fprintf(out, "static char stp_g_%s[MAXSTRINGLEN] = %s;\n",
					g->name, c_string(cg, init->str.value, len));
			} else {
				fprintf(out, "static char stp_g_%s[MAXSTRINGLEN];\n",
					g->name);
			}
			break;
		case TY_STATS:
			unsupported(cg, g->decl, "a statistic");
			break;
		default:
			fprintf(out, "static int64_t stp_g_%s = %" PRId64 "LL;\n",
				g->name, init ? init->num.value : 0);
			break;
		}
	}
}

/* Writes the handler's frame struct to structs and its function to bodies. */
static void gen_body(struct cg *cg, FILE *structs, FILE *bodies,
		     const struct probe_body *b)
{
	sb_reset(&cg->code);
	sb_reset(&cg->frame);
	cg->ntemps = 0;
	cg->nlabels = 0;
	cg->nloops = 0;
	cg->depth = 1;

	for (int i = 0; i < b->nlocals; i++) {
		const struct symbol *l = b->locals[i];
		if (l->type == TY_STRING) {
			sb_printf(&cg->frame, "\tchar l_%s[MAXSTRINGLEN];\n", l->name);
			emit(cg, "l->l_%s[0] = '\\0';", l->name);
		} else {
			sb_printf(&cg->frame, "\tint64_t l_%s;\n", l->name);
			emit(cg, "l->l_%s = 0;", l->name);
		}
	}
	gen_stmt(cg, b->probe->probe.body);

	const struct srcfile *f = session_file(cg->s, b->probe->loc.file);
	fprintf(structs, "struct stp_locals_probe_%d {\n%s\tchar stp_unused;\n};\n",
		b->index, sb_str(&cg->frame));
	fprintf(bodies, "\n/* probe at %s:%d:%d */\n", f ? f->name : "?",
		b->probe->loc.line, b->probe->loc.col);
	fprintf(bodies, "static void stp_probe_%d(struct stp_context *c)\n{\n",
		b->index);
	fprintf(bodies, "\tstruct stp_locals_probe_%d *l = stp_frame(c, 0);\n\n",
		b->index);
	fputs(sb_str(&cg->code), bodies);
	fputs("out:\n\treturn;\n}\n", bodies);
}

static const char *family_enum(enum probe_family f)
{
	switch (f) {
	case PF_BEGIN: return "STP_PROBE_BEGIN";
	case PF_END: return "STP_PROBE_END";
	case PF_ERROR: return "STP_PROBE_ERROR";
	case PF_TIMER: return "STP_PROBE_TIMER";
	case PF_TRACEPOINT: return "STP_PROBE_TRACEPOINT";
	default: return NULL;
	}
}

int codegen_module(struct session *s, const struct program *prog,
		   const char *module_name, FILE *out)
{
	struct cg cg = { .s = s, .prog = prog };
	char *structs = NULL, *bodies = NULL;
	size_t structs_len = 0, bodies_len = 0;
	FILE *sf = open_memstream(&structs, &structs_len);
	FILE *bf = open_memstream(&bodies, &bodies_len);

	for (int i = 0; i < prog->nbodies; i++)
		gen_body(&cg, sf, bf, prog->bodies[i]);
	fclose(sf);
	fclose(bf);

	fprintf(out, "/* Generated by stap " PACKAGE_VERSION ": do not edit. */\n");
	fprintf(out, "#define STP_MODULE_NAME \"%s\"\n", module_name);
	fputs("#define STP_MAXNESTING 0\n", out);
	fputs("#include <linux/types.h>\n#include \"defines.h\"\n", out);
	fputs("\n/* each handler's locals and temporaries, in the per-CPU frame */\n", out);
	fputs(structs ? structs : "", out);
	fputs("union stp_frame_union {\n\tchar stp_unused;\n", out);
	for (int i = 0; i < prog->nbodies; i++)
		fprintf(out, "\tstruct stp_locals_probe_%d p%d;\n", i, i);
	fputs("};\n#define STP_FRAME_SIZE sizeof(union stp_frame_union)\n\n", out);
	fputs("#include \"runtime.h\"\n", out);
	fputs("\nstatic const struct stp_fmt stp_fmt_d __maybe_unused = "
	      "{ .conv = 'd', .width = -1, .prec = -1 };\n", out);
	gen_globals(&cg, out);
	fputs(bodies ? bodies : "", out);
	free(structs);
	free(bodies);

	fputs("\nstatic const struct stp_probe stp_probes[] = {\n", out);
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const char *fam = family_enum(dp->family);
		if (!fam)
			continue;	/* never */
		const char *lock = "STP_LOCK_NONE";
		if (dp->family == PF_TIMER || dp->family == PF_TRACEPOINT) {
			if (dp->body->writes_globals)
				lock = "STP_LOCK_WRITE";
			else if (dp->body->reads_globals)
				lock = "STP_LOCK_READ";
		}
		fprintf(out, "\t{ .type = %s, .handler = stp_probe_%d, .pp = %s,\n",
			fam, dp->body->index, c_string(&cg, dp->pp, strlen(dp->pp)));
		fprintf(out, "\t  .priority = %" PRId64 "LL, .period_ns = %" PRIu64 "ULL, "
			".lock = %s", dp->priority, dp->period_ns, lock);
		if (dp->tp_name)
			fprintf(out, ",\n\t  .tp_name = %s",
				c_string(&cg, dp->tp_name, strlen(dp->tp_name)));
		fputs(" },\n", out);
	}
	fputs("};\n\nSTP_MODULE_PROBES(stp_probes);\n", out);
	sb_free(&cg.code);
	sb_free(&cg.frame);
	return cg.errors;
}
