// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's optimiser. It runs after type checking, so it never hides a type
 * error (SystemTap elides first and so misses some), and not at all with -u.
 *   - an assignment to a local nothing reads goes, or keeps only its
 *     right-hand side when that has side effects;
 *   - an expression statement without side effects goes;
 *   - locals no statement mentions any more leave the frame;
 *   - a probe whose body is left empty goes, with its derived probes;
 *   - functions nothing calls and globals nothing uses are not emitted.
 * Each elision in the user's script is a warning (-w silences them); code
 * from the tapset library is elided quietly, and a body shared by several
 * alias expansions warns once per place.
 */
#include "semantic/semantic.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct elider {
	struct session *s;
	struct srcloc *warned;		/* places already reported */
	int nwarned, warned_cap;
};

static bool in_library(struct session *s, struct srcloc loc)
{
	const struct srcfile *f = session_file(s, loc.file);

	return f && f->privileged;
}

static void warn_once(struct elider *e, struct srcloc loc, const char *what,
		      const char *name)
{
	if (in_library(e->s, loc))
		return;
	for (int i = 0; i < e->nwarned; i++)
		if (e->warned[i].file == loc.file && e->warned[i].line == loc.line &&
		    e->warned[i].col == loc.col &&
		    e->warned[i].expansion == loc.expansion)
			return;
	if (e->nwarned == e->warned_cap) {
		e->warned_cap = e->warned_cap ? e->warned_cap * 2 : 16;
		e->warned = xrealloc(e->warned, (size_t)e->warned_cap *
				     sizeof(*e->warned));
	}
	e->warned[e->nwarned++] = loc;
	if (name)
		diag_warning(e->s, loc, "%s '%s'", what, name);
	else
		diag_warning(e->s, loc, "%s", what);
}

/* No calls, assignments, output, embedded C or statistics (which can fail). */
static bool is_pure(const struct node *n)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_NUMBER:
	case N_STRING:
	case N_VAR:
		return true;
	case N_BINARY:
		return is_pure(n->binary.lhs) && is_pure(n->binary.rhs);
	case N_UNARY:
		return is_pure(n->unary.operand);
	case N_TERNARY:
		return is_pure(n->cond.cond) && is_pure(n->cond.then) &&
		       is_pure(n->cond.els);
	case N_INDEX:
		ast_foreach(k, n->index.keys)
			if (!is_pure(k))
				return false;
		return true;
	case N_IN:
		ast_foreach(k, n->binary.lhs)
			if (!is_pure(k))
				return false;
		return true;
	default:
		return false;
	}
}

/* `x = ...`, `x += ...`, `x <<< ...` into a local that is never read. */
static bool is_dead_store(const struct node *x)
{
	const struct symbol *sym;

	if (x->kind != N_ASSIGN || x->binary.lhs->kind != N_VAR)
		return false;
	sym = x->binary.lhs->sym;
	return sym && sym->kind == SYM_LOCAL && !sym->read;
}

static void elide_stmt(struct elider *e, struct node *n);

/* A condition known at compile time: a number, @defined, or their '!'. */
static bool constant(const struct node *n, int64_t *value)
{
	if (n->kind == N_NUMBER) {
		*value = n->num.value;
		return true;
	}
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined") && n->sym) {
		*value = n->sym->index;
		return true;
	}
	if (n->kind == N_UNARY && n->unary.op == OP_NOT &&
	    constant(n->unary.operand, value)) {
		*value = !*value;
		return true;
	}
	return false;
}

/* Replace statement n, in place (its list link stays), by branch or by ';'. */
static void replace_stmt(struct node *n, const struct node *branch)
{
	struct node *next = n->next, *tail = n->tail;

	if (branch) {
		*n = *branch;
	} else {
		n->kind = N_NULL_STMT;
	}
	n->next = next;
	n->tail = tail;
}

static void elide_list(struct elider *e, struct node *list)
{
	ast_foreach(st, list)
		elide_stmt(e, st);
}

static void elide_stmt(struct elider *e, struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		elide_list(e, n->block.stmts);
		break;
	case N_IF: {
		int64_t v;
		if (constant(n->cond.cond, &v)) {
			/* if (0) / if (@defined($nope)): keep the live branch */
			replace_stmt(n, v ? n->cond.then : n->cond.els);
			elide_stmt(e, n);
			break;
		}
		elide_stmt(e, n->cond.then);
		elide_stmt(e, n->cond.els);
		break;
	}
	case N_WHILE:
	case N_FOR:
		elide_stmt(e, n->loop.body);
		break;
	case N_FOREACH:
		elide_stmt(e, n->foreach.body);
		break;
	case N_TRY:
		elide_stmt(e, n->try.body);
		elide_stmt(e, n->try.handler);
		break;
	case N_EXPR_STMT: {
		struct node *x = n->stmt.expr;
		/* a chain a = b = f(): peel dead stores off the front */
		while (is_dead_store(x)) {
			struct node *rhs = x->binary.rhs;
			/* embedded C there is an expression: with effects it
			 * stays a store (pasted alone as a statement, its
			 * value would be a C "statement with no effect"),
			 * declared pure it goes */
			if (rhs->kind == N_EMBEDDED &&
			    !strstr(rhs->embedded.code, "/* pure */"))
				break;
			warn_once(e, x->loc, "eliding assignment to",
				  x->binary.lhs->var.name);
			x = rhs;
		}
		if (is_pure(x) || (x != n->stmt.expr && x->kind == N_EMBEDDED)) {
			if (x == n->stmt.expr)
				warn_once(e, x->loc, "eliding side-effect-free "
					  "expression", NULL);
			n->kind = N_NULL_STMT;
		} else {
			n->stmt.expr = x;
		}
		break;
	}
	default:
		break;
	}
}

