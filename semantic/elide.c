// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's optimiser. It runs after type checking, so it never hides a type
 * error (SystemTap elides first and so misses some), and not at all with -u.
 *   - an assignment to a local nothing reads goes, or keeps only its
 *     right-hand side when that has side effects; in the library's own
 *     code (alias bodies) a right-hand side also goes when it only reads
 *     context variables and calls side-effect-free functions (embedded
 *     C marked pure, script functions that change nothing but their
 *     locals, sprintf): a probe on vfs.read that reads none of its
 *     variables no longer walks the file's path. A local that only such
 *     elided statements read is dead in turn (rounds to a fixpoint);
 *   - an expression statement without side effects goes;
 *   - locals no statement mentions any more leave the frame;
 *   - a probe whose body is left empty goes, with its derived probes;
 *   - functions nothing calls and globals nothing uses are not emitted.
 * Each elision of a statement or probe in the user's script is a warning
 * (-w silences them); unused functions and globals go quietly, as in
 * SystemTap 4.8, which warns about neither. Code from the tapset library is elided quietly, and a body shared by several
 * alias expansions warns once per place.
 */
#include "semantic/semantic.h"
#include "lib/hash.h"
#include "lib/hashset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct elider {
	struct session *s;
	struct program *prog;
	struct hashset warned;		/* places already reported */
	/* per function (prog->funcs index): 0 unknown, 1 being decided,
	 * 2 side-effect free, 3 not */
	unsigned char *func_purity;
	/* the body being elided lost a library statement that only the
	 * library rule (lib_pure) drops: the probe stays (an empty alias
	 * probe fires, as in SystemTap) */
	bool lib_elided;
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
	const int where[] = { loc.file, loc.line, loc.col, loc.expansion };

	if (!hashset_add(&e->warned, fnv1a(FNV_OFFSET, where, sizeof(where))))
		return;
	if (name)
		diag_warning(e->s, loc, "%s '%s'", what, name);
	else
		diag_warning(e->s, loc, "%s", what);
}

/* Builtins with no effect beyond their value (an error they raise is
 * not an effect: SystemTap elides them too). */
