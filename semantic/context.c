// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: context values and typed values. $x and its member chains are
 * the family's (struct probe_family: the body's probes decide whose);
 * this file dispatches to it and owns what is the same for every family:
 * context slots, @cast chains and autocast through the kernel's BTF,
 * pretty printing, and @defined, folded so that only the live branch of
 * its if or ?: is elaborated.
 */
#include "semantic/elaborate.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "target/userpath.h"
#include "lib/strbuf.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- context values, through the body's family ---------------------- */

bool body_all_of(struct sema *se, const struct probe_body *scope,
		 const struct probe_family *f)
{
	const struct probe_body *b = context_body(scope);
	bool any = false;

	int n;
	const struct derived_probe *const *probes;

	if (!b)
		return false;
	probes = body_probes(se->prog, b, &n);
	for (int i = 0; i < n; i++) {
		const struct derived_probe *dp = probes[i];
		if (dp->family != f || (f->own_context && !f->own_context(dp)))
			return false;
		any = true;
	}
	return any;
}

const struct probe_family *body_family(struct sema *se,
				       const struct probe_body *scope)
{
	const struct probe_body *b = context_body(scope);
	const struct derived_probe *first = b ? body_first_probe(se->prog, b) :
					    NULL;

	if (!first || !first->family->context)
		return NULL;
	if (first->family->first_claims ||
	    body_all_of(se, b, first->family))
		return first->family;
	return NULL;
}

/* The target kernel's BTF, loaded on the first member access; or NULL. */
struct btf *sema_btf(struct sema *se)
{
	if (!se->s->target) {
		se->btf_err = "no target kernel release";
		return NULL;
	}
	return target_btf(se->s->target, &se->btf_err);
}

/* Whether BTF type id, through pointers and arrays, ends on a type BTF
 * defines (not a struct it only declares). */
static bool btf_complete(const struct btf *btf, int id)
{
	struct btf_info in;

	btf_resolve(btf, id, &in);
	for (int hops = 0; hops < 16 && (in.cls == BTF_CLASS_PTR ||
					 in.cls == BTF_CLASS_ARRAY); hops++)
		btf_resolve(btf, in.target, &in);
	return in.cls != BTF_CLASS_OTHER;
}

/* "watchdog" of a module file's path. */
static const char *module_of_path(struct arena *a, const char *path)
{
	const char *base = strrchr(path, '/'), *ko;

	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	return ko ? arena_strndup(a, base, (size_t)(ko - base)) : base;
}

int sema_ctype_btf(struct sema *se, const struct derived_probe *dp,
		   const char *c_type, const char **why)
{
	struct btf *btf = sema_btf(se);
	const char *mod = dp->family->var_module ?
			  dp->family->var_module(dp) : NULL;
	struct arena *a = &se->s->arena;
	const char *err;
	int id, scope, mid;

	if (!btf) {
		if (why)
			*why = se->btf_err;
		return 0;
	}
	const char *user = dp->family->var_user ? dp->family->var_user(dp) :
			   NULL;
	if (user) {	/* a user program's types, from its DWARF */
		scope = target_user_btf(se->s->target, user, &err);
		id = scope ? btf_find_type_in(btf, c_type, scope) : 0;
		if (!id && why)
			*why = scope ? arena_printf(a, "the DWARF of %s has no "
						    "type '%s'", user, c_type) :
				       err;
		return id;
	}
	id = btf_find_type(btf, c_type);
	if (!mod || (id && btf_complete(btf, id)))
		goto out;
	/* a type of the module's own: its BTF, added now */
	scope = target_module_btf(se->s->target, mod, &err);
	if (!scope) {
		if (!id && why)
			*why = arena_printf(a, "the kernel's BTF has no type "
					    "'%s', and module %s's BTF cannot "
					    "be read: %s", c_type,
					    module_of_path(a, mod), err);
		return id;
	}
	mid = btf_find_type_in(btf, c_type, scope);
	if (mid) {
		return mid;
	} else if (!id) {
		if (why)
			*why = arena_printf(a, "neither the kernel's BTF nor "
					    "module %s's has type '%s'",
					    module_of_path(a, mod), c_type);
		return 0;
	}
out:
	if (!id && why)
		*why = arena_printf(a, "the kernel's BTF has no type '%s'",
				    c_type);
	return id;
}

/* A new context value of body b: the next slot of b->ctxvars. */
bool path_merge_add(struct sema *se, struct path_merge *m,
		    const struct derived_probe *dp, const struct member_path *p,
		    const char *msg, const struct node *at,
		    const struct node *n, const char *key)
{
	if (msg) {
		if (se->report)
			diag_error(se->s, (at ? at : n)->loc, "%s (in %s)", msg,
				   dp->pp);
		return false;
	}
	if (m->path && !member_path_equal(m->path, p)) {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' has another layout in %s "
				   "than in %s", key, dp->pp, m->first->pp);
		return false;
	}
	if (!m->path) {
		m->path = arena_alloc(&se->s->arena, sizeof(*m->path));
		*m->path = *p;
		m->first = dp;
	}
	return true;
}

