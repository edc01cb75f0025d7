// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: elaboration, the driver.
 *
 *   1. globals are collected from every file, then the probe aliases;
 *   2. each probe point is matched against the aliases and the probe
 *      families (points.c) and becomes derived probes;
 *   3. each probe body is walked (types.c): names bind to globals, locals,
 *      script functions (by name and arity) or built-in functions; a
 *      function becomes "used" (and is walked too) when something used
 *      calls it; a function reading a probe's context ($x ...) is
 *      copied for each probe body calling it, and the copy walked as
 *      that body's code (copies.c);
 *   4. types are inferred over the whole program, through parameters and
 *      return values, until nothing changes, then one last walk reports
 *      mismatches and what stayed unknown; each family then checks its
 *      probes (its finish hook);
 *   5. global accesses are propagated up the call graph (for the probes'
 *      locks) and the deepest call chain is measured (-1: recursion).
 *
 * Pass 2 only annotates the parsed nodes; the nodes it makes are clones
 * for alias expansions, point conditions and functions' copies, and the
 * rewrites of $$parms-like values into sprintf calls.
 */
#include "semantic/backend.h"
#include "semantic/elaborate.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "semantic/uses.h"
#include "lib/deep.h"
#include "lib/strbuf.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- driver ----------------------------------------------------------- */

void declare_global(struct sema *se, struct node *d)
{
	struct program *prog = se->prog;
	struct symbol *old = find_global(prog, d->global.name, d->loc.file);

	/* a private name may shadow another file's */
	if (old && (!d->global.is_private ||
		    old->decl->loc.file == d->loc.file)) {
		char where[256];
		format_loc(se->s, old->loc, where, sizeof(where));
		diag_error(se->s, d->loc, "global '%s' is already "
			   "declared at %s", d->global.name, where);
		return;
	}
	struct symbol *sym = new_symbol(se, d->global.name, SYM_GLOBAL, d->loc);
	sym->decl = d;
	sym->index = prog->nglobals;
	/* private globals of one name in two files: the later one's C name
	 * starts with its index (no script name starts with a digit) */
	sym->cname = d->global.name;
	d->sym = sym;
	if (d->global.init) {
		sym->type = d->global.init->kind == N_STRING ? TY_STRING :
			    TY_LONG;
		sym->type_loc = d->global.init->loc;
	}
	GROW(se, prog->globals, prog->nglobals, prog->globals_cap);
	prog->globals[prog->nglobals++] = sym;
	index_global(se, prog);
	if (global_name_taken(prog, sym))
		sym->cname = arena_printf(&se->s->arena, "%d_%s", sym->index,
					  d->global.name);
}

static void collect_globals(struct sema *se)
{
	struct program *prog = se->prog;

	for (int f = 0; f < prog->nfiles; f++)
		ast_foreach(d, prog->files[f]->decls)
			if (d->kind == N_GLOBAL)
				declare_global(se, d);
}

static void walk_all(struct sema *se)
{
	struct program *prog = se->prog;

	for (int i = 0; i < prog->nbodies; i++) {
		se->body = prog->bodies[i];
		se->loop_depth = 0;
		walk_stmt(se, se->body->probe->probe.body);
	}
	/* functions become used while walking: the array may grow in use
	 * (copies.c adds copies too) */
	for (int i = 0; i < prog->nfuncs; i++) {
		struct script_func *f = prog->funcs[i];
		if (!f->used)
			continue;
		se->body = f->scope;
		se->loop_depth = 0;
		se->s->trail = f->trail;	/* a copy: for which probe */
		if (!f->embedded)
			walk_stmt(se, f->decl->func.body);
		else
			note_pragmas(se, f->decl->func.body->embedded.code,
				     f->decl->func.body);
		f->walked = true;
	}
	se->s->trail = NULL;
}

/*
 * A script function for declaration d, its parameters as its first
 * locals, numbered as the next of prog->funcs (which the caller appends
 * it to); NULL when a parameter is repeated (reported).
 */
