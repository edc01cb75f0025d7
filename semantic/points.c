// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: probe points and aliases. A point names an alias (expanded
 * into probes of its own, with the alias body before or after the
 * script's, recursively, with wildcards, suffixes, '?', '!' and
 * 'if (cond)') or a family (struct probe_family: its derive hook, then
 * its expand hook for wildcards over a kernel catalog). Unknown points
 * get a suggestion among the families and aliases.
 */
#include "semantic/elaborate.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "lib/strbuf.h"

#include <ctype.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- probe points ----------------------------------------------------- */

static int cstr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void sema_dump_probe_types(FILE *out)
{
	const char **lines = NULL;
	size_t n = 0, cap = 0;

	for (int f = 0; probe_families[f]; f++)
		for (const char *const *t = probe_families[f]->probe_types;
		     t && *t; t++)
			VEC_PUSH(lines, n, cap, *t);
	if (n)
		qsort(lines, n, sizeof(lines[0]), cstr_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\n", lines[i]);
	free(lines);
}

struct node *comp_at(struct node *comps, int i)
{
	for (; comps && i > 0; i--)
		comps = comps->next;
	return comps;
}

bool comp_is(const struct node *c, const char *name)
{
	return c && strcmp(c->comp.name, name) == 0;
}

/* Report a probe point error unless the point is optional ('?'). */
bool point_error(struct sema *se, struct node *point, struct node *at,
			const char *msg)
{
	if (point->point.optional || se->optional)
		return false;
	diag_error(se->s, at ? at->loc : point->loc, "%s", msg);
	return false;
}

char *point_string(struct sema *se, struct node *point)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct node copy = *point;

	copy.point.optional = copy.point.sufficient = false;
	copy.point.cond = NULL;
	ast_unparse_point(f, &copy);
	fclose(f);
	char *s = arena_strdup(&se->s->arena, buf);
	free(buf);
	return s;
}

/* A global's name as SystemTap's pass 2 prints it: __global_NAME, or
 * __private_FILE_NAME (FILE: the file's name, each byte not a letter or a
 * digit made '_'). */
static void systemtap_global_name(struct node *n, void *arg)
{
	const struct program *prog = arg;
	const struct symbol *g;

	if (n->kind != N_VAR ||
	    !(g = find_global(prog, n->var.name, n->loc.file)))
		return;
	if (!g->decl->global.is_private) {
		n->var.name = arena_printf(&prog->s->arena, "__global_%s",
					   n->var.name);
		return;
	}
	const struct srcfile *f = session_file(prog->s, g->decl->loc.file);
	char *file = arena_strdup(&prog->s->arena, f ? f->name : "");
	for (char *c = file; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	n->var.name = arena_printf(&prog->s->arena, "__private_%s_%s", file,
				   n->var.name);
}

const char *sema_point_text(const struct program *prog,
			    const struct node *point)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct node copy = *point;

	if (point->point.cond) {
		copy.point.cond = ast_clone(prog->s, point->point.cond);
		ast_visit(copy.point.cond, systemtap_global_name,
			  (void *)prog);
	}
	ast_unparse_point(f, &copy);
	fclose(f);
	char *s = arena_strdup(&prog->s->arena, buf);
	free(buf);
	return s;
}

/* cond as SystemTap prints it in a derived probe's name. */
static const char *cond_text(struct sema *se, const struct node *cond)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct node *copy = ast_clone(se->s, cond);

	ast_visit(copy, systemtap_global_name, se->prog);
	ast_unparse_expr(f, copy);
	fclose(f);
	char *s = arena_strdup(&se->s->arena, buf);
	free(buf);
	return s;
}