struct symbol *add_context_slot(struct sema *se, struct probe_body *b,
				       struct node *n, const char *name)
{
	struct symbol *sym = arena_alloc(&se->s->arena, sizeof(*sym));

	sym->name = name;
	sym->kind = SYM_CONTEXT;
	sym->type = TY_LONG;
	sym->loc = n->loc;
	sym->decl = n;
	sym->index = b->nctxvars;
	GROW(se, b->ctxvars, b->nctxvars, b->ctxvars_cap);
	b->ctxvars[b->nctxvars++] = sym;
	return sym;
}

/* ---- typed values: pretty printing, @cast, & -------------------------- */

/*
 * "$prev$$" -> base "$prev" and depth 2; "$$parms$" -> "$$parms", 1.
 * Depth 0 when the name has no pretty-printing suffix.
 */
int pretty_suffix(struct arena *a, const char *name, const char **base)
{
	size_t i = name[1] == '$' ? 2 : 1;

	while (name[i] && name[i] != '$')
		i++;
	*base = arena_strndup(a, name, i);
	if (!strcmp(name + i, "$"))
		return 1;
	if (!strcmp(name + i, "$$"))
		return 2;
	return 0;
}

int context_pretty_depth(struct sema *se, struct node *n)
{
	const char *name = n->target.name, *base_name;
	int depth;

	if (n->kind == N_TMEMBER && (!strcmp(name, "$") || !strcmp(name, "$$")))
		return (int)strlen(name);
	if (n->kind != N_TARGET)
		return 0;
	depth = pretty_suffix(&se->s->arena, name, &base_name);
	if (!depth || base_name[1] == '$')
		return 0;
	if (!n->target.base) {
		n->target.base = ast_new(se->s, N_TARGET, n->loc);
		n->target.base->target.name = base_name;
	}
	return depth;
}

static bool body_has_probe(struct sema *se, const struct derived_probe *dp)
{
	return dp->body == sema_ctx(se);
}

/*
 * The BTF type of a context value ($x or a chain on it) in dp, from the C
 * type its family gives $x (var_ctype), 0 when it has none; flags as for
 * type_path.
 */
int context_value_type(struct sema *se, const struct derived_probe *dp,
			 const struct node *n, int flags)
{
	const char *root = context_root(n);
	const char *c_type = root && dp->family->var_ctype ?
			     dp->family->var_ctype(dp, root + 1) : NULL;
	struct btf *btf = sema_btf(se);
	struct member_path p;
	const struct node *at;
	int type, end;

	if (!c_type || !btf || !(type = sema_ctype_btf(se, dp, c_type, NULL)))
		return 0;
	if (n->kind == N_TARGET)
		return type;
	/* a struct or array variable's value is its address */
	struct btf_info info;
	btf_resolve(btf, type, &info);
	if (info.cls == BTF_CLASS_STRUCT || info.cls == BTF_CLASS_UNION ||
	    info.cls == BTF_CLASS_ARRAY)
		flags |= PATH_OBJECT;
	if (type_path(&se->s->arena, btf, type, flags, n, &p, &end, &at))
		return 0;
	return end;
}

struct symbol *typed_symbol(struct sema *se, struct node *n,
				   struct node *base, enum type type)
{
	struct symbol *sym = arena_alloc(&se->s->arena, sizeof(*sym));

	sym->name = "typed value";
	sym->kind = SYM_TYPED;
	sym->type = type;
	sym->loc = n->loc;
	sym->decl = n;
	sym->typed_base = base;
	return sym;
}

/* Type NAME of a @cast in scope (0: vmlinux's types): "struct NAME",
 * else "union NAME", else NAME as C spells it; 0 when none. */
static int cast_lookup(struct arena *a, struct btf *btf, const char *name,
		       int scope)
{
	int type;

	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6) ||
	    !strncmp(name, "enum ", 5) || strpbrk(name, "*["))
		return btf_find_type_in(btf, name, scope);
	if ((type = btf_find_type_in(btf, arena_printf(a, "struct %s", name),
				     scope)) ||
	    (type = btf_find_type_in(btf, arena_printf(a, "union %s", name),
				     scope)))
		return type;
	return btf_find_type_in(btf, name, scope);
}

/*
 * The user program whose types a @cast without a module has in this
 * body (SystemTap's default is the probed program), or NULL: the kernel.
 */
const char *body_user_program(struct sema *se)
{
	const struct probe_family *f = body_family(se, se->body);
	const char *user = NULL;

	if (!f || !f->var_user)
		return NULL;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		const char *u = body_has_probe(se, dp) ? f->var_user(dp) : NULL;
		if (u && !user)
			user = u;
	}
	return user;
}

