// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What each body uses at run time (uses.h), from the elaborated program:
 * one walk per body over the code pass 2 left (a folded @defined's dead
 * branch is not code), then the facts of the functions a body calls
 * added to it, transitively, over the call graph of that code.
 *
 * Invariants: a fact is set by the node that needs it, never by looking
 * at what a backend generated; a body whose code is embedded C (a
 * function whose body is %{ %}) has USES_EMBEDDED and, from its source
 * text, what it evidently uses (its STAP_* macros and CONTEXT members):
 * that text is the script's or the tapset's, scanned once per function,
 * and only a hint, since the code may do anything.
 */
#include "semantic/uses.h"
#include "semantic/semantic.h"
#include "lib/arena.h"

#include <stdlib.h>
#include <string.h>

struct use_walk {
	unsigned uses;
	const struct node *skip;	/* a statement not run, or NULL */
	struct script_func **callees;	/* script functions called */
	int ncallees, callees_cap;
};

static void walk(struct use_walk *w, struct node *list);

static bool is_print(enum print_kind k)
{
	return k == PRINT_PRINT || k == PRINT_PRINTLN || k == PRINT_PRINTF ||
	       k == PRINT_PRINTD || k == PRINT_PRINTDLN;
}

static unsigned builtin_use(const struct node *n)
{
	const struct symbol *sym = n->sym;
	const char *name = n->call.name;

	if (!strcmp(name, "exit"))
		return USES_EXIT;
	if (!strcmp(name, "error"))
		return USES_FAIL;
	if (!strcmp(name, "matched") || !strcmp(name, "matched_str") ||
	    !strcmp(name, "ngroups"))
		return USES_MATCH | USES_FAIL;
	if (!strcmp(name, "pp") || !strcmp(name, "pn"))
		return USES_POINT;
	if (sym->bi_kind == BI_CTX_STRING || sym->bi_kind == BI_CTX_VOID)
		return USES_LIBRARY | (!strcmp(name, "print_char") ?
				       USES_PRINT : 0);
	return 0;
}

/* A context value's node (its sym SYM_CONTEXT or SYM_TYPED, or a kind's
 * own value): its facts; *descend whether its children are code run
 * here. */
static unsigned context_use(struct use_walk *w, struct node *n,
			    bool *descend)
{
	const struct symbol *sym = n->sym;
	const char *name = n->kind == N_ATFUNC ? n->call.name :
			   n->kind == N_TARGET ? n->target.name : "";

	*descend = false;
	if (sym && sym->kind == SYM_TYPED) {
		walk(w, sym->typed_base);
		if (!sym->member_path)
			return 0;
		for (int i = 0; i < sym->member_path->nsteps; i++)
			walk(w, sym->member_path->steps[i].index_expr);
		return sym->member_path->nsteps ? USES_FAULT : 0;
	}
	if (n->kind == N_ATFUNC && !strcmp(name, "@defined"))
		return 0;		/* folded in pass 2 */
	if (sym && sym->kind == SYM_CONTEXT && n->kind != N_ATFUNC)
		return USES_VALUES | (sym->member_path || sym->may_fault ?
				      USES_FAULT : 0);
	if (n->kind == N_ATFUNC && !strcmp(name, "@entry")) {
		/* with a slot, computed at the entry (the body's
		 * entry_values); without, the values are there */
		*descend = !sym;
		return sym ? USES_ENTRY : 0;
	}
	if (!strcmp(name, "$return"))
		return USES_RETURN;
	return USES_KIND;
}

static bool is_context(const struct node *n)
{
	if (n->sym && (n->sym->kind == SYM_CONTEXT ||
		       n->sym->kind == SYM_TYPED))
		return true;
	return n->kind == N_TARGET || n->kind == N_TMEMBER ||
	       n->kind == N_TINDEX || (n->kind == N_ATFUNC &&
				       strcmp(n->call.name, "@cast"));
}