struct script_func *sema_new_function(struct sema *se, struct node *d)
{
	struct program *prog = se->prog;
	int nparams = ast_list_length(d->func.params);
	struct script_func *f = arena_alloc(&se->s->arena, sizeof(*f));
	struct probe_body *scope = arena_alloc(&se->s->arena, sizeof(*scope));
	struct symbol *sym = new_symbol(se, d->func.name, SYM_FUNCTION, d->loc);

	f->decl = d;
	f->sym = sym;
	f->scope = scope;
	f->nparams = nparams;
	f->index = prog->nfuncs;
	sym->func = f;
	sym->decl = d;
	sym->nargs = nparams;
	d->sym = sym;
	if (d->func.decl_type != TY_UNKNOWN) {
		sym->type = d->func.decl_type;
		sym->type_loc = d->loc;
	}
	/* embedded C returns a value exactly when the signature says so */
	f->embedded = d->func.body->kind == N_EMBEDDED;
	f->returns_value = f->embedded && d->func.decl_type != TY_UNKNOWN;
	scope->probe = d;
	scope->func = f;
	scope->index = f->index;
	ast_foreach(p, d->func.params) {
		if (find_local(scope, p->param.name)) {
			diag_error(se->s, p->loc, "duplicate parameter '%s'",
				   p->param.name);
			continue;
		}
		struct symbol *ps = add_local_to(se, scope, p->param.name,
						 p->loc);
		p->sym = ps;
		ps->written = true;
		if (p->param.decl_type != TY_UNKNOWN) {
			ps->type = p->param.decl_type;
			ps->type_loc = p->loc;
		}
	}
	return scope->nlocals == nparams ? f : NULL;
}

static void collect_function(struct sema *se, struct node *d)
{
	struct program *prog = se->prog;
	int nparams = ast_list_length(d->func.params);
	struct script_func *old = find_func(prog, d->func.name, nparams,
					    d->loc.file);

	if (old && (!d->func.is_private || old->decl->loc.file == d->loc.file)) {
		char where[256];
		format_loc(se->s, old->decl->loc, where, sizeof(where));
		diag_error(se->s, d->loc, "function '%s' with %d parameter%s is "
			   "already declared at %s", d->func.name, nparams,
			   nparams == 1 ? "" : "s", where);
		return;
	}
	struct script_func *f = sema_new_function(se, d);
	if (!f)
		return;
	GROW(se, prog->funcs, prog->nfuncs, prog->funcs_cap);
	prog->funcs[prog->nfuncs++] = f;
	index_func(se, prog);
}


/*
 * A local of the user's script that is read and never written: always 0
 * or "", as SystemTap warns. Most often a global forgotten: the name is
 * assigned in another probe, whose locals are its own.
 */
static void warn_never_assigned(struct sema *se, struct probe_body *body,
				struct symbol *l, int index)
{
	const struct srcfile *f = session_file(se->s, l->loc.file);
	const char *other = NULL;

	if (l->written || !l->read || !f || f->privileged ||
	    (body->func && index < body->func->nparams))
		return;
	for (int b = 0; b < se->prog->nbodies && !other; b++) {
		struct probe_body *ob = se->prog->bodies[b];
		struct symbol *same = ob == body ? NULL : find_local(ob, l->name);
		if (same && same->written)
			other = same->name;
	}
	if (other)
		diag_warning(se->s, l->loc, "never-assigned local variable '%s' "
			     "(another probe assigns its own '%s': each probe "
			     "has its own locals; to share it, declare "
			     "'global %s')", l->name, l->name, l->name);
	else
		diag_warning(se->s, l->loc, "never-assigned local variable '%s'",
			     l->name);
}

/* Is global g given a value when the module loads (-G NAME=VALUE)? */
static bool set_at_load(const struct session *s, const struct symbol *g)
{
	for (int i = 0; i < s->nglobal_settings; i++)
		if (!strcmp(s->global_settings[i].name, g->name))
			return true;
	return false;
}

/*
 * Globals a probe touches through the functions it calls, and the depth
 * of the deepest call chain (-1 when some function is recursive).
 */