/*
 * The type of @cast(p, "type"[, "module"]), or 0 (said when report). The
 * module may be "kernel", "kernel<linux/sched.h>" (the header is not
 * needed: BTF has the kernel's types), a kernel module's name
 * ("watchdog": its BTF on top of the kernel's), a user program or
 * library by path ("/usr/bin/prog", "./prog": its DWARF's types, the
 * value in the process's memory: *user), or a ':'-separated list
 * of alternatives, tried in order; at least one must be the kernel, a
 * module or a program. Without a module, a process probe's program
 * (as SystemTap 4.8), else the kernel.
 */
static int cast_type(struct sema *se, struct node *cast, bool report,
		     bool *user)
{
	struct node *p = cast->call.args;
	struct node *tn = p ? p->next : NULL;
	struct node *mn = tn ? tn->next : NULL;
	struct arena *a = &se->s->arena;
	struct btf *btf;
	const char *name, *mod, *why = NULL, *missing = NULL;
	bool kernel_only = true, any = false;
	int type = 0;

	if (!tn || (mn && mn->next) || tn->kind != N_STRING ||
	    (mn && mn->kind != N_STRING)) {
		if (report)
			diag_error(se->s, cast->loc, "@cast takes a value, a type "
				   "name and optionally a module, both string "
				   "literals");
		return 0;
	}
	mod = mn ? mn->str.value : body_user_program(se);
	if (!mod)
		mod = "kernel";
	*user = false;
	name = tn->str.value;
	while (*name == ' ')
		name++;
	if (!strncmp(name, "class ", 6))
		name = arena_printf(a, "struct %s", name + 6);
	btf = sema_btf(se);
	for (const char *m = mod; !type;) {
		size_t len = strcspn(m, ":");
		bool kernel = !*mod || (len == 6 && !strncmp(m, "kernel", 6)) ||
			      (len > 7 && !strncmp(m, "kernel<", 7) &&
			       m[len - 1] == '>');
		const char *file = NULL;
		int scope = 0;

		if (!kernel && len && se->s->target && memchr(m, '/', len) &&
		    m[0] != '<') {
			/* a user program: its DWARF's types ("PATH<h.h>" is
			 * a path too, as in 4.8: no such file) */
			const char *err, *prog = userpath_program(a,
				arena_strndup(a, m, len));
			kernel_only = false;
			if (!btf) {
				if (report)
					diag_error(se->s, cast->loc, "cannot "
						   "resolve @cast: %s",
						   se->btf_err);
				return 0;
			}
			scope = target_user_btf(se->s->target, prog, &err);
			if (!scope)
				why = arena_printf(a, "the DWARF of %s cannot be "
						   "read: %s", prog, err);
			else
				any = true;
			/* the program's own type: not the kernel's of that
			 * name, which a scope's lookup falls back to */
			if (scope && (type = cast_lookup(a, btf, name, scope)) &&
			    type == cast_lookup(a, btf, name, 0))
				type = 0;
			if (type)
				*user = true;
			if (!m[len])
				break;
			m += len + 1;
			continue;
		}
		if (!kernel && len > 2 && se->s->target && m[0] == '<' &&
		    m[len - 1] == '>') {
			/* "<a.h><b.h>": the headers' types, compiled by gcc
			 * as 4.8 does, the value in user memory (4.8's
			 * uderef, in any probe) */
			const char *err, *headers = arena_strndup(a, m, len);
			kernel_only = false;
			if (!btf) {
				if (report)
					diag_error(se->s, cast->loc, "cannot "
						   "resolve @cast: %s",
						   se->btf_err);
				return 0;
			}
			scope = target_header_btf(se->s->target, headers,
						  &err);
			if (!scope)
				why = err;
			else
				any = true;
			if (scope && (type = cast_lookup(a, btf, name, scope)) &&
			    type == cast_lookup(a, btf, name, 0))
				type = 0;
			if (type)
				*user = true;
			if (!m[len])
				break;
			m += len + 1;
			continue;
		}
		if (!kernel && len && se->s->target &&
		    !memchr(m, '<', len) && !memchr(m, '/', len)) {
			file = target_module_file(se->s->target,
						  arena_strndup(a, m, len));
			if (!file && !missing)
				missing = arena_strndup(a, m, len);
		}
		if ((kernel || file) && !btf) {
			if (report)
				diag_error(se->s, cast->loc, "cannot resolve "
					   "@cast: %s", se->btf_err);
			return 0;
		}
		if (file) {
			const char *err;

			kernel_only = false;
			scope = target_module_btf(se->s->target, file, &err);
			if (!scope)
				why = arena_printf(a, "module %.*s's BTF cannot "
						   "be read: %s", (int)len, m,
						   err);
		}
		if (kernel || scope) {
			any = true;
			type = cast_lookup(a, btf, name, scope);
		}
		if (!m[len])
			break;
		m += len + 1;
	}
	if (type || !report)
		return type;
	if (!any && !why && missing)
		diag_error(se->s, (mn ? mn : cast)->loc, "@cast: no kernel "
			   "module '%s' in %s", missing,
			   se->s->target->modules_dir);
	else if (!any && !why)
		diag_error(se->s, (mn ? mn : cast)->loc, "@cast with the "
			   "types of '%s' is not supported yet (only the "
			   "kernel's and its modules', from their BTF)", mod);
	else if (kernel_only)
		diag_error(se->s, tn->loc, "type definition '%s' not found in "
			   "the kernel's BTF", tn->str.value);
	else
		diag_error(se->s, tn->loc, "type definition '%s' not found in "
			   "'%s'%s%s", tn->str.value, mod, why ? ": " : "",
			   why ? why : "");
	return type;
}