/* The target of an assignment or increment: a write's facts. */
static unsigned write_use(const struct node *lhs)
{
	if (lhs->kind == N_INDEX)
		return USES_FAIL;	/* the array may be full */
	if (lhs->kind == N_TARGET && !strcmp(lhs->target.name, "$return"))
		return USES_RETURN;
	if (lhs->sym && lhs->sym->kind == SYM_CONTEXT)
		return USES_WRITE | USES_VALUES | USES_FAULT;
	if (is_context(lhs))
		return USES_KIND;
	return 0;
}

static void walk_node(struct use_walk *w, struct node *n)
{
	struct node **slot[6];
	int64_t live;

	switch (n->kind) {
	case N_IF:
	case N_TERNARY:
		if (sema_folded_defined(n->cond.cond, &live)) {
			walk(w, live ? n->cond.then : n->cond.els);
			return;
		}
		break;
	case N_EMBEDDED:
		w->uses |= USES_EMBEDDED;
		return;
	case N_CALL:
		if (n->sym && n->sym->kind == SYM_FUNCTION) {
			w->uses |= USES_CALL;
			VEC_PUSH(w->callees, w->ncallees, w->callees_cap,
				 n->sym->func);
		} else if (n->sym && n->sym->kind == SYM_BUILTIN) {
			w->uses |= builtin_use(n);
		}
		break;
	case N_PRINT:
		if (is_print(n->print.kind))
			w->uses |= USES_PRINT;
		break;
	case N_BINARY:
		if (n->binary.op == OP_DIV || n->binary.op == OP_MOD)
			w->uses |= USES_FAIL;
		if (n->binary.op == OP_MATCH || n->binary.op == OP_NMATCH)
			w->uses |= USES_MATCH;
		break;
	case N_ASSIGN:
		if (n->binary.op == OP_DIV || n->binary.op == OP_MOD)
			w->uses |= USES_FAIL;
		w->uses |= write_use(n->binary.lhs);
		if (is_context(n->binary.lhs)) {
			walk(w, n->binary.rhs);
			return;
		}
		break;
	case N_INCDEC:
		w->uses |= write_use(n->incdec.operand);
		break;
	case N_FOREACH:
		/* a histogram's buckets are counted, not an array's
		 * elements collected */
		if (!n->foreach.array || n->foreach.array->kind != N_HIST)
			w->uses |= USES_FOREACH;
		break;
	case N_TRY:
		w->uses |= USES_TRY;
		break;
	case N_NEXT:
	case N_RETURN:
	case N_BREAK:
	case N_CONTINUE:
		w->uses |= USES_LEAVE;
		break;
	case N_STAT:
		if (n->stat.op == STAT_MIN || n->stat.op == STAT_MAX ||
		    n->stat.op == STAT_AVG || n->stat.op == STAT_VARIANCE)
			w->uses |= USES_FAIL;	/* an empty aggregate */
		break;
	case N_HIST:
		w->uses |= USES_FAIL;
		break;
	default:
		break;
	}
	if (n->kind == N_TINDEX && n->target.base &&
	    n->target.base->kind == N_HIST) {
		w->uses |= USES_LIBRARY;	/* a bucket's count */
	} else if (is_context(n)) {
		bool descend;
		w->uses |= context_use(w, n, &descend);
		if (!descend)
			return;
	}
	for (int i = 0, k = ast_child_slots(n, slot); i < k; i++)
		walk(w, *slot[i]);
}

static void walk(struct use_walk *w, struct node *list)
{
	ast_foreach(n, list)
		if (n != w->skip)
			walk_node(w, n);
}

/* An embedded-C function's evident uses, from its source text (see the
 * comment at the top). */
static unsigned embedded_use(const char *code)
{
	unsigned u = USES_EMBEDDED;

	if (strstr(code, "STAP_ERROR") || strstr(code, "last_error"))
		u |= USES_FAIL;
	if (strstr(code, "STAP_PRINTF") || strstr(code, "_stp_print"))
		u |= USES_PRINT;
	if (strstr(code, "STAP_NEXT"))
		u |= USES_LEAVE;
	if (strstr(code, "regs"))
		u |= USES_VALUES;
	return u;
}