static int call_depth(struct script_func *f, int *state)
{
	/* state: 0 unvisited, -1 on the DFS stack, else depth + 1 */
	if (state[f->index] == -1)
		return -1;
	if (state[f->index] > 0)
		return state[f->index] - 1;
	state[f->index] = -1;
	int best = 0;
	for (int i = 0; i < f->scope->ncallees; i++) {
		int d = call_depth(f->scope->callees[i], state);
		if (d < 0) {
			state[f->index] = 0;
			return -1;
		}
		if (d > best)
			best = d;
	}
	state[f->index] = best + 2;
	return best + 1;
}

/*
 * SystemTap 4.8's MAXNESTING for a recursive program (translate.cxx's
 * recursion_info): from each function's body, every call chain, a callee
 * counted even when it is already on the chain (then the walk stops
 * there); the longest, plus 1, plus 10 for the recursion. The walk is
 * SystemTap's, exponential in the worst case, so it has a budget.
 */
static void nest_walk(const struct script_func *f, bool *on_chain, int depth,
		      int *max, long *budget)
{
	for (int i = 0; i < f->scope->ncallees && *budget > 0; i++) {
		const struct script_func *g = f->scope->callees[i];

		(*budget)--;
		if (depth + 1 > *max)
			*max = depth + 1;
		if (on_chain[g->index])
			continue;
		on_chain[g->index] = true;
		nest_walk(g, on_chain, depth + 1, max, budget);
		on_chain[g->index] = false;
	}
}

static int recursive_nesting(const struct program *prog)
{
	bool *on_chain = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(bool));
	long budget = 1L << 20;
	int max = 0;

	memset(on_chain, 0, ((size_t)prog->nfuncs + 1) * sizeof(bool));
	for (int i = 0; i < prog->nfuncs; i++)
		if (prog->funcs[i]->used)
			nest_walk(prog->funcs[i], on_chain, 0, &max, &budget);
	free(on_chain);
	return max + 1 + 10;
}

static void propagate_calls(struct sema *se)
{
	struct program *prog = se->prog;
	bool changed = true;

	while (changed) {
		changed = false;
		for (int i = 0; i < prog->nbodies + prog->nfuncs; i++) {
			struct probe_body *b = i < prog->nbodies ?
				prog->bodies[i] : prog->funcs[i - prog->nbodies]->scope;
			for (int j = 0; j < b->ncallees; j++) {
				struct probe_body *cb = b->callees[j]->scope;
				if (cb->reads_globals && !b->reads_globals)
					b->reads_globals = changed = true;
				if (cb->writes_globals && !b->writes_globals)
					b->writes_globals = changed = true;
			}
		}
	}
	int *state = xmalloc(((size_t)prog->nfuncs + 1) * sizeof(int));
	memset(state, 0, ((size_t)prog->nfuncs + 1) * sizeof(int));
	prog->max_nesting = 0;
	for (int i = 0; i < prog->nbodies && prog->max_nesting >= 0; i++) {
		struct probe_body *b = prog->bodies[i];
		for (int j = 0; j < b->ncallees; j++) {
			int d = call_depth(b->callees[j], state);
			if (d < 0) {
				prog->max_nesting = -1;
				break;
			}
			if (d + 1 > prog->max_nesting)
				prog->max_nesting = d + 1;
		}
	}
	free(state);
	if (prog->max_nesting < 0)
		prog->recursive_nesting = recursive_nesting(prog);
}