/*
 * The BTF type of a local that autocast gave one (SystemTap carries the
 * type of a @cast or context value into the locals it is assigned to):
 * 0 and false when it has none.
 */
static int local_btf_type(const struct node *root, bool *object,
			  bool *user)
{
	const struct symbol *sym = root->kind == N_VAR ? root->sym : NULL;

	*object = false;
	*user = false;
	if (!sym || sym->kind != SYM_LOCAL || sym->btf_type <= 0)
		return 0;
	*object = sym->btf_object;
	*user = sym->btf_user;
	return sym->btf_type;
}

/*
 * $x$, $x->f$$ of any family: the pretty printing of the context value
 * base (its family has inferred it), built from its BTF type, the same in
 * every probe of the body.
 */
enum type infer_context_pretty(struct sema *se, struct node *n,
			       struct node *base, int depth)
{
	struct arena *a = &se->s->arena;
	const struct pretty *pretty = NULL;
	const struct derived_probe *first = NULL;

	struct btf *btf = sema_btf(se);
	if (!btf) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot pretty-print '%s': %s",
				   context_key(a, base), se->btf_err);
		return n->type = TY_STRING;
	}
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		struct pretty *p;
		int type;

		if (!body_has_probe(se, dp))
			continue;
		type = context_value_type(se, dp, base, PATH_AGGREGATE);
		if (!type) {
			if (se->report)
				diag_error(se->s, n->loc, "the type of '%s' in %s "
					   "is not in the kernel's BTF",
					   context_key(a, base), dp->pp);
			return n->type = TY_STRING;
		}
		p = arena_alloc(a, sizeof(*p));
		pretty_build(a, btf, type, depth == 2, p);
		p->user = dp->family->var_user && dp->family->var_user(dp);
		if (pretty && !pretty_equal(pretty, p)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' has another type "
					   "in %s than in %s",
					   context_key(a, base), dp->pp,
					   first->pp);
			return n->type = TY_STRING;
		}
		if (!pretty) {
			pretty = p;
			first = dp;
		}
	}
	n->sym = typed_symbol(se, n, base, TY_STRING);
	n->sym->pretty = pretty;
	return n->type = TY_STRING;
}


static int expr_btf_type(struct sema *se, struct node *e, bool *object,
			 bool *user);

/* Does e's BTF type wait for a function pass 2 has not walked yet (its
 * returns type its result)? Then it is not known to be untyped. */
static bool btf_pending(const struct node *e)
{
	for (;;) {
		if (e->kind == N_ASSIGN)
			e = e->binary.rhs;
		else if (e->kind == N_UNARY && e->unary.op == OP_ADDR)
			e = e->unary.operand;
		else if (e->kind == N_TMEMBER || e->kind == N_TINDEX)
			e = e->target.base;
		else
			break;
	}
	if (e->kind == N_TERNARY)
		return btf_pending(e->cond.then) || btf_pending(e->cond.els);
	return e->kind == N_CALL && e->sym && e->sym->kind == SYM_FUNCTION &&
	       e->sym->func && !e->sym->func->walked;
}

bool autocast_root(const struct node *root, const struct node *n)
{
	return root != n && (root->kind == N_VAR || root->kind == N_CALL ||
			     root->kind == N_TERNARY ||
			     (root->kind == N_UNARY && root->unary.op == OP_ADDR) ||
			     (root->kind == N_ASSIGN &&
			      root->binary.op == OP_ASSIGN));
}

/*
 * @cast(p, "T")->a[1]->b, &@cast(...)->f, @cast(...)$, and the same on a
 * value of a known type (autocast): a local holding one (x = &@cast(...);
 * x->f), a function returning one, a '?:' of two, (&chain), (x = v): a
 * typed value the handler computes from p (or x, f(), ...). flags as for
 * type_path; depth > 0: pretty.
 */