static bool pure_builtin(const char *name)
{
	static const char *const names[] = {
		"strlen", "substr", "stringat", "isinstr", "strpos",
		"str_replace", "string_quoted", "text_str", "text_strn",
		"strtol", "kernel_string", "execname", "pp", "pid", "tid",
		"cpu", "target",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static bool func_is_pure(struct elider *e, const struct script_func *f);
static bool lib_pure_leaf(struct elider *e, const struct node *n);

/*
 * An expression without effects. Plain (lib false): numbers, strings,
 * variables, array reads and operators on them; no calls, assignments,
 * output, embedded C or statistics (which can fail). lib: instead of
 * array reads, also context variables and @cast chains (reads), sprintf,
 * pure embedded C, and calls of builtins and functions without side
 * effects. lib is used only on the library's own code (alias bodies
 * computing variables the probe never reads), as SystemTap's optimiser
 * does.
 */
static bool pure_expr(struct elider *e, const struct node *n, bool lib)
{
	if (!n)
		return true;
	switch (n->kind) {
	case N_NUMBER:
	case N_STRING:
	case N_VAR:
		return true;
	case N_BINARY:
		return pure_expr(e, n->binary.lhs, lib) &&
		       pure_expr(e, n->binary.rhs, lib);
	case N_UNARY:
		return pure_expr(e, n->unary.operand, lib);
	case N_TERNARY:
		return pure_expr(e, n->cond.cond, lib) &&
		       pure_expr(e, n->cond.then, lib) &&
		       pure_expr(e, n->cond.els, lib);
	case N_INDEX:
	case N_IN:
		if (lib)
			return false;
		ast_foreach(k, n->kind == N_INDEX ? n->index.keys :
						     n->binary.lhs)
			if (!pure_expr(e, k, false))
				return false;
		return true;
	default:
		return lib && lib_pure_leaf(e, n);
	}
}

/* pure_expr's lib-only kinds. */
static bool lib_pure_leaf(struct elider *e, const struct node *n)
{
	switch (n->kind) {
	case N_TARGET:
		return true;
	case N_EMBEDDED:	/* an expression marked pure, as a constant */
		return strstr(n->embedded.code, "/* pure */") != NULL;
	case N_TMEMBER:
	case N_TINDEX:
		if (n->kind == N_TINDEX &&
		    !pure_expr(e, n->target.index, true))
			return false;
		return pure_expr(e, n->target.base, true);
	case N_ATFUNC:
		if (strcmp(n->call.name, "@cast") &&
		    strcmp(n->call.name, "@var") &&
		    strcmp(n->call.name, "@defined") &&
		    strcmp(n->call.name, "@entry"))
			return false;
		ast_foreach(a, n->call.args)
			if (!pure_expr(e, a, true))
				return false;
		return true;
	case N_PRINT:
		if (n->print.kind != PRINT_SPRINT &&
		    n->print.kind != PRINT_SPRINTLN &&
		    n->print.kind != PRINT_SPRINTF &&
		    n->print.kind != PRINT_SPRINTD &&
		    n->print.kind != PRINT_SPRINTDLN)
			return false;
		ast_foreach(a, n->print.args)
			if (!pure_expr(e, a, true))
				return false;
		return true;
	case N_CALL:
		ast_foreach(a, n->call.args)
			if (!pure_expr(e, a, true))
				return false;
		if (!n->sym)
			return false;
		if (n->sym->kind == SYM_BUILTIN)
			return pure_builtin(n->sym->name);
		return n->sym->kind == SYM_FUNCTION && n->sym->func &&
		       func_is_pure(e, n->sym->func);
	default:
		return false;
	}
}

static bool lib_pure(struct elider *e, const struct node *n)
{
	return pure_expr(e, n, true);
}

/* An expression statement that changes nothing but locals. */
static bool stmt_expr_pure(struct elider *e, const struct node *x)
{
	if (!x)
		return true;
	if (x->kind == N_ASSIGN)
		return x->binary.lhs->kind == N_VAR && x->binary.lhs->sym &&
		       x->binary.lhs->sym->kind == SYM_LOCAL &&
		       lib_pure(e, x->binary.rhs);
	if (x->kind == N_INCDEC)
		return x->incdec.operand->kind == N_VAR &&
		       x->incdec.operand->sym &&
		       x->incdec.operand->sym->kind == SYM_LOCAL;
	return lib_pure(e, x);
}

/* A statement of a function body that changes nothing but its locals. */
static bool stmt_is_pure(struct elider *e, const struct node *n)
{
	for (; n; n = n->next) {
		switch (n->kind) {
		case N_NULL_STMT:
		case N_BREAK:
		case N_CONTINUE:
			break;
		case N_BLOCK:
			if (!stmt_is_pure(e, n->block.stmts))
				return false;
			break;
		case N_RETURN:
		case N_EXPR_STMT:
			if (!stmt_expr_pure(e, n->stmt.expr))
				return false;
			break;
		case N_IF:
			if (!lib_pure(e, n->cond.cond) ||
			    !stmt_is_pure(e, n->cond.then) ||
			    !stmt_is_pure(e, n->cond.els))
				return false;
			break;
		case N_WHILE:
		case N_FOR:
			/* a loop's init and step are expressions too */
			if ((n->loop.init && !stmt_expr_pure(e, n->loop.init)) ||
			    !lib_pure(e, n->loop.cond) ||
			    (n->loop.step && !stmt_expr_pure(e, n->loop.step)) ||
			    !stmt_is_pure(e, n->loop.body))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool func_is_pure(struct elider *e, const struct script_func *f)
{
	int i = f->index;

	if (i < 0 || i >= e->prog->nfuncs || e->prog->funcs[i] != f)
		return false;
	if (e->func_purity[i] == 1)
		return false;		/* recursion: say no */
	if (e->func_purity[i])
		return e->func_purity[i] == 2;
	e->func_purity[i] = 1;
	bool pure;
	if (f->embedded)
		pure = f->decl->func.body &&
		       f->decl->func.body->kind == N_EMBEDDED &&
		       strstr(f->decl->func.body->embedded.code, "/* pure */");
	else
		pure = stmt_is_pure(e, f->decl->func.body);
	e->func_purity[i] = pure ? 2 : 3;
	return pure;
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
		/* embedded C left after peeling is declared pure */
		bool plain = pure_expr(e, x, false) ||
			     (x != n->stmt.expr && x->kind == N_EMBEDDED);
		if (plain || (in_library(e->s, n->loc) && lib_pure(e, x))) {
			/* a probe that did something before is still one */
			if (!plain)
				e->lib_elided = true;
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

struct reads {
	const struct node **stores;	/* lhs of plain `x = ...`, sorted */
	int nstores, cap;
	bool embedded;
};

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const struct node *const *)a;
	uintptr_t y = (uintptr_t)*(const struct node *const *)b;

	return x < y ? -1 : x > y;
}

static void find_stores(struct node *n, void *arg)
{
	struct reads *r = arg;

	if (n->kind == N_EMBEDDED)
		r->embedded = true;
	if (n->kind != N_ASSIGN || n->binary.op != OP_ASSIGN ||
	    n->binary.lhs->kind != N_VAR)
		return;
	VEC_PUSH(r->stores, r->nstores, r->cap, n->binary.lhs);
}

static void mark_read(struct node *n, void *arg)
{
	struct reads *r = arg;

	if (n->kind != N_VAR || !n->sym || n->sym->kind != SYM_LOCAL)
		return;
	/* a search, not a scan: a body of 20,000 stores and as many reads
	 * took seconds */
	if (r->nstores && bsearch(&n, r->stores, (size_t)r->nstores,
				  sizeof(*r->stores), ptr_cmp))
		return;
	n->sym->mentioned = true;	/* here: "still read" */
}

/*
 * After an elision round, a body's locals that only elided statements
 * read are read no more: their own stores become dead (an alias's dev,
 * which only its devname read). Returns whether one changed. A body with
 * embedded C (which may name locals) keeps its flags.
 */
static bool recount_reads(struct probe_body *b, struct node *body)
{
	struct reads r = { 0 };
	bool changed = false;

	ast_visit(body, find_stores, &r);
	if (r.nstores)
		qsort(r.stores, (size_t)r.nstores, sizeof(*r.stores), ptr_cmp);
	if (!r.embedded) {
		for (int i = 0; i < b->nlocals; i++)
			b->locals[i]->mentioned = false;
		ast_visit(body, mark_read, &r);
		for (int i = 0; i < b->nlocals; i++) {
			struct symbol *l = b->locals[i];
			if (l->read && !l->mentioned) {
				l->read = false;
				changed = true;
			}
		}
	}
	free(r.stores);
	return changed;
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

static uint64_t ptr_hash(const void *p)
{
	return fnv1a(FNV_OFFSET, &p, sizeof(p));
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

/* a body's calls: called[f->index] for each function it calls */
static void mark_call(struct node *n, void *arg)
{
	bool *called = arg;

	if (n->kind == N_CALL && n->sym && n->sym->kind == SYM_FUNCTION &&
	    n->sym->func)
		called[n->sym->func->index] = true;
}

/*
 * b's callees that its elided body still calls: a backend walking the
 * call graph (the BPF backend's refusals and kernel half) sees only
 * what runs, not what an alias's elided variables would have called.
 * The hashed callee_set stays a superset. One walk of the body (and of
 * the values computed at a function's entry, @entry) however many
 * callees it has.
 */
static void prune_callees(const struct program *prog, struct probe_body *b,
			  struct node *body)
{
	bool *called = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(*called));
	int n = 0;

	memset(called, 0, ((size_t)prog->nfuncs + 1) * sizeof(*called));

	ast_visit(body, mark_call, called);
	for (int k = 0; k < b->nentry_values; k++)
		ast_visit(b->entry_values[k], mark_call, called);
	for (int i = 0; i < b->ncallees; i++)
		if (called[b->callees[i]->index])
			b->callees[n++] = b->callees[i];
	b->ncallees = n;
	free(called);
}

static void mark_used(struct script_func *f)
{
	if (f->used)
		return;
	f->used = true;
	for (int i = 0; i < f->scope->ncallees; i++)
		mark_used(f->scope->callees[i]);
}

/* The functions the bodies left still reach (4.8 drops the rest from
 * the program, and a backend then neither builds nor checks them). */
static void reachable_functions(struct program *prog)
{
	for (int i = 0; i < prog->nfuncs; i++)
		prog->funcs[i]->used = false;
	for (int i = 0; i < prog->nbodies; i++)
		for (int j = 0; j < prog->bodies[i]->ncallees; j++)
			mark_used(prog->bodies[i]->callees[j]);
}

void sema_elide(struct session *s, struct program *prog)
{
	struct elider e = { .s = s, .prog = prog };
	int nbodies = 0, nprobes = 0, nglobals = 0;

	e.func_purity = xmalloc((size_t)prog->nfuncs + 1);
	memset(e.func_purity, 0, (size_t)prog->nfuncs + 1);

	for (int i = 0; i < prog->nfuncs; i++) {
		struct script_func *f = prog->funcs[i];
		if (!f->used)
			continue;	/* quietly, as SystemTap 4.8 */
		if (f->embedded)
			continue;
		elide_stmt(&e, f->decl->func.body);
		prune_locals(f->scope, f->decl->func.body, f->nparams);
		prune_callees(prog, f->scope, f->decl->func.body);
	}
	bool *dead = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*dead));
	for (int i = 0; i < prog->nbodies; i++) {
		struct node *body = prog->bodies[i]->probe->probe.body;
		int rounds = 0;
		e.lib_elided = false;
		do
			elide_stmt(&e, body);
		while (++rounds < 16 && recount_reads(prog->bodies[i], body));
		dead[i] = does_nothing(body) && !e.lib_elided &&
			  !prog->bodies[i]->kept;
	}
	/* a kernel function's own body that does nothing (its @defined
	 * failed) is no news while another function's does something */
	struct hashset live = { 0 };	/* probes with a per-point body left */
	for (int i = 0; i < prog->nbodies; i++)
		if (!dead[i] && prog->bodies[i]->per_point)
			hashset_add(&live, ptr_hash(prog->bodies[i]->user_probe));
	bool *quiet = xmalloc((size_t)(prog->nbodies + 1) * sizeof(*quiet));
	for (int i = 0; i < prog->nbodies; i++) {
		const struct probe_body *b = prog->bodies[i];
		quiet[i] = b->per_point &&
			   hashset_has(&live, ptr_hash(b->user_probe));
	}
	hashset_free(&live);
	for (int i = 0, n = prog->nbodies; i < n; i++) {
		struct probe_body *b = prog->bodies[i];
		struct node *body = b->probe->probe.body;
		if (dead[i]) {
			if (!quiet[i])
				warn_once(&e, b->user_probe->loc, "eliding probe "
					  "that does nothing:",
					  first_point(s, b->user_probe));
			b->index = -1;
			/* its calls went with it: so do the copies made for
			 * it, which only it (and they) called */
			for (int k = 0; k < b->ncopies; k++)
				b->copies[k]->used = false;
			continue;
		}
		prune_locals(b, body, 0);
		prune_callees(prog, b, body);
		b->index = nbodies;
		prog->bodies[nbodies++] = b;
	}
	prog->nbodies = nbodies;
	reachable_functions(prog);
	free(dead);
	free(quiet);
	for (int i = 0; i < prog->nprobes; i++)
		if (prog->probes[i]->body->index >= 0)
			prog->probes[nprobes++] = prog->probes[i];
	prog->nprobes = nprobes;
	for (int i = 0; i < prog->nglobals; i++) {
		struct symbol *g = prog->globals[i];
		if (!g->read && !g->written && !g->used_as_scalar)
			continue;	/* unused: quietly, as in 4.8 */
		g->index = nglobals;
		prog->globals[nglobals++] = g;
	}
	prog->nglobals = nglobals;
	hashset_free(&e.warned);
	free(e.func_purity);
}