static bool in_list(const char *const *list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

static bool in_roots(const struct probe_family *f, const char *name)
{
	for (const char *const *r = f->roots; *r; r++)
		if (!strcmp(*r, name))
			return true;
	return false;
}

/*
 * For an unknown point: the closest family (to its first component) or
 * alias (to its dotted names), loaded or in the library.
 */
static const char *suggest_point(struct sema *se, struct node *point)
{
	struct session *s = se->s;
	int nf = 0;
	for (int f = 0; probe_families[f]; f++)
		for (const char *const *r = probe_families[f]->roots; *r; r++)
			nf++;
	const char **names = xmalloc((size_t)(nf + se->naliases +
					      s->nlibrary_names + 1) *
				     sizeof(*names));
	struct strbuf dotted = { 0 };
	int n = 0;

	ast_foreach(c, point->point.comps)
		sb_printf(&dotted, "%s%s", c == point->point.comps ? "" : ".",
			  c->comp.name);
	for (int f = 0; probe_families[f]; f++)
		for (const char *const *r = probe_families[f]->roots; *r; r++)
			if (!in_list(names, n, *r))
				names[n++] = *r;
	const char *hint = suggest(point->point.comps->comp.name, names, n);
	int best = hint ? edit_distance(point->point.comps->comp.name, hint) : 3;
	n = 0;
	for (int i = 0; i < se->naliases; i++)
		names[n++] = se->aliases[i].key;
	for (int i = 0; i < s->nlibrary_names; i++)
		if (!strncmp(s->library_names[i], "a:", 2))
			names[n++] = s->library_names[i] + 2;
	const char *alias = suggest(sb_str(&dotted), names, n);
	if (alias && edit_distance(sb_str(&dotted), alias) < best)
		hint = alias;
	sb_free(&dotted);
	free(names);
	return hint;
}

/* ---- deriving a point through its family ----------------------------- */

bool is_str_arg(const struct node *c)
{
	return c && c->comp.arg && c->comp.arg->kind == N_STRING;
}

bool is_num_arg(const struct node *c)
{
	return c && c->comp.arg && c->comp.arg->kind == N_NUMBER;
}

/*
 * Match one point against the families that own its first component and
 * derive it; NULL if none matches (reported unless the point is optional).
 */
static struct derived_probe *derive_point(struct sema *se, struct node *point)
{
	struct node *c0 = point->point.comps;
	const char *name = c0->comp.name;
	const char *pp;

	ast_foreach(c, c0)
		if (strchr(c->comp.name, '*')) {
			point_error(se, point, c, arena_printf(&se->s->arena,
				    "unknown probe point '%s' (no alias or "
				    "family matches%s)", se->nexpanding ?
				    se->list_name : point_string(se, point),
				    se->nexpanding ? arena_printf(&se->s->arena,
				    ": it expands to '%s'", point_string(se,
				    point)) : ""));
			return NULL;
		}
	pp = point_string(se, point);
	for (int f = 0; probe_families[f]; f++) {
		const struct probe_family *fam = probe_families[f];
		if (!in_roots(fam, name))
			continue;
		struct derived_probe *dp = arena_alloc(&se->s->arena,
						       fam->point_size);
		dp->point = point;
		dp->pp = pp;
		int r = fam->derive(se, point, dp);
		if (r >= 0) {
			if (!dp->family)
				dp->family = fam;
			return r ? dp : NULL;
		}
	}
	char msg[256];
	const char *hint = suggest_point(se, point);
	if (hint && strcmp(hint, name))
		snprintf(msg, sizeof(msg), "unknown probe point '%s' (did you "
			 "mean '%s'?)", pp, hint);
	else
		snprintf(msg, sizeof(msg), "unknown probe point '%s'", pp);
	point_error(se, point, c0, msg);
	return NULL;
}

/* ---- probe aliases --------------------------------------------------- */

bool sema_is_family(const char *name)
{
	for (int f = 0; probe_families[f]; f++)
		if (in_roots(probe_families[f], name))
			return true;
	return false;
}

bool sema_alias_root(const char *name)
{
	for (int f = 0; probe_families[f]; f++)
		if (in_roots(probe_families[f], name) &&
		    !probe_families[f]->tapset_aliases)
			return false;
	return true;
}

struct derived_probe *sema_clone_derived(struct sema *se,
					 const struct derived_probe *dp)
{
	struct derived_probe *d = arena_alloc(&se->s->arena,
					      dp->family->point_size);

	memcpy(d, dp, dp->family->point_size);
	return d;
}

void sema_add_derived(struct sema *se, struct derived_probe *dp,
		      struct probe_body *b)
{
	dp->body = b;
	GROW(se, se->prog->probes, se->prog->nprobes, se->prog->probes_cap);
	se->prog->probes[se->prog->nprobes++] = dp;
}

struct probe_body *sema_own_body(struct sema *se, struct probe_body *b)
{
	struct program *prog = se->prog;
	struct probe_body *c = arena_alloc(&se->s->arena, sizeof(*c));

	c->probe = ast_clone_node(se->s, b->probe);
	c->user_probe = b->user_probe;
	c->via = b->via;
	c->cond = b->cond;
	c->list_name = b->list_name;
	c->per_point = b->per_point = true;
	c->index = prog->nbodies;
	GROW(se, prog->bodies, prog->nbodies, prog->bodies_cap);
	prog->bodies[prog->nbodies++] = c;
	return c;
}

static void find_defined(struct node *n, void *arg)
{
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined"))
		*(bool *)arg = true;
}

bool sema_asks_defined(struct sema *se, struct node *body)
{
	bool asks = false;

	sema_visit_reached(se, body, find_defined, &asks);
	return asks;
}

static bool same_literal(const struct node *a, const struct node *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	if (a->kind == N_NUMBER)
		return a->num.value == b->num.value;
	return a->kind == N_STRING && !strcmp(a->str.value, b->str.value);
}

/* Does component c of a point (maybe with '*') match alias component a? */
static bool comp_matches(const struct node *c, const struct node *a)
{
	if (fnmatch(c->comp.name, a->comp.name, 0))
		return false;
	return same_literal(c->comp.arg, a->comp.arg);
}

/*
 * How many leading components of the point match the alias name, or -1.
 * A whole match, or the alias name as a prefix (the rest is a suffix the
 * expansion appends to each of the alias's points). A '**' component
 * matches one or more alias components.
 */
static int alias_prefix(const struct node *pc, const struct node *ac)
{
	int used = 0;

	for (; pc && ac; pc = pc->next, ac = ac->next, used++) {
		if (!strcmp(pc->comp.name, "**") && !pc->comp.arg) {
			if (!pc->next)
				return used + 1;	/* eats the rest */
			for (const struct node *a = ac; a; a = a->next) {
				int r = alias_prefix(pc->next, a);
				if (r >= 0)
					return used + 1 + r;
			}
			return -1;
		}
		if (!comp_matches(pc, ac))
			return -1;
	}
	return ac ? -1 : used;
}

bool point_has_wildcard(const struct node *point)
{
	ast_foreach(c, point->point.comps)
		if (strchr(c->comp.name, '*'))
			return true;
	return false;
}

/* Does a whole match of the point extend alias a's name (a.b.c of a.b)? */
static bool alias_extended(struct sema *se, const struct node *point,
			   const struct alias *a)
{
	int ncomps = ast_list_length(point->point.comps);

	for (int i = 0; i < se->naliases; i++) {
		const struct alias *b = &se->aliases[i];
		const struct node *ac = a->name->point.comps;
		const struct node *bc = b->name->point.comps;

		if (b == a ||
		    alias_prefix(point->point.comps, bc) != ncomps)
			continue;
		for (; ac && bc; ac = ac->next, bc = bc->next)
			if (strcmp(ac->comp.name, bc->comp.name) ||
			    !same_literal(ac->comp.arg, bc->comp.arg))
				break;
		if (!ac && bc)
			return true;
	}
	return false;
}

/* "name = p1, p2" for the -p2 chain of an expansion. */
static char *alias_text(struct sema *se, struct node *name, struct node *decl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	/* as SystemTap shows it: its conditions name globals as written */
	ast_unparse_point(f, name);
	fputs(decl->probe.alias == '+' ? " += " : " = ", f);
	ast_foreach(p, decl->probe.points) {
		if (p != decl->probe.points)
			fputs(", ", f);
		ast_unparse_point(f, p);
	}
	fclose(f);
	char *s = arena_strdup(&se->s->arena, buf);
	free(buf);
	return s;
}

static struct node *block_of(struct sema *se, struct srcloc loc,
			     struct node *a, struct node *b, struct node *c)
{
	struct node *blk = ast_new(se->s, N_BLOCK, loc);

	blk->block.stmts = ast_append(ast_append(a, b), c);
	return blk;
}

static int add_probe(struct sema *se, struct node *probe, struct node *user,
		     const char *via);

/* ---- @entry(...) through a .return alias ------------------------------ */

struct entry_nodes {
	struct node *v[64];
	int n;
};

static void find_entry(struct node *n, void *arg)
{
	struct entry_nodes *e = arg;

	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@entry") &&
	    n->call.args && e->n < 64)
		e->v[e->n++] = n;
}