enum type infer_cast_chain(struct sema *se, struct node *n,
				  struct node *chain, int flags, int depth)
{
	struct node *root = chain_root(chain);
	bool is_cast = root->kind == N_ATFUNC;
	bool is_var = is_cast && !strcmp(root->call.name, "@var");
	struct node *base = is_var ? NULL : is_cast ? root->call.args : root;
	struct arena *a = &se->s->arena;
	enum type result = depth ? TY_STRING : TY_LONG;
	struct member_path *path;
	const struct node *at;
	bool object = is_cast && !is_var, user = false;
	int type, end;

	if (base)
		expect(se, base, infer(se, base, TY_LONG), TY_LONG);
	for (struct node *c = chain; c != root; c = c->target.base)
		if (c->kind == N_TINDEX)
			expect(se, c->target.index,
			       infer(se, c->target.index, TY_LONG), TY_LONG);
	if (n->sym && n->sym->kind == SYM_TYPED)
		return n->type = result;
	if (!se->report)
		return n->type = result;	/* resolved once, at the end */
	if (is_var) {
		struct symbol *v = atvar_resolve(se, root, true);
		type = v ? v->btf_type : 0;
		base = v ? v->typed_base : NULL;
	} else if (is_cast) {
		type = cast_type(se, root, true, &user);
	} else if (root->kind == N_VAR) {
		type = local_btf_type(root, &object, &user);
		if (!type)
			diag_error(se->s, root->loc, "unknown type in dereference "
				   "of '%s': it holds no typed value (assign it "
				   "from @cast or a context variable, always of "
				   "one type)", root->var.name);
	} else {
		type = expr_btf_type(se, root, &object, &user);
		if (!type && root->kind == N_CALL)
			diag_error(se->s, root->loc, "unknown type in dereference "
				   "of '%s()': it returns no typed value (return "
				   "@cast or a context variable, always of one "
				   "type)", root->call.name);
		else if (!type)
			diag_error(se->s, root->loc, "unknown type in dereference: "
				   "the two values of '?:' are not of one type "
				   "(each a @cast or a context variable)");
	}
	if (!type)
		return n->type = result;
	path = arena_alloc(a, sizeof(*path));
	const char *msg = type_path(a, sema_btf(se), type,
				    flags | (object ? PATH_OBJECT : 0) |
				    (is_var ? PATH_VAR : 0), chain,
				    path, &end, &at);
	if (msg) {
		diag_error(se->s, (at ? at : chain)->loc, "%s", msg);
		return n->type = result;
	}
	path->user = user;
	n->sym = typed_symbol(se, n, base, result);
	n->sym->member_path = path;
	if (n == root)
		n->sym->btf_type = type;	/* atvar_resolve's, kept */
	if (depth) {
		struct pretty *p = arena_alloc(a, sizeof(*p));
		pretty_build(a, sema_btf(se), end, depth == 2, p);
		p->user = user;
		n->sym->pretty = p;
	}
	return n->type = result;
}

/* Are BTF types x and y one type? Two ids may spell one type ("struct
 * task_struct*") of one scope; a name of two headers' (@cast(p, "T",
 * "<a.h>") and "<b.h>") is two types, as 4.8's two cast modules. */
static bool same_btf_type(struct sema *se, int x, int y)
{
	struct btf *btf = sema_btf(se);
	bool same;

	if (x == y)
		return true;
	if (!x || !y || !btf)
		return false;
	char *nx = btf_type_name(btf, x), *ny = btf_type_name(btf, y);
	same = nx && ny && !strcmp(nx, ny) &&
	       btf_type_scope(btf, x) == btf_type_scope(btf, y);
	free(nx);
	free(ny);
	return same;
}

/*
 * The BTF type of the value of e, for autocast: a @cast chain or &chain,
 * a context variable or chain (the same type in every probe of the
 * body), a typed local. object: the value is the address of one.
 */