static void check_unresolved(struct sema *se)
{
	struct program *prog = se->prog;

	for (int i = 0; i < prog->nglobals; i++) {
		struct symbol *g = prog->globals[i];
		const struct srcfile *gf = session_file(se->s, g->loc.file);
		/* an unused global is dropped quietly (elide.c), as 4.8 does */
		if (g->read && !g->written && !(gf && gf->privileged) &&
			 !g->decl->global.init && !set_at_load(se->s, g))
			diag_warning(se->s, g->decl->loc, "never-assigned global "
				     "variable '%s'", g->name);
		if (g->type == TY_UNKNOWN && (g->read || g->written))
			diag_error(se->s, g->loc, "unresolved type for global "
				   "'%s'", g->name);
		for (int k = 0; k < g->nkeys; k++)
			if (g->key_types[k] == TY_UNKNOWN)
				diag_error(se->s, g->loc, "unresolved type for "
					   "index %d of array '%s'", k + 1,
					   g->name);
	}
	for (int b = 0; b < prog->nbodies + prog->nfuncs; b++) {
		struct probe_body *body;
		if (b < prog->nbodies) {
			body = prog->bodies[b];
		} else {
			struct script_func *f = prog->funcs[b - prog->nbodies];
			if (!f->used)
				continue;
			body = f->scope;
			if (f->returns_value && f->sym->type == TY_UNKNOWN)
				diag_error(se->s, f->decl->loc, "unresolved "
					   "return type for function '%s'",
					   f->sym->name);
		}
		for (int i = 0; i < body->nlocals; i++) {
			struct symbol *l = body->locals[i];
			const char *hint = l->type == TY_UNKNOWN ?
				suggest_variable(se, body, l) : NULL;
			if (hint)
				diag_error(se->s, l->loc, "unresolved type for "
					   "'%s' (it is never assigned a value; "
					   "did you mean '%s'?)", l->name, hint);
			else if (l->type == TY_UNKNOWN)
				diag_error(se->s, l->loc, "unresolved type for "
					   "'%s' (it is never assigned a value)",
					   l->name);
			else
				warn_never_assigned(se, body, l, i);
		}
	}
}

/*
 * SystemTap's display of written-only globals (display.c): synthetic end
 * probes, parsed from text under the script's name and typed like the
 * script's own probes (after them, so they run after its end probes).
 */
static void add_global_display(struct sema *se)
{
	struct program *prog = se->prog;
	int user_file = prog->files[0]->file;
	char *text = sema_display_source(prog, user_file);
	int first = prog->nbodies;

	if (!text)
		return;
	struct ast_file *af = parse_string(se->s, session_file(se->s,
					   user_file)->name, text, false);
	free(text);
	ast_foreach(d, af->decls)
		if (d->kind == N_PROBE)
			add_probe_body(se, d);
	se->report = false;
	for (int round = 0; round < 20; round++) {
		se->changed = false;
		for (int i = first; i < prog->nbodies; i++) {
			se->body = prog->bodies[i];
			se->loop_depth = 0;
			walk_stmt(se, se->body->probe->probe.body);
		}
		if (!se->changed)
			break;
	}
	se->report = true;
	for (int i = first; i < prog->nbodies; i++) {
		se->body = prog->bodies[i];
		se->loop_depth = 0;
		walk_stmt(se, se->body->probe->probe.body);
	}
}

/* Walk everything until no type is learned (at most 20 rounds). */
static void infer_until_stable(struct sema *se)
{
	for (int round = 0; round < 20; round++) {
		se->changed = false;
		walk_all(se);
		if (!se->changed)
			break;
	}
}

/*
 * @json_print(...) (json.c), once the types are known: each becomes a
 * call of a synthetic function __json_print_N that prints the global,
 * parsed from text under the script's name with the call's location
 * (private globals stay visible, errors point at the call).
 */
struct json_lowering {
	struct sema *se;
	bool any;
};

/* the call's location; its histograms print as JSON (runtime/json.c) */
static void mark_lowered(struct node *n, void *arg)
{
	n->loc = *(const struct srcloc *)arg;
	if (n->kind == N_HIST)
		n->stat.json = true;
}