/* In the entry alias, $name is the parameter the alias names name. */
static void target_to_local(struct node *n, void *arg)
{
	(void)arg;
	if (n->kind == N_TARGET && !n->target.base && n->target.name[1] &&
	    !strchr(n->target.name + 1, '$')) {
		const char *name = n->target.name + 1;
		n->kind = N_VAR;
		n->var.name = name;
	}
}

/* The first statement of a parsed probe body, and that probe. */
static struct node *parse_probe(struct sema *se, const char *text,
				struct node **probe)
{
	struct ast_file *af = parse_string(se->s, "<entry>", text, true);

	*probe = NULL;
	ast_foreach(d, af ? af->decls : NULL) {
		if (d->kind == N_GLOBAL)
			declare_global(se, d);
		else if (d->kind == N_PROBE)
			*probe = d;
	}
	return *probe ? (*probe)->probe.body->block.stmts : NULL;
}

/*
 * @entry(EXPR) in a probe on alias NAME.return whose probes have no
 * return of their own (the syscall family on raw_syscalls:sys_exit, a
 * tracepoint pair): as SystemTap's kretprobe-based aliases keep it, EXPR
 * is taken when the same thread enters: a probe on alias NAME stores it
 * in global __entry_K[tid()], and this body takes it out first (a thread
 * is in one such call at a time, so one slot per thread is nesting-safe;
 * a return with no entry seen gives 0 or ""). In EXPR, $name is the
 * entry alias's variable name (its parameter: syscall.read's fd). Done
 * at the innermost such alias (nd_syscall.read.return is
 * syscall.read.return's), whose body the probes run.
 */
