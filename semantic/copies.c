// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: script functions that read a probe's context.
 *
 * A function with $x, $x->f, $$parms, @defined($x), @entry(...) or
 * @perf(...) in its body, or calling a function that has (at any depth),
 * means something only in a probe. As SystemTap 4.8 clones such a
 * function for each probe that calls it, each probe body calling one
 * gets a copy of its own: the declaration's nodes cloned
 * (ast_clone_node), bound at the call, and elaborated like the body's
 * own code (context.c and the families see the copy's scope through
 * context_body()): its context values are slots of that probe body,
 * which the body's callbacks fill; @defined is decided for that body's
 * points; a call in the copy of another such function (or of itself:
 * recursion) binds that function's copy for the same body.
 *
 * Invariants: a function reading no context is never copied (no code
 * growth for other scripts); a copied function itself stays unused, so
 * it is never elaborated outside a probe; there is one copy per function
 * and probe body (found through se->copy_set; the body lists its own in
 * `copies`); copies are not in the name index
 * (find_func never returns one); each copy keeps the calls that made it
 * (a diag_trail), shown as notes after its messages.
 */
#include "semantic/elaborate.h"
#include "lib/hash.h"

#include <stdlib.h>
#include <string.h>

/* ---- which functions read a probe's context ---------------------------- */

struct ctx_scan {
	struct program *prog;
	bool direct;			/* the body reads context itself */
	int *callees;			/* indexes of the functions it calls */
	int ncallees, callees_cap;
};

/* @defined, @cast, @var and @json_print are pass 2's own; the other
 * @-functions are the families' (@entry, @perf): of the probe. */
static bool context_atfunc(const struct node *n)
{
	return n->kind == N_ATFUNC && strcmp(n->call.name, "@defined") &&
	       strcmp(n->call.name, "@cast") && strcmp(n->call.name, "@var") &&
	       strcmp(n->call.name, "@json_print");
}

static void scan_node(struct node *n, void *arg)
{
	struct ctx_scan *sc = arg;

	if (n->kind == N_TARGET || context_atfunc(n))
		sc->direct = true;
	if (n->kind == N_CALL) {
		struct script_func *g = find_func(sc->prog, n->call.name,
						  ast_list_length(n->call.args),
						  n->loc.file);
		if (g)
			VEC_PUSH(sc->callees, sc->ncallees, sc->callees_cap,
				 g->index);
	}
}

/*
 * Sets reads_context on every declared function that reads a probe's
 * context, itself or through the functions it calls: those reading it
 * directly, then their callers, over the reversed call graph (calls
 * bound by name and arity as types.c binds them), once each.
 */
void sema_mark_context_functions(struct sema *se)
{
	struct program *prog = se->prog;
	int n = prog->nfuncs;
	struct ctx_scan sc = { .prog = prog };
	int *from = xmalloc(((size_t)n + 1) * sizeof(int));	/* callee */
	int *edges = NULL, nedges = 0, edges_cap = 0;	/* caller, callee */
	int *work = xmalloc(((size_t)n + 1) * sizeof(int)), nwork = 0;

	for (int i = 0; i < n; i++) {
		struct script_func *f = prog->funcs[i];

		f->reads_context = false;
		if (f->embedded)
			continue;
		sc.direct = false;
		sc.ncallees = 0;
		ast_visit(f->decl->func.body, scan_node, &sc);
		if (sc.direct) {
			f->reads_context = true;
			work[nwork++] = i;
		}
		for (int k = 0; k < sc.ncallees; k++) {
			VEC_PUSH(edges, nedges, edges_cap, i);
			VEC_PUSH(edges, nedges, edges_cap, sc.callees[k]);
		}
	}
	/* the callers of each function, grouped by callee: from[g] is the
	 * first of g's in callers[] (counting sort) */
	int *callers = xmalloc(((size_t)nedges / 2 + 1) * sizeof(int));
	memset(from, 0, ((size_t)n + 1) * sizeof(int));
	for (int e = 0; e < nedges; e += 2)
		from[edges[e + 1] + 1]++;
	for (int g = 0; g < n; g++)
		from[g + 1] += from[g];
	int *fill = xmalloc(((size_t)n + 1) * sizeof(int));
	memcpy(fill, from, ((size_t)n + 1) * sizeof(int));
	for (int e = 0; e < nedges; e += 2)
		callers[fill[edges[e + 1]]++] = edges[e];
	while (nwork > 0) {
		int g = work[--nwork];
		for (int k = from[g]; k < from[g + 1]; k++) {
			struct script_func *f = prog->funcs[callers[k]];
			if (!f->reads_context) {
				f->reads_context = true;
				work[nwork++] = f->index;
			}
		}
	}
	free(fill);
	free(callers);
	free(edges);
	free(work);
	free(from);
	free(sc.callees);
}

/* ---- the copies --------------------------------------------------------- */