/* One body's own uses but those of statement skip (NULL: none); its
 * callees into *callees (a malloc'd array). */
static unsigned own_uses(const struct probe_body *b, const struct node *skip,
			 struct script_func ***callees, int *ncallees)
{
	struct use_walk w = { .skip = skip };

	if (b->func && b->func->embedded) {
		*callees = NULL;
		*ncallees = 0;
		return embedded_use(b->func->decl->func.body->embedded.code);
	}
	walk(&w, b->func ? b->func->decl->func.body : b->probe->probe.body);
	/* a .return probe's @entry values run in its handler at the entry */
	for (int i = 0; i < b->nentry_values; i++) {
		w.uses |= USES_ENTRY;
		walk(&w, b->entry_values[i]->call.args);
	}
	if (b->parms_modes)
		w.uses |= USES_KIND;
	if (b->nctxvars)
		w.uses |= USES_VALUES;
	*callees = w.callees;
	*ncallees = w.ncallees;
	return w.uses;
}

unsigned sema_uses_without(const struct probe_body *b, const struct node *skip)
{
	struct script_func **callees;
	int ncallees;
	unsigned u = own_uses(b, skip, &callees, &ncallees);

	free(callees);
	return u;
}

/* The bodies in an order where each comes after the bodies it calls
 * (but along a recursion's back edge): depth first, iteratively. */
static int post_order(struct probe_body **body, int n,
		      struct script_func ***callees, const int *ncallees,
		      int nf, int *order)
{
	char *state = calloc((size_t)n + 1, 1);	/* 1 entered, 2 done */
	int *stack = xmalloc(((size_t)n + 1) * sizeof(*stack));
	int *next = xmalloc(((size_t)n + 1) * sizeof(*next));
	int norder = 0;

	for (int root = 0; root < n; root++) {
		int top = 0;
		if (state[root])
			continue;
		stack[top++] = root;
		state[root] = 1;
		next[root] = 0;
		while (top) {
			int i = stack[top - 1];
			if (next[i] < ncallees[i]) {
				int j = callees[i][next[i]++]->index;
				if (j >= 0 && j < nf && !state[j]) {
					state[j] = 1;
					next[j] = 0;
					stack[top++] = j;
				}
				continue;
			}
			state[i] = 2;
			order[norder++] = i;
			top--;
		}
	}
	(void)body;
	free(next);
	free(stack);
	free(state);
	return norder;
}

void sema_find_uses(struct program *prog)
{
	int nf = prog->nfuncs, nb = prog->nbodies;
	int n = nf + nb;		/* functions first, then probes */
	struct probe_body **body = xmalloc(((size_t)n + 1) * sizeof(*body));
	struct script_func ***callees = xmalloc(((size_t)n + 1) *
						sizeof(*callees));
	int *ncallees = xmalloc(((size_t)n + 1) * sizeof(*ncallees));
	int *order = xmalloc(((size_t)n + 1) * sizeof(*order));
	bool changed = true;

	for (int i = 0; i < nf; i++)
		body[i] = prog->funcs[i]->scope;
	for (int i = 0; i < nb; i++)
		body[nf + i] = prog->bodies[i];
	for (int i = 0; i < n; i++) {
		body[i]->uses = own_uses(body[i], NULL, &callees[i],
					 &ncallees[i]);
		body[i]->uses_reached = body[i]->uses;
	}
	/* callees first, so one pass settles a program without recursion;
	 * a recursion's facts go round until nothing grows */
	int norder = post_order(body, n, callees, ncallees, nf, order);
	while (changed) {
		changed = false;
		for (int k = 0; k < norder; k++) {
			int i = order[k];
			unsigned u = body[i]->uses_reached;
			for (int j = 0; j < ncallees[i]; j++)
				u |= callees[i][j]->scope->uses_reached;
			if (u != body[i]->uses_reached) {
				body[i]->uses_reached = u;
				changed = true;
			}
		}
	}
	for (int i = 0; i < n; i++)
		free(callees[i]);
	free(callees);
	free(ncallees);
	free(order);
	free(body);
}