static void entry_through_alias(struct sema *se, const struct alias *a,
				const struct node *np, struct node *mine,
				int first_probe)
{
	size_t len = strlen(a->key);
	struct entry_nodes found = { .n = 0 };
	const struct alias *entry = NULL;
	bool native = first_probe == se->prog->nprobes;

	if (len < 8 || strcmp(a->key + len - 7, ".return"))
		return;
	/* only where np's body is the probes' own (the innermost alias: an
	 * outer one's body was copied into the inner one's) */
	for (int i = first_probe; i < se->prog->nprobes; i++)
		native |= se->prog->probes[i]->family->has_return ||
			  se->prog->probes[i]->body->probe != np;
	if (native)
		return;
	ast_visit(mine, find_entry, &found);
	if (!found.n)
		return;
	for (int i = 0; i < se->naliases && !entry; i++)
		if (strlen(se->aliases[i].key) == len - 7 &&
		    !strncmp(se->aliases[i].key, a->key, len - 7))
			entry = &se->aliases[i];
	if (!entry)
		return;
	for (int k = 0; k < found.n; k++) {
		struct node *n = found.v[k], *probe, *st;
		int slot = se->entry_slots++;
		char *text = arena_printf(&se->s->arena,
					  "global __entry_%d\n"
					  "probe %s { __entry_%d[tid()] = 0 }\n",
					  slot, entry->key, slot);
		st = parse_probe(se, text, &probe);
		if (!st || st->kind != N_EXPR_STMT ||
		    st->stmt.expr->kind != N_ASSIGN)
			return;
		struct node *e = ast_clone(se->s, n->call.args);
		ast_visit(e, target_to_local, NULL);
		st->stmt.expr->binary.rhs = e;
		const char *cond = se->cond;	/* the store is unguarded */
		se->cond = NULL;
		add_probe(se, probe, probe, "");
		se->cond = cond;
		/* here: the value out of its slot, before the body runs */
		text = arena_printf(&se->s->arena,
				    "probe never { __entry_%d_v = __entry_%d[tid()]\n"
				    "delete __entry_%d[tid()] }\n", slot, slot,
				    slot);
		st = parse_probe(se, text, &probe);
		if (!st)
			return;
		if (mine->kind == N_BLOCK)
			mine->block.stmts = ast_append(st, mine->block.stmts);
		n->kind = N_VAR;
		n->var.name = arena_printf(&se->s->arena, "__entry_%d_v", slot);
	}
}

/*
 * Expand a point that names aliases: each matching alias becomes a probe
 * of its own whose points are the alias's (plus any suffix of the point)
 * and whose body is the alias body before ('=') or after ('+=') ours.
 * Returns the number of derived probes, or -1 when no alias matches.
 */
static int expand_aliases(struct sema *se, struct node *probe,
			  struct node *point, struct node *user, const char *via)
{
	int ncomps = ast_list_length(point->point.comps);
	int matched = 0, derived = 0;