static int expr_btf_type(struct sema *se, struct node *e, bool *object,
			 bool *user)
{
	int flags = 0, type = 0, end;
	struct member_path p;
	const struct node *at;

	*object = false;
	*user = false;
	if (e->kind == N_ASSIGN && e->binary.op == OP_ASSIGN)
		return expr_btf_type(se, e->binary.rhs, object, user);
	if (e->kind == N_CALL) {
		/* a script function whose every return has one type */
		const struct symbol *f = e->sym;
		if (!f || f->kind != SYM_FUNCTION || f->btf_type <= 0)
			return 0;
		*object = f->btf_object;
		*user = f->btf_user;
		return f->btf_type;
	}
	if (e->kind == N_TERNARY) {
		/* the live value of a folded @defined (@choose_defined),
		 * else both values of one type */
		int64_t live;
		if (sema_folded_defined(e->cond.cond, &live))
			return expr_btf_type(se, live ? e->cond.then :
					     e->cond.els, object, user);
		bool o2, u2;
		int t = expr_btf_type(se, e->cond.then, object, user);
		int t2 = t ? expr_btf_type(se, e->cond.els, &o2, &u2) : 0;
		return t && same_btf_type(se, t, t2) && o2 == *object &&
		       u2 == *user ? t : 0;
	}
	if (e->kind == N_UNARY && e->unary.op == OP_ADDR) {
		flags = PATH_ADDRESS;
		e = e->unary.operand;
		/* &$x: the address of an object of $x's type */
		if (e->kind != N_TMEMBER && e->kind != N_TINDEX &&
		    e->kind != N_TARGET && !is_typed_root(e))
			return 0;
	} else if (e->kind == N_TMEMBER &&
		   (!strcmp(e->target.name, "$") ||
		    !strcmp(e->target.name, "$$"))) {
		return 0;
	}
	struct node *root = chain_root(e);
	struct btf *btf = NULL;
	bool base_object = false;
	if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@var")) {
		struct symbol *v = atvar_resolve(se, root, false);
		type = v ? v->btf_type : 0;
		flags |= PATH_VAR;
	} else if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@cast")) {
		type = cast_type(se, root, false, user);
		base_object = true;
	} else if (root->kind == N_VAR) {
		type = local_btf_type(root, &base_object, user);
	} else if (root != e && (root->kind == N_CALL ||
				 root->kind == N_TERNARY)) {
		type = expr_btf_type(se, root, &base_object, user);
	} else if (root->kind == N_TARGET && root->target.name[1] != '$' &&
		   body_family(se, se->body) &&
		   body_family(se, se->body)->var_ctype) {
		/* a process's values: the type of the program's DWARF, the
		 * value in its memory, in every probe of the body */
		const struct probe_family *f = body_family(se, se->body);
		bool seen = false;
		for (int i = 0; i < se->prog->nprobes; i++) {
			const struct derived_probe *dp = se->prog->probes[i];
			if (!body_has_probe(se, dp))
				continue;
			int t = context_value_type(se, dp, e, flags);
			bool u = f->var_user && f->var_user(dp);
			if (!t || (type && t != type) || (seen && u != *user))
				return 0;
			type = t;
			*user = u;
			seen = true;
		}
		*object = flags == PATH_ADDRESS;
		return type;
	}
	if (type <= 0 || !(btf = sema_btf(se)))
		return 0;
	if (type_path(&se->s->arena, btf, type,
		      flags | (base_object ? PATH_OBJECT : 0), e, &p, &end, &at))
		return 0;
	/* &chain and a bare @cast(p, "T"): the address of an object */
	*object = flags == PATH_ADDRESS || (base_object && e == root);
	return end;
}

/* x = value (a local), return value (a function's symbol): x keeps
 * value's BTF type while every assignment or return agrees. */
void note_btf_type(struct sema *se, struct symbol *sym,
			  struct node *rhs)
{
	bool object, user;
	int type;

	if ((sym->kind != SYM_LOCAL && sym->kind != SYM_FUNCTION) ||
	    sym->btf_type < 0 || btf_pending(rhs))
		return;
	type = expr_btf_type(se, rhs, &object, &user);
	if (type && sym->btf_type && same_btf_type(se, sym->btf_type, type))
		type = sym->btf_type;
	if (!type || (sym->btf_type && (sym->btf_type != type ||
					sym->btf_object != object ||
					sym->btf_user != user))) {
		sym->btf_type = -1;	/* untyped or conflicting */
		return;
	}
	if (!sym->btf_type)
		se->changed = true;	/* another round: chains on it */
	sym->btf_type = type;
	sym->btf_object = object;
	sym->btf_user = user;
}

/* Is the chain n (on a context variable or @cast) defined, as @defined
 * asks? */
static bool chain_defined(struct sema *se, struct node *n, int flags)
{
	struct node *root = chain_root(n);
	struct btf *btf;
	struct member_path p;
	const struct node *at;
	int end;

	if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@var") &&
	    !atvar_is_context(se, root)) {
		struct symbol *v = atvar_resolve(se, root, false);
		return v && !type_path(&se->s->arena, sema_btf(se), v->btf_type,
				       flags | PATH_VAR, n, &p, &end, &at);
	}
	if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@cast")) {
		bool user;
		int type = cast_type(se, root, false, &user);
		return type && !type_path(&se->s->arena, sema_btf(se), type,
					  flags | PATH_OBJECT, n, &p, &end, &at);
	}
	if (autocast_root(root, n)) {
		bool object, user;
		int type;
		infer(se, root, TY_LONG);
		type = root->kind == N_VAR ?
		       local_btf_type(root, &object, &user) :
		       expr_btf_type(se, root, &object, &user);
		return type && !type_path(&se->s->arena, sema_btf(se), type,
					  flags | (object ? PATH_OBJECT : 0), n,
					  &p, &end, &at);
	}
	const struct probe_family *f = body_family(se, se->body);
	if (root->kind != N_TARGET || !f || !f->defined || !f->var_ctype)
		return false;
	const char *name;
	pretty_suffix(&se->s->arena, root->target.name, &name);
	if (name[1] == '$')	/* $$vars, $$parms$: the family says */
		return n == root && f->defined(se, root);
	if (!f->defined(se, root))
		return false;
	if (n == root)
		return true;
	btf = sema_btf(se);
	if (!btf)
		return false;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (body_has_probe(se, dp) && !context_value_type(se, dp, n, flags))
			return false;
	}
	return true;
}


