// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The canonical printed form (-p1): SystemTap's layout (a "# parse tree
 * dump" header, fully parenthesised expressions, one statement a line), but
 * indented and exact: string escapes and declared types survive, so the
 * output parses again to the same tree and printing it again gives the same
 * text.
 */
#include "parser/ast.h"
#include "lib/deep.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

static void unparse_stmt(FILE *out, const struct node *n, int depth);

/*
 * Indentation stops at MAX_INDENT levels: a 20,000-arm else-if chain
 * (each arm a level deeper) printed 1.2 GB of spaces.
 */
enum { MAX_INDENT = 32 };

static void indent(FILE *out, int depth)
{
	for (int i = 0; i < depth && i < MAX_INDENT; i++)
		fputs("  ", out);
}

void ast_print_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '\a': fputs("\\a", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\v': fputs("\\v", out); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

static void unparse_list(FILE *out, const struct node *list)
{
	ast_foreach(a, (struct node *)list) {
		if (a != list)
			fputs(", ", out);
		ast_unparse_expr(out, a);
	}
}

static const char *const print_names[] = {
	[PRINT_PRINT] = "print", [PRINT_PRINTLN] = "println",
	[PRINT_PRINTF] = "printf", [PRINT_PRINTD] = "printd",
	[PRINT_PRINTDLN] = "printdln", [PRINT_SPRINT] = "sprint",
	[PRINT_SPRINTLN] = "sprintln", [PRINT_SPRINTF] = "sprintf",
	[PRINT_SPRINTD] = "sprintd", [PRINT_SPRINTDLN] = "sprintdln",
};

static const char *const stat_names[] = {
	[STAT_NONE] = "@?", [STAT_COUNT] = "@count", [STAT_SUM] = "@sum",
	[STAT_MIN] = "@min", [STAT_MAX] = "@max", [STAT_AVG] = "@avg",
	[STAT_VARIANCE] = "@variance", [HIST_LINEAR] = "@hist_linear",
	[HIST_LOG] = "@hist_log",
};

/* Nodes a member access or index can follow without parentheses. */
static bool postfix_base(const struct node *n)
{
	return n->kind == N_TARGET || n->kind == N_TMEMBER ||
	       n->kind == N_TINDEX || n->kind == N_ATFUNC ||
	       n->kind == N_HIST;
}

static void paren(FILE *out, const struct node *n)
{
	fputc('(', out);
	ast_unparse_expr(out, n);
	fputc(')', out);
}

void ast_unparse_expr(FILE *out, const struct node *n)
{
	switch (n->kind) {
	case N_NUMBER:
		/*
		 * A negative literal (a wrapped 2^64-1, a pasted $1) prints as
		 * its unsigned value: that reads back as the same number, where
		 * "-1" would read back as the negation of 1.
		 */
		fprintf(out, "%" PRIu64, (uint64_t)n->num.value);
		break;
	case N_STRING:
		ast_print_string(out, n->str.value, n->str.len);
		break;
	case N_VAR:
		fputs(n->var.name, out);
		break;
	case N_WILDCARD:
		fputc('*', out);
		break;
	case N_INDEX:
		fprintf(out, "%s[", n->index.array->var.name);
		unparse_list(out, n->index.keys);
		fputc(']', out);
		break;
	case N_CALL:
	case N_ATFUNC:
		fprintf(out, "%s(", n->call.name);
		unparse_list(out, n->call.args);
		fputc(')', out);
		break;
	case N_PRINT:
		fprintf(out, "%s(", print_names[n->print.kind]);
		unparse_list(out, n->print.args);
		fputc(')', out);
		break;
	case N_BINARY:
	case N_ASSIGN:
		paren(out, n->binary.lhs);
		if (n->kind == N_ASSIGN && n->binary.op != OP_ASSIGN &&
		    n->binary.op != OP_AGG)
			fprintf(out, " %s= ", ast_op_name(n->binary.op));
		else
			fprintf(out, " %s ", ast_op_name(n->binary.op));
		paren(out, n->binary.rhs);
		break;
	case N_UNARY:
		fputs(ast_op_name(n->unary.op), out);
		paren(out, n->unary.operand);
		break;
	case N_INCDEC: {
		const char *op = n->incdec.increment ? "++" : "--";
		if (n->incdec.prefix)
			fputs(op, out);
		paren(out, n->incdec.operand);
		if (!n->incdec.prefix)
			fputs(op, out);
		break;
	}
	case N_TERNARY:
		paren(out, n->cond.cond);
		fputs(" ? ", out);
		paren(out, n->cond.then);
		fputs(" : ", out);
		paren(out, n->cond.els);
		break;
	case N_IN:
		fputc('[', out);
		unparse_list(out, n->binary.lhs);
		fputs("] in ", out);
		ast_unparse_expr(out, n->binary.rhs);
		break;
	case N_STAT:
	case N_HIST:
		fprintf(out, "%s(", stat_names[n->stat.op]);
		ast_unparse_expr(out, n->stat.operand);
		/* number literals, signed as SystemTap prints them (a
		 * histogram's may be negative: '-' NUMBER in the grammar) */
		ast_foreach(a, n->stat.args) {
			if (n->kind == N_HIST && a->kind == N_NUMBER) {
				fprintf(out, ", %" PRId64, a->num.value);
			} else {
				fputs(", ", out);
				ast_unparse_expr(out, a);
			}
		}
		fputc(')', out);
		break;
	case N_TARGET:
		fputs(n->target.name, out);
		break;
	case N_TMEMBER:
		/* a name starting with '$' is the pretty-print suffix */
		if (postfix_base(n->target.base))
			ast_unparse_expr(out, n->target.base);
		else
			paren(out, n->target.base);
		fprintf(out, n->target.name[0] == '$' ? "%s" : "->%s",
			n->target.name);
		break;
	case N_TINDEX:
		if (postfix_base(n->target.base))
			ast_unparse_expr(out, n->target.base);
		else
			paren(out, n->target.base);
		fputc('[', out);
		ast_unparse_expr(out, n->target.index);
		fputc(']', out);
		break;
	case N_EMBEDDED:
		fprintf(out, "%%{%s%%}", n->embedded.code);
		break;
	default:
		fprintf(out, "<%s>", ast_kind_name(n->kind));
		break;
	}
}

/* A statement used as the body of if/while/for: blocks stay on the line. */
static void unparse_body(FILE *out, const struct node *n, int depth)
{
	if (n->kind == N_BLOCK) {
		fputc(' ', out);
		unparse_stmt(out, n, depth);
	} else {
		fputc('\n', out);
		indent(out, depth + 1);
		unparse_stmt(out, n, depth + 1);
	}
}

static void unparse_block(FILE *out, const struct node *n, int depth)
{
	fputs("{\n", out);
	ast_foreach(st, n->block.stmts) {
		indent(out, depth + 1);
		unparse_stmt(out, st, depth + 1);
		fputc('\n', out);
	}
	indent(out, depth);
	fputc('}', out);
}

static void unparse_foreach(FILE *out, const struct node *n, int depth)
{
	fputs("foreach (", out);
	if (n->foreach.value) {
		fputs(n->foreach.value->var.name, out);
		fputs(" = ", out);
	}
	fputc('[', out);
	int col = 1;
	ast_foreach(k, n->foreach.keys) {
		if (col > 1)
			fputs(", ", out);
		fputs(k->var.name, out);
		if (n->foreach.sort_column == col)
			fputc(n->foreach.sort_dir > 0 ? '+' : '-', out);
		col++;
	}
	fputs("] in ", out);
	ast_unparse_expr(out, n->foreach.array);
	if (n->foreach.slice) {
		fputc('[', out);
		unparse_list(out, n->foreach.slice);
		fputc(']', out);
	}
	if (n->foreach.sort_column == -1) {
		if (n->foreach.sort_agg != STAT_NONE)
			fputs(stat_names[n->foreach.sort_agg], out);
		fputc(n->foreach.sort_dir > 0 ? '+' : '-', out);
	}
	if (n->foreach.limit) {
		fputs(" limit ", out);
		ast_unparse_expr(out, n->foreach.limit);
	}
	fputc(')', out);
	unparse_body(out, n->foreach.body, depth);
}

static void unparse_stmt(FILE *out, const struct node *n, int depth)
{
	switch (n->kind) {
	case N_BLOCK:
		unparse_block(out, n, depth);
		break;
	case N_NULL_STMT:
		fputc(';', out);
		break;
	case N_EXPR_STMT:
		/* the ';' keeps "+(a)" on the next line a statement of its own */
		ast_unparse_expr(out, n->stmt.expr);
		fputc(';', out);
		break;
	case N_IF:
		fputs("if (", out);
		ast_unparse_expr(out, n->cond.cond);
		fputc(')', out);
		unparse_body(out, n->cond.then, depth);
		if (n->cond.els) {
			fputc('\n', out);
			indent(out, depth);
			fputs("else", out);
			unparse_body(out, n->cond.els, depth);
		}
		break;
	case N_WHILE:
		fputs("while (", out);
		ast_unparse_expr(out, n->loop.cond);
		fputc(')', out);
		unparse_body(out, n->loop.body, depth);
		break;
	case N_FOR:
		fputs("for (", out);
		if (n->loop.init)
			ast_unparse_expr(out, n->loop.init);
		fputs("; ", out);
		if (n->loop.cond)
			ast_unparse_expr(out, n->loop.cond);
		fputs("; ", out);
		if (n->loop.step)
			ast_unparse_expr(out, n->loop.step);
		fputc(')', out);
		unparse_body(out, n->loop.body, depth);
		break;
	case N_FOREACH:
		unparse_foreach(out, n, depth);
		break;
	case N_BREAK:
		fputs("break;", out);
		break;
	case N_CONTINUE:
		fputs("continue;", out);
		break;
	case N_NEXT:
		fputs("next;", out);
		break;
	case N_RETURN:
		fputs("return", out);
		if (n->stmt.expr) {
			fputc(' ', out);
			ast_unparse_expr(out, n->stmt.expr);
		}
		fputc(';', out);
		break;
	case N_DELETE:
		fputs("delete ", out);
		ast_unparse_expr(out, n->stmt.expr);
		fputc(';', out);
		break;
	case N_TRY:
		fputs("try ", out);
		unparse_block(out, n->try.body, depth);
		fputs(" catch ", out);
		if (n->try.catch_var)
			fprintf(out, "(%s) ", n->try.catch_var);
		unparse_block(out, n->try.handler, depth);
		break;
	case N_EMBEDDED:
		fprintf(out, "%%{%s%%}", n->embedded.code);
		break;
	default:
		fprintf(out, "<%s>", ast_kind_name(n->kind));
		break;
	}
}

/* Literals in declarations and probe points, where "-5" is allowed. */
static void unparse_literal(FILE *out, const struct node *n)
{
	if (n->kind == N_NUMBER)
		fprintf(out, "%" PRId64, n->num.value);
	else
		ast_unparse_expr(out, n);
}

void ast_unparse_point(FILE *out, const struct node *point)
{
	ast_foreach(c, point->point.comps) {
		if (c != point->point.comps)
			fputc('.', out);
		fputs(c->comp.name, out);
		if (c->comp.arg) {
			fputc('(', out);
			unparse_literal(out, c->comp.arg);
			fputc(')', out);
		}
	}
	if (point->point.sufficient)
		fputc('!', out);
	else if (point->point.optional)
		fputc('?', out);
	if (point->point.cond) {
		fputs(" if (", out);
		ast_unparse_expr(out, point->point.cond);
		fputc(')', out);
	}
}

static void unparse_points(FILE *out, const struct node *points)
{
	ast_foreach(p, (struct node *)points) {
		if (p != points)
			fputc(',', out);
		ast_unparse_point(out, p);
	}
}

static void unparse_global(FILE *out, const struct node *g)
{
	fprintf(out, "%sglobal %s", g->global.is_private ? "private " : "",
		g->global.name);
	if (g->global.wrap)
		fputc('%', out);
	if (g->global.max_entries)
		fprintf(out, "[%" PRId64 "]", g->global.max_entries);
	if (g->global.init) {
		fputs(" = ", out);
		unparse_literal(out, g->global.init);
	}
	fputc('\n', out);
}

static const char *decl_type_suffix(enum type t)
{
	return t == TY_LONG ? ":long" : t == TY_STRING ? ":string" : "";
}

static void unparse_function(FILE *out, const struct node *f)
{
	fprintf(out, "%sfunction %s%s (", f->func.is_private ? "private " : "",
		f->func.name, decl_type_suffix(f->func.decl_type));
	ast_foreach(p, f->func.params) {
		if (p != f->func.params)
			fputs(", ", out);
		fprintf(out, "%s%s", p->param.name,
			decl_type_suffix(p->param.decl_type));
	}
	fputc(')', out);
	if (f->func.priority)
		fprintf(out, ":%" PRId64, f->func.priority);
	fputc('\n', out);
	if (f->func.body->kind == N_EMBEDDED)
		fprintf(out, "%%{%s%%}", f->func.body->embedded.code);
	else
		unparse_block(out, f->func.body, 0);
	fputc('\n', out);
}

static void unparse_probe(FILE *out, const struct node *p)
{
	fprintf(out, "%sprobe ", p->probe.is_private ? "private " : "");
	ast_foreach(name, p->probe.alias_names) {
		ast_unparse_point(out, name);
		fputs(p->probe.alias == '=' ? " = " : " += ", out);
	}
	unparse_points(out, p->probe.points);
	unparse_block(out, p->probe.body, 0);
	if (p->probe.epilogue) {
		fputs(", ", out);
		unparse_block(out, p->probe.epilogue, 0);
	}
	fputc('\n', out);
}

/* Same grouping as SystemTap: embedded C, globals, aliases, probes, functions. */
struct unparse_job {
	FILE *out;
	const struct session *s;
	const struct ast_file *f;
};

static void unparse_file_deep(void *arg);

void ast_unparse_file(FILE *out, const struct session *s,
		      const struct ast_file *f)
{
	struct unparse_job job = { out, s, f };

	deep_call(unparse_file_deep, &job);	/* one level a nesting level */
}

static void unparse_file_deep(void *arg)
{
	const struct unparse_job *job = arg;
	FILE *out = job->out;
	const struct session *s = job->s;
	const struct ast_file *f = job->f;
	const struct srcfile *src = session_file(s, f->file);

	fprintf(out, "# file %s\n", src ? src->name : "?");
	ast_foreach(d, f->decls)
		if (d->kind == N_EMBEDDED)
			fprintf(out, "%%{%s%%}\n", d->embedded.code);
	ast_foreach(d, f->decls)
		if (d->kind == N_GLOBAL)
			unparse_global(out, d);
	ast_foreach(d, f->decls)
		if (d->kind == N_PROBE && d->probe.alias)
			unparse_probe(out, d);
	ast_foreach(d, f->decls)
		if (d->kind == N_PROBE && !d->probe.alias)
			unparse_probe(out, d);
	ast_foreach(d, f->decls)
		if (d->kind == N_FUNCTION)
			unparse_function(out, d);
}
