// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Written-only globals, shown at the end (SystemTap's "global var
 * display"): every global of the user's script that some probe or
 * function writes but nothing reads gets a synthetic `probe end` that
 * prints it, in declaration order, after the script's own end probes:
 *   x=5                         longs
 *   s="text"                    strings
 *   a[1,"k"]=7                  arrays, one line per element, by value
 *                               descending
 *   st @count=2 @min=1 @max=3 @sum=4 @avg=2   statistics
 *   st @count=0x0               an empty scalar statistic
 * (stap --format=json: JSON lines instead, one object per element, as
 * json.c writes them.)
 * The rules are SystemTap 4.8's variable-use visitor: `x = ...`, `x <<<
 * ...` are pure writes; `x++`, `x += ...`, `delete x` read and write x,
 * but count as a use of the value only where the result is consumed (an
 * argument, a condition, the right of an assignment) or, for delete,
 * always; a sorted foreach writes its array. A global is shown when it
 * is written and not both read and used.
 */
#include "semantic/semantic.h"

#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

struct varuse {
	const struct node *lvalue;	/* the target of a pure write */
	const struct node *lrvalue;	/* the target of a read-modify-write */
	bool lvalue_read;		/* the value of this expression is used */
	bool *read, *written, *used;	/* by global index */
};

static void use_expr(struct varuse *v, const struct node *n);

static void use_list(struct varuse *v, const struct node *list)
{
	for (const struct node *n = list; n; n = n->next)
		use_expr(v, n);
}

/* Visit n with its value used (an argument, a condition, a key). */
static void use_read(struct varuse *v, const struct node *n)
{
	bool saved = v->lvalue_read;

	v->lvalue_read = true;
	use_expr(v, n);
	v->lvalue_read = saved;
}

static void use_read_list(struct varuse *v, const struct node *list)
{
	for (const struct node *n = list; n; n = n->next)
		use_read(v, n);
}

static void use_symbol(struct varuse *v, const struct node *n)
{
	const struct symbol *sym = n->sym;

	if (!sym || sym->kind != SYM_GLOBAL)
		return;
	if (v->lvalue == n || v->lrvalue == n)
		v->written[sym->index] = true;
	if (v->lvalue != n || v->lrvalue == n)
		v->read[sym->index] = true;
	if (v->lrvalue == n) {
		if (v->lvalue_read)
			v->used[sym->index] = true;
	} else if (v->lvalue != n) {
		v->used[sym->index] = true;
	}
}

/* Visit target (an lvalue) as the mark of the current write. */
static void use_target(struct varuse *v, const struct node *target, bool pure)
{
	const struct node *saved_lv = v->lvalue, *saved_lrv = v->lrvalue;

	if (pure)
		v->lvalue = target;
	else
		v->lrvalue = target;
	use_expr(v, target);
	v->lvalue = saved_lv;
	v->lrvalue = saved_lrv;
}

static void use_expr(struct varuse *v, const struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_VAR:
		use_symbol(v, n);
		break;
	case N_INDEX: {
		const struct node *saved_lv = v->lvalue, *saved_lrv = v->lrvalue;
		use_read_list(v, n->index.keys);
		/* a write to a[k] is a write to a */
		if (v->lrvalue == n)
			v->lrvalue = n->index.array;
		if (v->lvalue == n)
			v->lvalue = n->index.array;
		use_expr(v, n->index.array);
		v->lvalue = saved_lv;
		v->lrvalue = saved_lrv;
		break;
	}
	case N_ASSIGN:
		if (n->binary.op == OP_ASSIGN || n->binary.op == OP_AGG) {
			const struct node *saved_lv = v->lvalue;
			bool saved = v->lvalue_read;
			v->lvalue = n->binary.lhs;
			v->lvalue_read = true;
			use_expr(v, n->binary.lhs);
			use_expr(v, n->binary.rhs);
			v->lvalue = saved_lv;
			v->lvalue_read = saved;
		} else {
			const struct node *saved_lrv = v->lrvalue;
			v->lrvalue = n->binary.lhs;
			use_expr(v, n->binary.lhs);
			use_expr(v, n->binary.rhs);
			v->lrvalue = saved_lrv;
		}
		break;
	case N_INCDEC:
		use_target(v, n->incdec.operand, false);
		break;
	case N_TERNARY:
		use_read(v, n->cond.cond);
		use_expr(v, n->cond.then);
		use_expr(v, n->cond.els);
		break;
	case N_CALL:
	case N_ATFUNC:
	case N_PRINT:
		/* a function's body is visited once on its own */
		use_read_list(v, n->kind == N_PRINT ? n->print.args :
				 n->call.args);
		break;
	case N_BINARY:
		use_expr(v, n->binary.lhs);
		use_expr(v, n->binary.rhs);
		break;
	case N_IN:
		use_list(v, n->binary.lhs);
		use_expr(v, n->binary.rhs);
		break;
	case N_UNARY:
		use_expr(v, n->unary.operand);
		break;
	case N_STAT:
	case N_HIST:
		use_expr(v, n->stat.operand);
		use_list(v, n->stat.args);
		break;
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
		use_expr(v, n->target.base);
		use_expr(v, n->target.index);
		break;
	default:
		break;
	}
}

static void use_stmt(struct varuse *v, const struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		for (const struct node *s = n->block.stmts; s; s = s->next)
			use_stmt(v, s);
		break;
	case N_EXPR_STMT:
		use_expr(v, n->stmt.expr);
		break;
	case N_RETURN:
		use_read(v, n->stmt.expr);
		break;
	case N_DELETE: {
		bool saved = v->lvalue_read;
		v->lvalue_read = true;
		use_target(v, n->stmt.expr, false);
		v->lvalue_read = saved;
		break;
	}
	case N_IF:
		use_read(v, n->cond.cond);
		use_stmt(v, n->cond.then);
		use_stmt(v, n->cond.els);
		break;
	case N_WHILE:
	case N_FOR:
		use_expr(v, n->loop.init);
		use_read(v, n->loop.cond);
		use_expr(v, n->loop.step);
		use_stmt(v, n->loop.body);
		break;
	case N_FOREACH: {
		const struct node *arr = n->foreach.array;
		use_expr(v, arr);
		/* sorting counts as a write, as in SystemTap */
		if (n->foreach.sort_column && arr->kind == N_VAR && arr->sym &&
		    arr->sym->kind == SYM_GLOBAL)
			v->written[arr->sym->index] = true;
		use_read_list(v, n->foreach.slice);
		use_read(v, n->foreach.limit);
		use_stmt(v, n->foreach.body);
		break;
	}
	case N_TRY:
		use_stmt(v, n->try.body);
		use_stmt(v, n->try.handler);
		break;
	default:
		break;
	}
}

static void display_one(struct strbuf *sb, const struct symbol *g)
{
	static const char *const aggs[] = {
		"@count", "@min", "@max", "@sum", "@avg"
	};
	struct strbuf fmt = { 0 }, idx = { 0 };
	const char *name = g->name;

	sb_printf(sb, "probe end {\n");
	sb_printf(&fmt, "%s", name);
	if (g->nkeys) {
		sb_putc(&fmt, '[');
		for (int k = 0; k < g->nkeys; k++) {
			if (k) {
				sb_putc(&idx, ',');
				sb_putc(&fmt, ',');
			}
			sb_printf(&idx, "__idx%d", k);
			sb_printf(&fmt, "%s", g->key_types[k] == TY_STRING ?
				  "\\\"%#s\\\"" : "%#d");
		}
		sb_putc(&fmt, ']');
		sb_printf(sb, "foreach (%s[%s] in %s-)\n",
			  g->type == TY_STATS ? "" : "__val = ", sb_str(&idx),
			  name);
	} else if (g->type == TY_STATS) {
		sb_printf(sb, "if (@count(%s) == 0)\n", name);
		sb_printf(sb, "printf(\"%s @count=0x0\\n\")\n", name);
		sb_printf(sb, "else\n");
	}
	if (g->type == TY_STATS)
		for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++)
			sb_printf(&fmt, " %s=%%#d", aggs[i]);
	else if (g->type == TY_STRING)
		sb_printf(&fmt, "=\\\"%%#s\\\"");
	else
		sb_printf(&fmt, "=%%d");
	sb_printf(sb, "printf (\"%s\\n\"", sb_str(&fmt));
	if (g->nkeys)
		sb_printf(sb, ",%s", sb_str(&idx));
	if (g->type == TY_STATS) {
		for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++) {
			if (g->nkeys)
				sb_printf(sb, ",%s(%s[%s])", aggs[i], name,
					  sb_str(&idx));
			else
				sb_printf(sb, ",%s(%s)", aggs[i], name);
		}
	} else {
		sb_printf(sb, ",%s", g->nkeys ? "__val" : name);
	}
	sb_printf(sb, ")\n}\n");
	sb_free(&fmt);
	sb_free(&idx);
}

/*
 * SystemTap lists a script's globals in the order its symbol resolution
 * first meets them (probe bodies in order, then functions by name), and
 * shows them in that order: rank[i] is global i's place, or -1.
 */
struct first_use {
	int *rank;
	int next;
};

static void note_first_use(struct node *n, void *arg)
{
	struct first_use *fu = arg;

	if (n->kind == N_VAR && n->sym && n->sym->kind == SYM_GLOBAL &&
	    fu->rank[n->sym->index] < 0)
		fu->rank[n->sym->index] = fu->next++;
}

static int func_name_cmp(const void *a, const void *b)
{
	const struct script_func *const *x = a, *const *y = b;
	int c = strcmp((*x)->sym->name, (*y)->sym->name);

	return c ? c : (*x)->index - (*y)->index;
}

static void first_use_order(const struct program *prog, int *rank)
{
	struct first_use fu = { rank, 0 };
	const struct script_func **funcs =
		malloc(((size_t)prog->nfuncs + 1) * sizeof(*funcs));
	int nf = 0;

	for (int i = 0; i < prog->nglobals; i++)
		rank[i] = -1;
	for (int i = 0; i < prog->nbodies; i++)
		ast_visit(prog->bodies[i]->probe->probe.body, note_first_use,
			  &fu);
	for (int i = 0; funcs && i < prog->nfuncs; i++)
		if (prog->funcs[i]->used && !prog->funcs[i]->embedded)
			funcs[nf++] = prog->funcs[i];
	if (nf)
		qsort(funcs, (size_t)nf, sizeof(*funcs), func_name_cmp);
	for (int i = 0; i < nf; i++)
		ast_visit(funcs[i]->decl->func.body, note_first_use, &fu);
	free(funcs);
	for (int i = 0; i < prog->nglobals; i++)
		if (rank[i] < 0)
			rank[i] = fu.next++;
}

char *sema_display_source(const struct program *prog, int user_file)
{
	int n = prog->nglobals;
	struct varuse v = {
		.read = calloc((size_t)n + 1, sizeof(bool)),
		.written = calloc((size_t)n + 1, sizeof(bool)),
		.used = calloc((size_t)n + 1, sizeof(bool)),
	};
	int *rank = malloc(((size_t)n + 1) * sizeof(int));
	int *order = malloc(((size_t)n + 1) * sizeof(int));
	struct strbuf sb = { 0 };
	char *text = NULL;

	if (!v.read || !v.written || !v.used || !rank || !order)
		goto out;
	for (int i = 0; i < prog->nbodies; i++)
		use_stmt(&v, prog->bodies[i]->probe->probe.body);
	for (int i = 0; i < prog->nfuncs; i++)
		if (prog->funcs[i]->used && !prog->funcs[i]->embedded)
			use_stmt(&v, prog->funcs[i]->decl->func.body);
	first_use_order(prog, rank);
	for (int i = 0; i < n; i++)
		order[rank[i]] = i;
	for (int r = 0; r < n; r++) {
		int i = order[r];
		const struct symbol *g = prog->globals[i];
		if ((v.read[i] && v.used[i]) || !v.written[i])
			continue;
		/* only the user's own globals, never the library's; a
		 * private one is not visible from the synthetic probe's
		 * file, so it is not shown */
		if (!g->decl || g->decl->loc.file != user_file ||
		    g->decl->global.is_private || g->type == TY_UNKNOWN)
			continue;
		if (prog->s->format_json) {	/* JSON lines (json.c) */
			sb_puts(&sb, "probe end {\n");
			sema_json_lines(&sb, g, NULL);
			sb_puts(&sb, "}\n");
		} else {
			display_one(&sb, g);
		}
	}
	if (sb.len)
		text = strdup(sb_str(&sb));
out:
	sb_free(&sb);
	free(v.read);
	free(v.written);
	free(v.used);
	free(rank);
	free(order);
	return text;
}