/* Does a statement (list) do anything? */
static bool does_nothing(const struct node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_BLOCK) {
			if (!does_nothing(n->block.stmts))
				return false;
		} else if (n->kind != N_NULL_STMT) {
			return false;
		}
	}
	return true;
}

static void mark_local(struct node *n, void *arg)
{
	struct probe_body *b = arg;

	if (n->sym && n->sym->kind == SYM_LOCAL)
		n->sym->mentioned = true;
	if (n->kind == N_TRY && n->try.catch_var)
		for (int i = 0; i < b->nlocals; i++)
			if (!strcmp(b->locals[i]->name, n->try.catch_var))
				b->locals[i]->mentioned = true;
}

/* Drop the locals no statement mentions; parameters always stay. */
static void prune_locals(struct probe_body *b, struct node *body, int nparams)
{
	int kept = 0;

	for (int i = 0; i < b->nlocals; i++)
		b->locals[i]->mentioned = i < nparams;
	ast_visit(body, mark_local, b);
	for (int i = 0; i < b->nlocals; i++) {
		struct symbol *l = b->locals[i];
		if (!l->mentioned)
			continue;
		l->index = kept;
		b->locals[kept++] = l;
	}
	b->nlocals = kept;
}

static const char *first_point(struct session *s, const struct node *probe)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ast_unparse_point(f, probe->probe.points);
	fclose(f);
	const char *r = arena_strdup(&s->arena, buf);
	free(buf);
	return r;
}

void sema_elide(struct session *s, struct program *prog)
{
	struct elider e = { .s = s };
	int nbodies = 0, nprobes = 0, nglobals = 0;

	for (int i = 0; i < prog->nfuncs; i++) {
		struct script_func *f = prog->funcs[i];
		if (!f->used) {
			if (!in_library(s, f->decl->loc))
				warn_once(&e, f->decl->loc, "eliding unused "
					  "function", f->sym->name);
			continue;
		}
		if (f->embedded)
			continue;
		elide_stmt(&e, f->decl->func.body);
		prune_locals(f->scope, f->decl->func.body, f->nparams);
	}
	bool *dead = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*dead));
	for (int i = 0; i < prog->nbodies; i++) {
		elide_stmt(&e, prog->bodies[i]->probe->probe.body);
		dead[i] = does_nothing(prog->bodies[i]->probe->probe.body);
	}
	/* a kernel function's own body that does nothing (its @defined
	 * failed) is no news while another function's does something */
	bool *quiet = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*quiet));
	for (int i = 0; i < prog->nbodies; i++) {
		const struct probe_body *b = prog->bodies[i];
		quiet[i] = false;
		for (int j = 0; b->kf_per_function && j < prog->nbodies; j++)
			quiet[i] |= !dead[j] && prog->bodies[j]->kf_per_function &&
				    prog->bodies[j]->user_probe == b->user_probe;
	}
	for (int i = 0, n = prog->nbodies; i < n; i++) {
		struct probe_body *b = prog->bodies[i];
		struct node *body = b->probe->probe.body;
		if (dead[i]) {
			if (!quiet[i])
				warn_once(&e, b->user_probe->loc, "eliding probe "
					  "that does nothing:",
					  first_point(s, b->user_probe));
			b->index = -1;
			continue;
		}
		prune_locals(b, body, 0);
		b->index = nbodies;
		prog->bodies[nbodies++] = b;
	}
	prog->nbodies = nbodies;
	free(dead);
	free(quiet);
	for (int i = 0; i < prog->nprobes; i++)
		if (prog->probes[i]->body->index >= 0)
			prog->probes[nprobes++] = prog->probes[i];
	prog->nprobes = nprobes;
	for (int i = 0; i < prog->nglobals; i++) {
		struct symbol *g = prog->globals[i];
		if (!g->read && !g->written && !g->used_as_scalar)
			continue;	/* check_unresolved warned */
		g->index = nglobals;
		prog->globals[nglobals++] = g;
	}
	prog->nglobals = nglobals;
	free(e.warned);
}