enum type infer_target(struct sema *se, struct node *n)
{
	struct probe_body *b = sema_ctx(se);
	const char *name = n->target.name;
	int depth = 0;
	struct node *root = chain_root(n);

	if (n->kind == N_TMEMBER && (!strcmp(name, "$") || !strcmp(name, "$$")))
		depth = (int)strlen(name);
	if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@var"))
		atvar_is_context(se, root);	/* @var("x") may be $x */
	if (is_typed_root(root) || autocast_root(root, n))
		return infer_cast_chain(se, n, depth ? n->target.base : n,
					depth ? PATH_AGGREGATE : 0, depth);
	if (depth && root->kind != N_TARGET) {
		if (se->report)
			diag_error(se->s, n->loc, "pretty printing of anything "
				   "but a context variable or @cast is not "
				   "supported yet");
		return n->type = TY_STRING;
	}
	const struct probe_family *f = body_family(se, b);
	if (f && f->first_claims)
		return f->context(se, n, false);
	if (n->kind != N_TARGET && !context_root(n)) {
		if (se->report)
			diag_error(se->s, n->loc, "member access on a plain value "
				   "(autocast) is not supported yet: name its type "
				   "with @cast(value, \"type\")");
		return n->type = TY_LONG;
	}
	if (n->kind == N_TARGET && !strcmp(name, "$return") &&
	    !(f && f->has_return)) {
		if (se->report)
			diag_error(se->s, n->loc, "'$return' is only available in "
				   "kernel.function(...).return probes");
		return n->type = TY_LONG;
	}
	if (f)
		return f->context(se, n, false);
	/* a function, a family without context values, or several */
	const struct derived_probe *none = NULL, *some = NULL, *other = NULL;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (!dp->family->context && !none)
			none = dp;
		if (dp->family->context && !some)
			some = dp;
		else if (dp->family->context && !other &&
			 dp->family != some->family)
			other = dp;
	}
	if (se->report && none)
		diag_error(se->s, n->loc, "unknown context variable '%s': "
			   "%s has no context variables", context_root(n),
			   none->pp);
	else if (se->report && other)
		diag_error(se->s, n->loc, "context variables in a body that "
			   "probes of two families share (%s and %s) are not "
			   "supported yet: give each its own probe",
			   some->family->name, other->family->name);
	else if (se->report && some)
		diag_error(se->s, n->loc, "context variables of %s probes are "
			   "not supported yet", some->family->name);
	else if (se->report)
		diag_error(se->s, n->loc, "context variables are not "
			   "available in functions");
	return depth ? TY_STRING : TY_LONG;	/* no second error */
}

/*
 * A condition @defined decides, folded: @defined(...), its '!', and && / ||
 * of those and of literals (or whose left side alone decides, as SystemTap
 * folds "0 && x").
 * As in SystemTap, the dead branch of an if or ?: is never elaborated (it
 * may name what is not there), and neither the optimiser nor pass 3 keeps it.
 */
static bool fold_defined(const struct node *n, int64_t *value, bool *saw)
{
	int64_t a, b;

	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined") &&
	    n->sym) {
		*value = n->sym->index;
		*saw = true;
		return true;
	}
	if (n->kind == N_NUMBER) {	/* beside @defined in && or || */
		*value = n->num.value != 0;
		return true;
	}
	if (n->kind == N_UNARY && n->unary.op == OP_NOT &&
	    fold_defined(n->unary.operand, value, saw)) {
		*value = !*value;
		return true;
	}
	if (n->kind != N_BINARY || (n->binary.op != OP_AND &&
				    n->binary.op != OP_OR) ||
	    !fold_defined(n->binary.lhs, &a, saw))
		return false;
	if (n->binary.op == OP_AND ? !a : a) {	/* the right side never runs */
		*value = a != 0;
		return true;
	}
	if (!fold_defined(n->binary.rhs, &b, saw))
		return false;
	*value = b != 0;
	return true;
}

bool sema_folded_defined(const struct node *n, int64_t *value)
{
	bool saw = false;

	/* a condition without @defined is left to the optimiser */
	return fold_defined(n, value, &saw) && saw;
}

/* @defined(...): folded to 1 when the body's family has it (defined). */
enum type infer_defined(struct sema *se, struct node *n)
{
	struct node *arg = n->call.args;
	const struct probe_family *f;
	int value;