	/*
	 * Whole matches first, then the alias-as-prefix form for each alias
	 * no whole match extends: tcp.*.return is the alias
	 * tcp.sendmsg.return, and tcp.receive with the suffix .return as
	 * there is no tcp.receive.return alias (SystemTap's match tree).
	 */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < se->naliases; i++) {
			struct alias *a = &se->aliases[i];
			int used = alias_prefix(point->point.comps, a->name->point.comps);
			bool whole = used == ncomps;

			if (used < 0 || whole != (pass == 0))
				continue;
			if (!whole && alias_extended(se, point, a))
				continue;
			matched++;
			for (int d = 0; d < se->nexpanding; d++)
				if (se->expanding[d] == a->decl) {
					diag_error(se->s, point->loc, "probe alias "
						   "'%s' expands into itself",
						   point_string(se, a->name));
					return 0;
				}
			if (se->nexpanding == (int)(sizeof(se->expanding) /
						    sizeof(se->expanding[0]))) {
				diag_error(se->s, point->loc, "probe aliases "
					   "nest too deeply");
				return 0;
			}
			struct node *suffix = comp_at(point->point.comps, used);
			struct node *np = ast_new(se->s, N_PROBE, probe->loc);
			ast_foreach(p, a->decl->probe.points) {
				struct node *c = ast_clone_node(se->s, p);
				c->point.comps = ast_append(c->point.comps,
							    ast_clone(se->s, suffix));
				np->probe.points = ast_append(np->probe.points, c);
			}
			struct node *mine = ast_clone(se->s, probe->probe.body);
			struct node *theirs = ast_clone(se->s, a->decl->probe.body);
			if (a->decl->probe.alias == '+')
				np->probe.body = block_of(se, probe->loc, mine,
							  theirs, NULL);
			else
				np->probe.body = block_of(se, probe->loc, theirs, mine,
							  ast_clone(se->s,
								    a->decl->probe.epilogue));
			const char *chain = arena_printf(&se->s->arena, "%s <- %s",
							 alias_text(se, a->name,
								    a->decl), via);
			const char *outer = se->list_name, *outer_pn = se->pn;
			struct node named = *a->name;
			named.point.comps = ast_append(
				ast_clone(se->s, a->name->point.comps),
				ast_clone(se->s, suffix));
			if (!se->nexpanding)
				se->list_name = point_string(se, &named);
			/* pn(), and -l's name: the outermost alias whose name
			 * with the suffix has no wildcard left (SystemTap's
			 * first well-formed point of the derivation), so
			 * sunrpc.entry.* lists sunrpc.clnt.call_sync.return */
			if (!se->pn && !point_has_wildcard(&named))
				se->pn = point_string(se, &named);
			/* a wildcard's suffix form that resolves to nothing
			 * is no match (tcp.*.*.return on tcp.sendmsg) */
			bool quiet = point->point.optional ||
				     (!whole && point_has_wildcard(point));
			se->expanding[se->nexpanding++] = a->decl;
			se->optional += quiet;
			int first_probe = se->prog->nprobes;
			derived += add_probe(se, np, user, chain);
			se->optional -= quiet;
			se->nexpanding--;
			se->list_name = outer;
			se->pn = outer_pn;
			if (whole)
				entry_through_alias(se, a, np, mine, first_probe);
		}
	}
	return matched ? derived : -1;
}

/* Every global a probe point condition may read; anything else is an error. */
static void check_cond_var(struct node *n, void *arg)
{
	struct sema *se = arg;

	if (n->kind == N_VAR && !find_global(se->prog, n->var.name, n->loc.file))
		diag_error(se->s, n->loc, "a probe point condition may only "
			   "read global variables ('%s' is not one)",
			   n->var.name);
	else if (n->kind == N_ASSIGN || n->kind == N_INCDEC ||
		 n->kind == N_CALL)
		diag_error(se->s, n->loc, "a probe point condition may not "
			   "have side effects");
}

/*
 * 'point if (cond)': the point becomes a probe of its own whose body
 * starts with 'if (!(cond)) next'. Its derived probes are named with
 * the condition, as SystemTap names them: an alias's point's condition
 * first, then ' && ' the conditions of the points that named the alias.
 */