static size_t copy_slot(const struct sema *se, const struct script_func *f,
			const struct probe_body *ctx)
{
	const void *key[2] = { f, ctx };
	size_t mask = (size_t)se->copy_set_size - 1;
	size_t h = fnv1a(FNV_OFFSET, key, sizeof(key)) & mask;
	const struct script_func *c;

	while ((c = se->copy_set[h]) && (c->copy_of != f || c->ctx != ctx))
		h = (h + 1) & mask;
	return h;
}

/* f's copy for probe body ctx, or NULL */
static struct script_func *find_copy(const struct sema *se,
				     const struct script_func *f,
				     const struct probe_body *ctx)
{
	return se->copy_set_size ? se->copy_set[copy_slot(se, f, ctx)] : NULL;
}

static void add_copy(struct sema *se, struct script_func *c)
{
	/* at most half full */
	if (2 * (se->ncopy_set + 1) > se->copy_set_size) {
		struct script_func **old = se->copy_set;
		int n = se->copy_set_size;

		se->copy_set_size = n ? 2 * n : 64;
		se->copy_set = arena_alloc(&se->s->arena,
					   (size_t)se->copy_set_size *
					   sizeof(*se->copy_set));
		for (int i = 0; i < n; i++)
			if (old[i])
				se->copy_set[copy_slot(se, old[i]->copy_of,
						       old[i]->ctx)] = old[i];
	}
	se->copy_set[copy_slot(se, c->copy_of, c->ctx)] = c;
	se->ncopy_set++;
}

/*
 * The function a call of f in the scope being walked runs: f itself
 * unless f reads a probe's context and the scope has one (a probe body,
 * or a copy made for one); then f's copy for that probe body, made on
 * the first call.
 */
struct script_func *sema_bind_call(struct sema *se, struct script_func *f,
				   struct node *call)
{
	struct probe_body *ctx = context_body(se->body);
	struct arena *a = &se->s->arena;

	if (!f->reads_context || f->copy_of || !ctx)
		return f;
	struct script_func *known = find_copy(se, f, ctx);
	if (known)
		return known;

	struct script_func *c = sema_new_function(se, ast_clone_node(se->s,
								     f->decl));
	struct diag_trail *t = arena_alloc(a, sizeof(*t));

	if (!c)
		return f;	/* not reached: f's parameters were checked */
	c->copy_of = f;
	c->ctx = ctx;
	c->reads_context = true;
	f->ncopies++;
	t->loc = call->loc;
	if (se->body->func) {
		t->text = arena_printf(a, "in function '%s' called here from "
				       "function '%s'", f->sym->name,
				       se->body->func->sym->name);
		t->next = se->body->func->trail;
	} else {
		t->text = arena_printf(a, "in function '%s' called here from "
				       "probe %s", f->sym->name,
				       sema_probe_name(se->prog, ctx));
	}
	c->trail = t;
	add_copy(se, c);
	GROW(se, ctx->copies, ctx->ncopies, ctx->copies_cap);
	ctx->copies[ctx->ncopies++] = c;
	GROW(se, se->prog->funcs, se->prog->nfuncs, se->prog->funcs_cap);
	se->prog->funcs[se->prog->nfuncs++] = c;
	return c;
}

/* ---- what a probe body reaches ----------------------------------------- */

struct reach {
	struct program *prog;
	void (*fn)(struct node *n, void *arg);
	void *arg;
	bool *seen;			/* by function index */
	int *pending, npending;
};

static void reach_node(struct node *n, void *arg)
{
	struct reach *r = arg;

	r->fn(n, r->arg);
	if (n->kind != N_CALL)
		return;
	struct script_func *g = find_func(r->prog, n->call.name,
					  ast_list_length(n->call.args),
					  n->loc.file);
	if (g && g->reads_context && !r->seen[g->index]) {
		r->seen[g->index] = true;
		r->pending[r->npending++] = g->index;
	}
}

/*
 * fn on every node of body and of the functions reading a probe's
 * context it calls, at any depth, each once: what the body's copies
 * will hold (a family deciding on a body's shape before the walks, as
 * kernel.function's bodies per point, looks through its calls too).
 */
void sema_visit_reached(struct sema *se, struct node *body,
			void (*fn)(struct node *n, void *arg), void *arg)
{
	struct program *prog = se->prog;
	size_t n = (size_t)prog->nfuncs + 1;
	struct reach r = { prog, fn, arg, xmalloc(n * sizeof(bool)),
			   xmalloc(n * sizeof(int)), 0 };

	memset(r.seen, 0, n * sizeof(bool));
	ast_visit(body, reach_node, &r);
	while (r.npending > 0) {
		struct script_func *g = prog->funcs[r.pending[--r.npending]];
		ast_visit(g->decl->func.body, reach_node, &r);
	}
	free(r.seen);
	free(r.pending);
}