	/* @defined(@entry(X)): what X names is there at the entry too */
	while (arg && !arg->next && arg->kind == N_ATFUNC &&
	       !strcmp(arg->call.name, "@entry") && arg->call.args &&
	       !arg->call.args->next)
		arg = arg->call.args;
	struct node *root = arg ? chain_root(arg) : NULL;
	bool pretty = arg && arg->kind == N_TMEMBER &&
		      (!strcmp(arg->target.name, "$") ||
		       !strcmp(arg->target.name, "$$"));
	bool address = arg && arg->kind == N_UNARY && arg->unary.op == OP_ADDR;

	if (address)
		root = chain_root(arg->unary.operand);
	if (arg && !arg->next && arg->kind == N_CALL) {
		/* a call resolves (@choose_defined(f(), $x)) */
		infer(se, arg, TY_UNKNOWN);
		value = 1;
		goto decided;
	}
	if (!arg || arg->next || (root->kind != N_TARGET &&
				  !autocast_root(root, arg) &&
				  !is_typed_root(root))) {
		if (se->report)
			diag_error(se->s, n->loc, "@defined of anything but a "
				   "context variable ($x, $x->f) or @cast is "
				   "not supported yet");
		return n->type = TY_LONG;
	}
	if (autocast_root(root, address ? arg->unary.operand : arg) &&
	    !se->report) {
		/* f()->x, x->f: not decided (nor an if folded on it) while
		 * f is not walked or x has no type yet: a later round, once
		 * f is walked (its type a change), or the last decides */
		infer(se, root, TY_LONG);
		if (btf_pending(root)) {
			se->changed = true;
			return n->type = TY_LONG;
		}
		if (root->kind == N_VAR && root->sym &&
		    root->sym->kind == SYM_LOCAL && !root->sym->btf_type)
			return n->type = TY_LONG;
	}
	if (address)
		value = chain_defined(se, arg->unary.operand, PATH_ADDRESS);
	else if (pretty)
		value = chain_defined(se, arg->target.base, PATH_AGGREGATE);
	else if (arg->kind != N_TARGET)
		value = chain_defined(se, arg, arg->kind == N_ATFUNC ?
				      PATH_AGGREGATE : 0);
	else if ((f = body_family(se, se->body)) && f->defined)
		value = f->defined(se, arg);
	else
		value = 0;
decided:
	if (!n->sym) {
		n->sym = arena_alloc(&se->s->arena, sizeof(*n->sym));
		n->sym->name = "@defined";
		n->sym->kind = SYM_CONTEXT;
		n->sym->type = TY_LONG;
		n->sym->loc = n->loc;
	}
	n->sym->index = value;
	return n->type = TY_LONG;
}

/*
 * Embedded C declares the globals it touches with comments holding
 * "pragma:read:NAME" and "pragma:write:NAME" (for STAP_GLOBAL_GET_NAME() and
 * STAP_GLOBAL_SET_NAME(v)): they count as accesses of the enclosing
 * probe or function, for its locks and so that elision keeps them.
 */
void note_pragmas(struct sema *se, const char *code, struct node *at)
{
	static const char *const kinds[] = { "pragma:read:", "pragma:write:" };

	if (!se->report)
		return;
	for (int k = 0; k < 2; k++) {
		for (const char *p = strstr(code, kinds[k]); p;
		     p = strstr(p, kinds[k])) {
			p += strlen(kinds[k]);
			size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
					  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			char *name = arena_strndup(&se->s->arena, p, n);
			struct symbol *sym = find_global(se->prog, name,
							 at->loc.file);
			if (!sym)
				diag_error(se->s, at->loc, "embedded C names "
					   "'%s' in a %s pragma, which is not a "
					   "global", name, k ? "write" : "read");
			else if (sym->type == TY_STATS)
				diag_error(se->s, at->loc, "statistic '%s' "
					   "cannot be accessed from embedded C "
					   "(an aggregate has no single value)",
					   name);
			else if (sym->nkeys)
				diag_error(se->s, at->loc, "global array '%s' "
					   "in embedded C (pragma) is not "
					   "supported yet", name);
			else
				use_global(se, sym, k == 1);
		}
	}
}

const struct node *entry_not_constant(const struct node *n)
{
	switch (n->kind) {
	case N_NUMBER:
	case N_STRING:
	case N_TMEMBER:
		return NULL;
	case N_TARGET:
		return strcmp(n->target.name, "$return") ? NULL : n;
	case N_TINDEX:
		return entry_not_constant(n->target.index);
	case N_UNARY:
		return entry_not_constant(n->unary.operand);
	case N_BINARY: {
		const struct node *x = entry_not_constant(n->binary.lhs);
		return x ? x : entry_not_constant(n->binary.rhs);
	}
	case N_TERNARY: {
		const struct node *x = entry_not_constant(n->cond.cond);
		if (!x)
			x = entry_not_constant(n->cond.then);
		return x ? x : entry_not_constant(n->cond.els);
	}
	default:
		return n;
	}
}