static void lower_json_print(struct node *n, void *arg)
{
	struct json_lowering *jl = arg;
	struct sema *se = jl->se;
	const char *fname;
	char *text;

	if (n->kind != N_ATFUNC || strcmp(n->call.name, "@json_print"))
		return;
	fname = arena_printf(&se->s->arena, "__json_print_%d",
			     ++se->json_functions);
	text = json_print_function(se, n, fname);
	if (!text)
		return;
	struct ast_file *af = parse_string(se->s, session_file(se->s,
					   n->loc.file)->name, text, false);
	free(text);
	ast_visit(af->decls, mark_lowered, &n->loc);
	ast_foreach(d, af->decls)
		if (d->kind == N_FUNCTION)
			collect_function(se, d);
	n->kind = N_CALL;
	n->call.name = fname;
	n->call.args = NULL;
	n->sym = NULL;
	n->type = TY_UNKNOWN;
	jl->any = true;
}

static bool lower_json(struct sema *se)
{
	struct program *prog = se->prog;
	struct json_lowering jl = { se, false };
	int nfuncs = prog->nfuncs;

	for (int i = 0; i < prog->nbodies; i++)
		ast_visit(prog->bodies[i]->probe->probe.body, lower_json_print,
			  &jl);
	for (int i = 0; i < nfuncs; i++)
		if (prog->funcs[i]->used && !prog->funcs[i]->embedded)
			ast_visit(prog->funcs[i]->decl->func.body,
				  lower_json_print, &jl);
	return jl.any;
}

struct sema_job {
	struct session *s;
	struct ast_file **files;
	int nfiles;
	struct program *prog;
	int errors;
};

static int sema_run_deep(struct session *s, struct ast_file **files,
			 int nfiles, struct program *prog);

static void sema_job_run(void *arg)
{
	struct sema_job *job = arg;

	job->errors = sema_run_deep(job->s, job->files, job->nfiles, job->prog);
}

/* The walks recurse a level per nesting level: on a deep stack. */
int sema_run(struct session *s, struct ast_file **files, int nfiles,
	     struct program *prog)
{
	struct sema_job job = { s, files, nfiles, prog, 0 };

	deep_call(sema_job_run, &job);
	return job.errors;
}

static int sema_run_deep(struct session *s, struct ast_file **files,
			 int nfiles, struct program *prog)
{
	struct sema se = { .s = s, .prog = prog };
	int errors_before = s->nerrors;

	memset(prog, 0, sizeof(*prog));
	prog->s = s;
	prog->files = files;
	prog->nfiles = nfiles;
	collect_globals(&se);
	collect_aliases(&se);
	/* the functions first: a family expanding a point may look at what
	 * the body calls (copies.c) */
	for (int f = 0; f < nfiles; f++) {
		ast_foreach(d, files[f]->decls) {
			if (d->kind == N_FUNCTION)
				collect_function(&se, d);
			else if (d->kind == N_EMBEDDED) {
				GROW(&se, prog->embeds, prog->nembeds,
				     prog->embeds_cap);
				prog->embeds[prog->nembeds++] = d;
			}
		}
	}
	sema_mark_context_functions(&se);
	for (int f = 0; f < nfiles; f++)
		ast_foreach(d, files[f]->decls)
			if (d->kind == N_PROBE && !d->probe.alias)
				add_probe_body(&se, d);	/* aliases: when used */
	/* the catalogs expansion needed: the function catalog is large */
	if (s->target) {
		target_release_tracepoints(s->target);
		target_release_functions(s->target);
	}
	if (s->nerrors > errors_before && !s->all_functions)
		goto out;	/* the expansion may have loaded BTF ($return) */
	for (int i = 0; s->all_functions && i < prog->nfuncs; i++)
		prog->funcs[i]->used = true;

	/* Infer until nothing changes, then report on a last walk. */
	infer_until_stable(&se);
	if (lower_json(&se))
		infer_until_stable(&se);
	se.report = true;
	walk_all(&se);
	for (int f = 0; probe_families[f]; f++)
		if (probe_families[f]->finish)
			probe_families[f]->finish(&se);
	if (s->nerrors == errors_before)
		check_unresolved(&se);
	if (s->nerrors == errors_before && !s->all_functions && nfiles)
		add_global_display(&se);
	propagate_calls(&se);
	if (s->nerrors == errors_before && !s->unoptimized && !s->all_functions)
		sema_elide(s, prog);
	if (s->nerrors == errors_before && prog->nprobes == 0 &&
	    !s->all_functions)
		diag_plain_error(s, "no probes found");
	/* what the backends attach: each family describes its probes */
	for (int i = 0; s->nerrors == errors_before && i < prog->nprobes; i++)
		if (prog->probes[i]->family->describe)
			prog->probes[i]->family->describe(prog,
							  prog->probes[i]);
	/* the backend judges each probe by its attach description, after
	 * elision: an alias's unused variables (a syscall's argstr) are
	 * gone, as they are from the module's C */
	if (s->nerrors == errors_before)
		backend_check(s, prog);	/* what the chosen backend cannot run */
	/* what each body uses at run time, for the backends (uses.h) */
	if (s->nerrors == errors_before)
		sema_find_uses(prog);
out:
	return s->nerrors - errors_before;
}