static int add_guarded(struct sema *se, struct node *probe, struct node *point,
		       struct node *user, const char *via)
{
	struct node *cond = point->point.cond;
	struct node *np = ast_new(se->s, N_PROBE, probe->loc);
	struct node *p = ast_clone_node(se->s, point);
	struct node *guard = ast_new(se->s, N_IF, cond->loc);
	struct node *not = ast_new(se->s, N_UNARY, cond->loc);

	ast_visit(cond, check_cond_var, se);
	p->point.cond = NULL;
	np->probe.points = p;
	not->unary.op = OP_NOT;
	not->unary.operand = ast_clone(se->s, cond);
	guard->cond.cond = not;
	guard->cond.then = ast_new(se->s, N_NEXT, cond->loc);
	np->probe.body = block_of(se, probe->loc, guard,
				  ast_clone(se->s, probe->probe.body), NULL);
	const char *outer = se->cond, *text = cond_text(se, cond);
	se->cond = outer ? arena_printf(&se->s->arena, "(%s) && (%s)", text,
					outer) : text;
	int n = add_probe(se, np, user, via);
	se->cond = outer;
	return n;
}

/* ---- a wildcard over a family's suffixes ------------------------------ */

/* Does the argument of point component c have the kind pattern
 * component text t ("name", "name(string)", "name(number)") asks? */
static bool arg_fits(const struct node *c, const char *t, size_t len)
{
	const char *paren = memchr(t, '(', len);

	if (!paren)
		return !c->comp.arg;
	if (!c->comp.arg)
		return false;
	return c->comp.arg->kind == (paren[1] == 's' ? N_STRING : N_NUMBER);
}

/*
 * The names a wildcard component (the w-th) may stand for: those of the
 * families' point patterns (probe_types) whose components before it are
 * the point's and whose w-th component the wildcard matches with the
 * same kind of argument, as SystemTap's match tree expands
 * kernel.function("f").* to .call, .exported, .return ... Returns how
 * many went into names (without duplicates).
 */
static int suffix_names(struct sema *se, const struct node *point, int w,
			const char **names, int max)
{
	const struct node *wild = comp_at(point->point.comps, w);
	int n = 0;

	for (int f = 0; probe_families[f]; f++) {
		if (w && !in_roots(probe_families[f],
				   point->point.comps->comp.name))
			continue;
		for (const char *const *t = probe_families[f]->probe_types;
		     t && *t; t++) {
			const char *p = *t;
			const struct node *c = point->point.comps;
			bool fits = true;

			for (int i = 0; i <= w && fits; i++, c = c->next) {
				/* a component ends at a '.' outside parens */
				size_t len = 0;
				while (p[len] && p[len] != '.' && p[len] != '(')
					len++;
				size_t name_len = len;
				if (p[len] == '(')
					len += strcspn(p + len, ")") + 1;
				char *name = arena_strndup(&se->s->arena, p,
							   name_len);
				if (!*name || !arg_fits(c, p, len))
					fits = false;
				else if (i < w)
					fits = !strcmp(name, c->comp.name);
				else if (!fnmatch(wild->comp.name, name, 0) &&
					 !in_list(names, n, name) && n < max)
					names[n++] = name;
				p += len;
				if (*p == '.')
					p++;
				else if (i < w)
					fits = false;	/* the pattern ends */
			}
		}
	}
	return n;
}

/*
 * A point with a wildcard where a family has fixed names
 * (kernel.function("f").*, timer.*, kerne*.function("f")): the point
 * once per name it matches (a later wildcard is expanded in turn), each
 * resolving to nothing quietly, as a wildcard does; -1 when no family
 * pattern matches there.
 */
static int expand_suffix_wildcard(struct sema *se, struct node *probe,
				  struct node *point, struct node *user,
				  const char *via)
{
	const char *names[64];
	int w = 0, n;

	ast_foreach(c, point->point.comps) {
		if (strchr(c->comp.name, '*'))
			break;
		w++;
	}
	if (!strcmp(comp_at(point->point.comps, w)->comp.name, "**"))
		return -1;
	n = suffix_names(se, point, w, names, 64);
	if (!n)
		return -1;
	qsort(names, (size_t)n, sizeof(names[0]), cstr_cmp);
	/* a probe each: .call and .return bodies have different contexts */
	int derived = 0;
	se->optional++;
	for (int i = 0; i < n; i++) {
		struct node *np = ast_new(se->s, N_PROBE, probe->loc);
		struct node *p = ast_clone_node(se->s, point);
		p->point.comps = ast_clone(se->s, point->point.comps);
		comp_at(p->point.comps, w)->comp.name = names[i];
		np->probe.points = p;
		np->probe.body = ast_clone(se->s, probe->probe.body);
		derived += add_probe(se, np, user, via);
	}
	se->optional--;
	return derived;
}

/* Derive every probe of one probe declaration; returns how many. */
static int add_probe(struct sema *se, struct node *probe, struct node *user,
		     const char *via)
{
	struct program *prog = se->prog;
	struct probe_body *b = arena_alloc(&se->s->arena, sizeof(*b));
	int derived = 0, mine = 0, asks_defined = -1;

	b->probe = probe;
	b->user_probe = user;
	b->via = via;
	b->cond = se->cond;
	b->list_name = se->list_name;
	b->pn = se->pn;
	ast_foreach(point, probe->probe.points) {
		int n = -1;
		if (probe == user)
			se->user_point = point;
		if (point->point.cond) {
			n = add_guarded(se, probe, point, user, via);
		} else {
			/* a wildcard matches aliases and the families' own
			 * names alike (`*` is begin, end ... and init ...) */
			int errors = se->s->nerrors, a = -1, f = -1;
			if (sema_alias_root(point->point.comps->comp.name))
				a = expand_aliases(se, probe, point, user, via);
			if (point_has_wildcard(point))
				f = expand_suffix_wildcard(se, probe, point,
							   user, via);
			if (a >= 0 || f >= 0)
				n = (a > 0 ? a : 0) + (f > 0 ? f : 0);
			if (!n && !point->point.optional && !se->optional &&
			    se->s->nerrors == errors)
				diag_error(se->s, point->loc, a >= 0 ?
					   "no match for probe point '%s': "
					   "its aliases resolve to nothing" :
					   "no match for probe point '%s'",
					   point_string(se, point));
		}
		if (n < 0) {
			struct derived_probe *dp = derive_point(se, point);
			if (dp)		/* its clones (expand) keep it */
				dp->user_point = se->user_point;
			/* a later point of a comma list decides @defined
			 * for itself, as an alias's points do */
			struct probe_body *pb = b;
			if (dp && mine) {
				if (asks_defined < 0)
					asks_defined = sema_asks_defined(se,
							probe->probe.body);
				if (asks_defined)
					pb = sema_own_body(se, b);
			}
			n = 0;
			if (dp && dp->family->expand) {
				n = dp->family->expand(se, point, dp, pb);
			} else if (dp) {
				sema_add_derived(se, dp, pb);
				n = 1;
			}
			/* an optional point that matched nothing: no body */
			if (!n && pb != b && prog->nbodies &&
			    prog->bodies[prog->nbodies - 1] == pb)
				prog->nbodies--;
			if (n && !mine) {
				b->index = prog->nbodies;
				GROW(se, prog->bodies, prog->nbodies,
				     prog->bodies_cap);
				prog->bodies[prog->nbodies++] = b;
			}
			mine += n;
		}
		derived += n;
		if (n && point->point.sufficient)
			break;
	}
	return derived;
}

void add_probe_body(struct sema *se, struct node *probe)
{
	add_probe(se, probe, probe, "");
}

static int alias_cmp(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->order - y->order;
}

void collect_aliases(struct sema *se)
{
	struct program *prog = se->prog;

	for (int f = 0; f < prog->nfiles; f++)
		ast_foreach(d, prog->files[f]->decls) {
			if (d->kind != N_PROBE || !d->probe.alias)
				continue;
			ast_foreach(name, d->probe.alias_names) {
				bool wild = false;
				ast_foreach(c, name->point.comps)
					wild |= strchr(c->comp.name, '*') != NULL;
				if (wild) {
					diag_error(se->s, name->loc, "a probe alias "
						   "name cannot have wildcards "
						   "('%s')", point_string(se, name));
					continue;
				}
				GROW(se, se->aliases, se->naliases,
				     se->aliases_cap);
				se->aliases[se->naliases] = (struct alias){
					name, d, point_string(se, name),
					se->naliases };
				se->naliases++;
			}
		}
	/* wildcards expand in name order, as SystemTap's match tree does */
	if (se->naliases)
		qsort(se->aliases, (size_t)se->naliases, sizeof(*se->aliases),
		      alias_cmp);
}