/*
 * Brings body_probes()'s index up to date: the probes appended since, or
 * all of them again after a compaction. The index is a cache: prog and
 * its bodies are the caller's, const only in the interface.
 */
static void index_probes(struct program *prog)
{
	int from = prog->probes_indexed;

	if (from > prog->nprobes ||
	    (from && prog->probes[from - 1] != prog->last_indexed)) {
		prog->probes_gen++;
		from = 0;
	}
	for (int i = from; i < prog->nprobes; i++) {
		struct probe_body *b = prog->probes[i]->body;

		if (b->derived_gen != prog->probes_gen) {
			b->derived_gen = prog->probes_gen;
			b->nderived = 0;
		}
		if (b->nderived == b->derived_cap) {
			int cap = b->derived_cap ? 2 * b->derived_cap : 4;
			const struct derived_probe **d = arena_alloc(
				&prog->s->arena, (size_t)cap * sizeof(*d));

			if (b->nderived)
				memcpy(d, b->derived,
				       (size_t)b->nderived * sizeof(*d));
			b->derived = d;
			b->derived_cap = cap;
		}
		b->derived[b->nderived++] = prog->probes[i];
	}
	prog->probes_indexed = prog->nprobes;
	prog->last_indexed = prog->nprobes ? prog->probes[prog->nprobes - 1] :
			     NULL;
}

const struct derived_probe *const *body_probes(const struct program *prog,
					       const struct probe_body *b,
					       int *n)
{
	if (prog->probes_indexed != prog->nprobes ||
	    (prog->nprobes && prog->probes[prog->nprobes - 1] !=
	     prog->last_indexed))
		index_probes((struct program *)prog);
	if (!b || b->derived_gen != prog->probes_gen) {
		*n = 0;
		return NULL;
	}
	*n = b->nderived;
	return b->derived;
}

const struct derived_probe *body_first_probe(const struct program *prog,
					     const struct probe_body *b)
{
	int n;
	const struct derived_probe *const *d = body_probes(prog, b, &n);

	return n ? d[0] : NULL;
}

void **program_family_data(struct program *prog, const struct probe_family *f)
{
	struct family_data *grown;

	for (int i = 0; i < prog->nfamily_data; i++)
		if (prog->family_data[i].family == f)
			return &prog->family_data[i].data;
	grown = arena_alloc(&prog->s->arena, (size_t)(prog->nfamily_data + 1) *
			    sizeof(*grown));
	if (prog->nfamily_data)
		memcpy(grown, prog->family_data, (size_t)prog->nfamily_data *
		       sizeof(*grown));
	grown[prog->nfamily_data].family = f;
	prog->family_data = grown;
	return &prog->family_data[prog->nfamily_data++].data;
}

void *program_family_get(const struct program *prog,
			 const struct probe_family *f)
{
	for (int i = 0; i < prog->nfamily_data; i++)
		if (prog->family_data[i].family == f)
			return prog->family_data[i].data;
	return NULL;
}

bool stmt_charges_action(const struct node *n)
{
	if (n->kind == N_NULL_STMT)
		return false;
	if (n->kind != N_BLOCK)
		return true;
	ast_foreach(st, n->block.stmts)
		if (stmt_charges_action(st))
			return true;
	return false;
}
