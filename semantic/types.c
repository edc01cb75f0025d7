// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: the type checker. Every expression and statement of every body
 * is walked: names bind to globals, locals, script functions or builtins,
 * and types are inferred through assignments, parameters and return
 * values; the driver (sema.c) walks until nothing changes, then once more
 * with se->report set, when mismatches and unknowns are reported. Context
 * values, @cast and @defined are context.c's.
 */
#include "semantic/elaborate.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "lib/hash.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- types ---------------------------------------------------------- */

void format_loc(struct session *s, struct srcloc loc, char *buf,
		       size_t size)
{
	const struct srcfile *f = session_file(s, loc.file);

	if (f)
		snprintf(buf, size, "%s:%d:%d", f->name, loc.line, loc.col);
	else
		snprintf(buf, size, "(built in)");
}

/*
 * The symbol (or array value) sym must have type t, as used at loc.
 * Learns the type when it is still unknown; reports a conflict on the
 * last round.
 */
static void unify_sym(struct sema *se, struct symbol *sym, enum type t,
		      struct srcloc loc)
{
	if (t == TY_UNKNOWN || !sym)
		return;
	if (sym->type == TY_UNKNOWN) {
		sym->type = t;
		sym->type_loc = loc;
		se->changed = true;
		return;
	}
	if (sym->type != t && se->report) {
		char where[256];
		format_loc(se->s, sym->type_loc, where, sizeof(where));
		diag_error(se->s, loc, "type mismatch for '%s': %s here, %s "
			   "inferred at %s", sym->name, type_name(t),
			   type_name(sym->type), where);
	}
}

static void unify_key(struct sema *se, struct symbol *sym, int k, enum type t,
		      struct srcloc loc)
{
	if (t == TY_UNKNOWN)
		return;
	if (sym->key_types[k] == TY_UNKNOWN) {
		sym->key_types[k] = t;
		se->changed = true;
	} else if (sym->key_types[k] != t && se->report) {
		diag_error(se->s, loc, "type mismatch for index %d of array "
			   "'%s': %s here, %s elsewhere", k + 1, sym->name,
			   type_name(t), type_name(sym->key_types[k]));
	}
}

/* An expression must have type t (when both are known). */
void expect(struct sema *se, struct node *n, enum type got,
		   enum type want)
{
	if (got == TY_UNKNOWN || want == TY_UNKNOWN || got == want)
		return;
	if (se->report)
		diag_error(se->s, n->loc, "type mismatch: expected %s, got %s",
			   type_name(want), type_name(got));
}

enum type infer(struct sema *se, struct node *n, enum type want);

void use_global(struct sema *se, struct symbol *sym, bool write)
{
	struct probe_body *b = se->body;

	if (write) {
		const struct symbol *key = sym;

		b->write_set.arena = &se->s->arena;	/* freed with it */
		if (hashset_add(&b->write_set,
				fnv1a(FNV_OFFSET, &key, sizeof(key)))) {
			GROW(se, b->writes, b->nwrites, b->writes_cap);
			b->writes[b->nwrites++] = sym;
		}
		/* @op(s) takes a writer's lock but reads s: s is not
		 * assigned (never-assigned globals, sema.c) */
		if (se->aggregating)
			sym->read = true;
		else
			sym->written = true;
		se->body->writes_globals = true;
	} else {
		sym->read = true;
		se->body->reads_globals = true;
	}
}

/* name or name[keys] as an rvalue or lvalue. */
static struct symbol *resolve_var(struct sema *se, struct node *n, bool write)
{
	if (n->sym)
		return n->sym;
	const char *name = n->var.name;
	struct symbol *sym = find_param(se->body, name);	/* params shadow */
	if (!sym)
		sym = find_global(se->prog, name, n->loc.file);
	if (!sym)
		sym = find_local(se->body, name);
	if (!sym)
		sym = add_local(se, name, n->loc);
	n->sym = sym;
	(void)write;
	return sym;
}

static void check_iterating(struct sema *se, struct symbol *sym,
			    const struct node *at);

/*
 * A tapset's probe or function naming a global of the user's script: the
 * names are shared (a script global is visible everywhere), so the tapset
 * meant a variable of its own. SystemTap's warning, once per global, says
 * where both are.
 */
static void warn_cross_file(struct sema *se, struct symbol *sym,
			    struct srcloc at)
{
	const struct srcfile *from = session_file(se->s, at.file);
	const struct srcfile *decl = sym->decl ?
		session_file(se->s, sym->decl->loc.file) : NULL;

	if (sym->cross_file_warned || !se->report || !from || !decl ||
	    !from->privileged || decl->privileged)
		return;
	sym->cross_file_warned = true;
	diag_warning(se->s, at, "cross-file global variable reference to '%s' "
		     "at %s:%d:%d from this tapset: a script global is shared "
		     "with the library's probes, so this tapset variable is "
		     "the script's global (rename the global)", sym->name,
		     decl->name, sym->decl->loc.line, sym->decl->loc.col);
}

static void note_access(struct sema *se, struct symbol *sym, bool write,
			const struct node *at)
{
	if (sym->kind == SYM_GLOBAL) {
		warn_cross_file(se, sym, at->loc);
		use_global(se, sym, write);
		if (write)
			check_iterating(se, sym, at);
	}
	else if (write)
		sym->written = true;
	else
		sym->read = true;
}

/* "at FILE:LINE:COL" for a message about another place of sym, or
 * "elsewhere"; when that place is a tapset's and sym the script's, why a
 * tapset uses the script's global. */
static const char *where(struct sema *se, const struct symbol *sym,
			 struct srcloc loc)
{
	const struct srcfile *f = session_file(se->s, loc.file);
	const struct srcfile *decl = sym->decl ?
		session_file(se->s, sym->decl->loc.file) : NULL;

	if (!f)
		return "elsewhere";
	return arena_printf(&se->s->arena, "at %s:%d:%d%s", f->name, loc.line,
			    loc.col, f->privileged && decl && !decl->privileged ?
			    " (a tapset's variable of the same name: a script "
			    "global is shared with the library's probes)" : "");
}

static enum type infer_scalar(struct sema *se, struct node *n, enum type want,
			      bool write)
{
	struct symbol *sym = resolve_var(se, n, write);

	note_access(se, sym, write, n);
	if (!sym->used_as_scalar)
		sym->scalar_loc = n->loc;
	sym->used_as_scalar = true;
	/* global a[10] and global a% declare arrays */
	bool declared_array = sym->decl && (sym->decl->global.max_entries ||
					    sym->decl->global.wrap);
	if (sym->nkeys > 0 || declared_array) {
		if (se->report)
			diag_error(se->s, n->loc, "array '%s' used without an "
				   "index", sym->name);
		return TY_UNKNOWN;
	}
	/* reading a local statistic (@count(a)) is an error; '<<<' into
	 * one is elided (infer_assign) */
	if (want == TY_STATS && sym->kind == SYM_LOCAL) {
		if (se->report)
			diag_error(se->s, n->loc, "statistic '%s' must be a "
				   "global: declare it with 'global %s'",
				   sym->name, sym->name);
		return TY_UNKNOWN;
	}
	if (sym->type == TY_STATS && se->report && want != TY_STATS)
		diag_error(se->s, n->loc, "statistic '%s' can only be used "
			   "with '<<<', @count/@sum/@min/@max/@avg or "
			   "delete", sym->name);
	unify_sym(se, sym, want, n->loc);
	return n->type = sym->type;
}

static enum type infer_index(struct sema *se, struct node *n, enum type want,
			     bool write)
{
	struct node *arr = n->index.array;
	struct symbol *sym = find_global(se->prog, arr->var.name, arr->loc.file);
	int nkeys = ast_list_length(n->index.keys);

	if (sym && sym->used_as_scalar) {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' is used as a scalar "
				   "%s, and indexed here", sym->name,
				   where(se, sym, sym->scalar_loc));
		return TY_UNKNOWN;
	}
	if (!sym) {
		if (se->report)
			diag_error(se->s, arr->loc, "unresolved array '%s': "
				   "arrays must be declared global",
				   arr->var.name);
		ast_foreach(k, n->index.keys)
			infer(se, k, TY_UNKNOWN);
		return TY_UNKNOWN;
	}
	n->sym = arr->sym = sym;
	note_access(se, sym, write, n);
	if (nkeys > MAX_KEYS) {
		if (se->report)
			diag_error(se->s, n->loc, "too many array indexes (%d, "
				   "at most %d)", nkeys, MAX_KEYS);
		return TY_UNKNOWN;
	}
	if (sym->nkeys == 0) {
		if (sym->type != TY_UNKNOWN && sym->type_loc.file >= 0 &&
		    sym->decl && sym->decl->global.init) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' is a scalar, "
					   "not an array", sym->name);
			return TY_UNKNOWN;
		}
		sym->nkeys = nkeys;
		se->changed = true;
	} else if (sym->nkeys != nkeys && se->report) {
		diag_error(se->s, n->loc, "array '%s' used with %d indexes "
			   "here but %d elsewhere", sym->name, nkeys,
			   sym->nkeys);
	}
	int k = 0;
	ast_foreach(key, n->index.keys) {
		if (key->kind == N_WILDCARD) {
			k++;
			continue;
		}
		enum type kt = infer(se, key, k < sym->nkeys ?
				     sym->key_types[k] : TY_UNKNOWN);
		if (k < sym->nkeys)
			unify_key(se, sym, k, kt, key->loc);
		if (kt == TY_STATS && se->report)
			diag_error(se->s, key->loc, "array index must be a "
				   "number or a string");
		k++;
	}
	unify_sym(se, sym, want, n->loc);
	return n->type = sym->type;
}

static bool is_context(const struct node *n)
{
	return n->kind == N_TARGET || n->kind == N_TMEMBER ||
	       n->kind == N_TINDEX;
}

static bool is_lvalue(const struct node *n)
{
	return n->kind == N_VAR || n->kind == N_INDEX;
}

static enum type infer_lvalue(struct sema *se, struct node *n, enum type want)
{
	if (n->kind == N_VAR)
		return infer_scalar(se, n, want, true);
	if (n->kind == N_INDEX)
		return infer_index(se, n, want, true);
	/* a plain $x elsewhere may be unknown: infer says so below */
	const struct probe_family *f = body_family(se, se->body);
	if (is_context(n) && ((f && f->writable) ||
			      (n->kind != N_TARGET && !se->s->guru))) {
		if (se->report)
			diag_error(se->s, n->loc, se->s->guru ?
				   "only a kernel.function entry probe can "
				   "write its context variables ('=' only)" :
				   "write to target variable not permitted; "
				   "need stap -g");
		return TY_LONG;
	}
	if (se->report)
		diag_error(se->s, n->loc, "cannot assign to this expression "
			   "(%s)", ast_kind_name(n->kind));
	return infer(se, n, want);
}


static enum type infer_assign(struct sema *se, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;
	enum type tt;

	const struct probe_family *f = body_family(se, se->body);

	if (ast_hist_index(lhs)) {
		/* SystemTap: "cannot assign to histogram buckets" */
		if (se->report)
			diag_error(se->s, n->loc, "cannot assign to histogram "
				   "buckets: they count what '<<<' adds");
		infer(se, lhs, TY_LONG);
		infer(se, rhs, TY_LONG);
		return n->type = TY_LONG;
	}
	if (is_context(lhs) && f && f->context_assign &&
	    f->context_assign(se, n, &tt))
		return n->type = tt;
	switch (n->binary.op) {
	case OP_ASSIGN: {
		if (lhs->kind == N_VAR)
			resolve_var(se, lhs, true);	/* locals in source order */
		enum type rt = infer(se, rhs, lhs->type);
		enum type lt = infer_lvalue(se, lhs, rt);
		if (rt == TY_UNKNOWN && lt != TY_UNKNOWN)
			rt = infer(se, rhs, lt);
		if (lt == TY_STATS && se->report)
			diag_error(se->s, n->loc, "use '<<<' to add a value "
				   "to statistic '%s'", lhs->sym ?
				   lhs->sym->name : "?");
		if (lhs->kind == N_VAR && lhs->sym)
			note_btf_type(se, lhs->sym, rhs);
		/* a conflict was reported by unify_sym, at the variable */
		return n->type = lt != TY_UNKNOWN ? lt : rt;
	}
	case OP_AGG:
		/* '<<<' writes this CPU's slot only: a reader's lock is enough */
		if (lhs->kind == N_VAR &&
		    resolve_var(se, lhs, true)->kind == SYM_LOCAL) {
			/* into a local nothing reads: elided, as in SystemTap */
			lhs->sym->written = true;
			unify_sym(se, lhs->sym, TY_STATS, lhs->loc);
			lhs->type = lhs->sym->type;
		} else if (lhs->kind == N_VAR)
			infer_scalar(se, lhs, TY_STATS, false);
		else if (lhs->kind == N_INDEX)
			infer_index(se, lhs, TY_STATS, false);
		else
			infer_lvalue(se, lhs, TY_STATS);
		if (lhs->sym)
			lhs->sym->written = true;
		expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
		return n->type = TY_UNKNOWN;
	case OP_CONCAT:
		infer_lvalue(se, lhs, TY_STRING);
		expect(se, rhs, infer(se, rhs, TY_STRING), TY_STRING);
		return n->type = TY_STRING;
	default:
		infer_lvalue(se, lhs, TY_LONG);
		expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
		return n->type = TY_LONG;
	}
}

/* The pattern of =~ / !~ (a literal, as pass 1 ensures) must compile. */
static void check_regex(struct sema *se, const struct node *pat)
{
	struct regex re;
	const char *err;
	size_t off;

	if (pat->kind != N_STRING)
		return;
	if (regex_compile(&re, pat->str.value, pat->str.len, &err, &off) < 0) {
		diag_error(se->s, pat->loc, "bad regular expression: %s (at "
			   "offset %zu)", err, off);
		return;
	}
	regex_free(&re);
}

static enum type infer_binary(struct sema *se, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;

	switch (n->binary.op) {
	case OP_CONCAT:
	case OP_MATCH:
	case OP_NMATCH:
		expect(se, lhs, infer(se, lhs, TY_STRING), TY_STRING);
		expect(se, rhs, infer(se, rhs, TY_STRING), TY_STRING);
		if (n->binary.op != OP_CONCAT && se->report)
			check_regex(se, rhs);
		return n->type = n->binary.op == OP_CONCAT ? TY_STRING : TY_LONG;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
		/* both sides the same type, long or string */
		enum type lt = infer(se, lhs, TY_UNKNOWN);
		enum type rt = infer(se, rhs, lt);
		if (lt == TY_UNKNOWN && rt != TY_UNKNOWN)
			lt = infer(se, lhs, rt);
		if (lt != TY_UNKNOWN && rt != TY_UNKNOWN && lt != rt &&
		    se->report)
			diag_error(se->s, n->loc, "type mismatch: cannot compare "
				   "%s with %s", type_name(lt), type_name(rt));
		if ((lt == TY_STATS || rt == TY_STATS) && se->report)
			diag_error(se->s, n->loc, "cannot compare statistics");
		return n->type = TY_LONG;
	}
	default:
		expect(se, lhs, infer(se, lhs, TY_LONG), TY_LONG);
		expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
		return n->type = TY_LONG;
	}
}

static void check_print(struct sema *se, struct node *n)
{
	struct node *args = n->print.args;
	enum print_kind k = n->print.kind;

	if (k == PRINT_PRINTF || k == PRINT_SPRINTF) {
		if (!args || args->kind != N_STRING) {
			if (se->report)
				diag_error(se->s, n->loc, "the format of %s must "
					   "be a string literal", k == PRINT_PRINTF
					   ? "printf" : "sprintf");
			ast_foreach(a, args)
				infer(se, a, TY_UNKNOWN);
			return;
		}
		struct fmt_piece *pieces;
		const char *err;
		size_t off;
		int np = format_parse(&se->s->arena, args->str.value,
				      args->str.len, &pieces, &err, &off);
		if (np < 0) {
			if (se->report)
				diag_error(se->s, args->loc, "bad format: %s (at "
					   "offset %zu)", err, off);
			return;
		}
		struct node *a = args->next;
		for (int i = 0; i < np; i++) {
			struct fmt_piece *p = &pieces[i];
			if (!p->is_conv)
				continue;
			int want_n = format_piece_args(p);
			for (int j = 0; j < want_n; j++) {
				if (!a) {
					if (se->report)
						diag_error(se->s, n->loc, "too few "
							   "arguments for the format");
					return;
				}
				bool value = j == want_n - 1;
				enum type want = value && (p->conv == 's') ?
					TY_STRING : TY_LONG;
				expect(se, a, infer(se, a, want), want);
				a = a->next;
			}
		}
		if (a && se->report)
			diag_error(se->s, a->loc, "too many arguments for the "
				   "format");
		return;
	}
	if (k == PRINT_PRINTD || k == PRINT_PRINTDLN || k == PRINT_SPRINTD ||
	    k == PRINT_SPRINTDLN) {
		if (!args || args->kind != N_STRING) {
			if (se->report)
				diag_error(se->s, n->loc, "the delimiter must be "
					   "a string literal");
		} else if (ast_list_length(args) < 3 && se->report) {
			diag_error(se->s, n->loc, "this print needs at least "
				   "two values after the delimiter");
		}
		ast_foreach(a, args ? args->next : NULL)
			if (infer(se, a, TY_UNKNOWN) == TY_STATS && se->report)
				diag_error(se->s, a->loc, "cannot print a statistic");
		return;
	}
	if ((k == PRINT_PRINT || k == PRINT_SPRINT) && !args && se->report)
		diag_error(se->s, n->loc, "print and sprint need a value");
	if ((k == PRINT_SPRINTLN) && !args && se->report)
		diag_error(se->s, n->loc, "sprintln needs a value");
	ast_foreach(a, args) {
		enum type t = infer(se, a, TY_UNKNOWN);
		if (t == TY_STATS && se->report)
			diag_error(se->s, a->loc, "cannot print a statistic");
	}
}

static size_t callee_slot(const struct probe_body *b,
			  const struct script_func *f)
{
	size_t mask = (size_t)b->callee_set_size - 1;
	size_t h = fnv1a(FNV_OFFSET, &f, sizeof(f)) & mask;

	while (b->callee_set[h] && b->callee_set[h] != f)
		h = (h + 1) & mask;
	return h;
}

static void add_callee(struct sema *se, struct script_func *f)
{
	struct probe_body *b = se->body;

	if (b->callee_set_size && b->callee_set[callee_slot(b, f)])
		return;
	GROW(se, b->callees, b->ncallees, b->callees_cap);
	b->callees[b->ncallees++] = f;
	/* at most half full: probe sequences stay short */
	if (2 * b->ncallees > b->callee_set_size) {
		b->callee_set_size = b->callee_set_size ?
				     2 * b->callee_set_size : 16;
		b->callee_set = arena_alloc(&se->s->arena,
					    (size_t)b->callee_set_size *
					    sizeof(*b->callee_set));
		for (int i = 0; i < b->ncallees - 1; i++)
			b->callee_set[callee_slot(b, b->callees[i])] =
				b->callees[i];
	}
	b->callee_set[callee_slot(b, f)] = f;
}

/* A call of a script function: arguments flow into the parameters. */
/* Does f, or anything it calls, write sym? (seen: functions visited) */
static bool func_writes(struct script_func *f, const struct symbol *sym,
			bool *seen)
{
	if (seen[f->index])
		return false;
	seen[f->index] = true;
	for (int i = 0; i < f->scope->nwrites; i++)
		if (f->scope->writes[i] == sym)
			return true;
	for (int i = 0; i < f->scope->ncallees; i++)
		if (func_writes(f->scope->callees[i], sym, seen))
			return true;
	return false;
}

/*
 * Inside foreach (k in a), nothing may write a: not directly (reported by
 * check_iterating) and not through a function it calls.
 */
static void check_call_iterating(struct sema *se, struct node *n,
				 struct script_func *f)
{
	for (int d = 0; d < se->niterating && se->report; d++) {
		bool *seen = xmalloc((size_t)(se->prog->nfuncs + 1));
		memset(seen, 0, (size_t)(se->prog->nfuncs + 1));
		bool writes = func_writes(f, se->iterating[d], seen);
		free(seen);
		if (writes) {
			diag_error(se->s, n->loc, "function '%s' modifies '%s' "
				   "during a foreach over it", f->sym->name,
				   se->iterating[d]->name);
			return;
		}
	}
}

static void check_iterating(struct sema *se, struct symbol *sym,
			    const struct node *at)
{
	for (int d = 0; d < se->niterating && se->report && !se->aggregating;
	     d++)
		if (se->iterating[d] == sym) {
			diag_error(se->s, at->loc, "array '%s' modified during a "
				   "foreach over it", sym->name);
			return;
		}
}

static enum type infer_script_call(struct sema *se, struct node *n,
				   struct script_func *f, enum type want)
{
	n->sym = f->sym;
	/* embedded C without a declared type returns what its callers
	 * take (SystemTap infers it from the call) */
	if (f->embedded && f->decl->func.decl_type == TY_UNKNOWN &&
	    f->sym->type == TY_UNKNOWN &&
	    (want == TY_LONG || want == TY_STRING))
		unify_sym(se, f->sym, want, n->loc);
	add_callee(se, f);
	check_call_iterating(se, n, f);
	/* SystemTap's rule: a tapset function marked guru needs -g unless
	 * the caller is privileged code itself */
	if (se->report && !se->s->guru && f->embedded && f->decl->func.body &&
	    strstr(f->decl->func.body->embedded.code, "/* guru */") &&
	    !session_file(se->s, n->loc.file)->privileged)
		diag_error(se->s, n->loc, "function '%s' may not be used "
			   "unless -g is specified (guru mode)", n->call.name);
	if (!f->used) {
		f->used = true;
		se->changed = true;
	}
	int i = 0;
	ast_foreach(a, n->call.args) {
		struct symbol *param = f->scope->locals[i++];
		enum type t = infer(se, a, param->type);
		if (t == TY_STATS) {
			if (se->report)
				diag_error(se->s, a->loc, "a statistic cannot be "
					   "passed to a function");
			continue;
		}
		unify_sym(se, param, t, a->loc);
	}
	return n->type = f->sym->type;
}


static enum type infer_call(struct sema *se, struct node *n, enum type want)
{
	int nargs_given = ast_list_length(n->call.args);
	struct script_func *f = n->sym && n->sym->kind == SYM_FUNCTION ?
		n->sym->func : find_func(se->prog, n->call.name, nargs_given,
				     n->loc.file);

	if (f && !n->sym)
		f = sema_bind_call(se, f, n);	/* a copy, for $x in f */
	if (f)
		return infer_script_call(se, n, f, want);
	if (func_name_exists(se->prog, n->call.name, n->loc.file)) {
		if (se->report)
			diag_error(se->s, n->loc, "no function '%s' takes %d "
				   "argument%s", n->call.name, nargs_given,
				   nargs_given == 1 ? "" : "s");
		ast_foreach(a, n->call.args)
			infer(se, a, TY_UNKNOWN);
		return TY_UNKNOWN;
	}
	struct symbol *sym = n->sym ? n->sym :
			     builtin_symbol(se, n->call.name, nargs_given);

	if (!sym) {
		if (se->report) {
			const char *hint = suggest_function(se, n->call.name);
			if (hint)
				diag_error(se->s, n->loc, "unresolved function "
					   "'%s' (did you mean '%s'?)",
					   n->call.name, hint);
			else
				diag_error(se->s, n->loc, "unresolved function "
					   "'%s'", n->call.name);
		}
		ast_foreach(a, n->call.args)
			infer(se, a, TY_UNKNOWN);
		return TY_UNKNOWN;
	}
	n->sym = sym;
	int nargs = ast_list_length(n->call.args);
	if (nargs != sym->nargs) {
		if (se->report)
			diag_error(se->s, n->loc, "%s() takes %d argument%s, "
				   "got %d", sym->name, sym->nargs,
				   sym->nargs == 1 ? "" : "s", nargs);
		return n->type = sym->type;
	}
	int i = 0;
	ast_foreach(a, n->call.args) {
		expect(se, a, infer(se, a, sym->arg_types[i]), sym->arg_types[i]);
		i++;
	}
	return n->type = sym->type;
}

/*
 * The most buckets a linear histogram may have: SystemTap's
 * STP_MAX_BUCKETS (runtime/stat.h), 128 unless -D sets it. SystemTap
 * checks it when the module starts (_stp_stat_calc_buckets: "Number of
 * buckets must be between 1 and ..."), and the module does not load;
 * here pass 2 says it at the histogram.
 */
static int64_t max_buckets(const struct session *s)
{
	int64_t max = 128;

	for (int i = 0; i < s->ndefines; i++) {
		const char *v = s->defines[i].value;
		char *end;
		if (strcmp(s->defines[i].name, "STP_MAX_BUCKETS") || !v)
			continue;
		errno = 0;
		long long m = strtoll(v, &end, 0);
		if (end != v && !*end && !errno)
			max = m;
	}
	return max;
}

/* Every histogram of one statistic must have the same shape. */
static void note_hist(struct sema *se, struct node *n, struct symbol *sym)
{
	int64_t p[3] = { 0, 0, 0 };
	int np = 0;

	ast_foreach(a, n->stat.args) {
		if (a->kind != N_NUMBER || np == 3)
			return;
		p[np++] = a->num.value;
	}
	if (n->stat.op == HIST_LINEAR) {
		if (np != 3) {
			diag_error(se->s, n->loc, "@hist_linear needs a low "
				   "bound, a high bound and a step");
			return;
		}
		if (p[2] <= 0 || p[1] <= p[0]) {
			diag_error(se->s, n->loc, "bad @hist_linear range: "
				   "the step must be positive and low < high");
			return;
		}
		/* hi > lo: their difference fits a u64 (lo may be
		 * -2^63 now that parameters may be negative) */
		uint64_t steps = ((uint64_t)p[1] - (uint64_t)p[0]) /
				 (uint64_t)p[2];
		int64_t max = max_buckets(se->s);
		if (max < 3 || steps > (uint64_t)max - 3) {
			diag_error(se->s, n->loc, "too many @hist_linear "
				   "buckets: (HIGH - LOW) / STEP + 3 is %" PRIu64
				   ", more than STP_MAX_BUCKETS (%" PRId64 "); "
				   "use a larger step or a narrower range, or "
				   "raise the limit with -D STP_MAX_BUCKETS=N",
				   steps > UINT64_MAX - 3 ? UINT64_MAX :
				   steps + 3, max);
			return;
		}
	} else if (np != 0) {
		diag_error(se->s, n->loc, "@hist_log takes no parameters");
		return;
	}
	if (sym->hist == STAT_NONE) {
		sym->hist = n->stat.op;
		sym->hist_lo = p[0];
		sym->hist_hi = p[1];
		sym->hist_step = p[2];
		sym->hist_loc = n->loc;
	} else if (sym->hist != n->stat.op || sym->hist_lo != p[0] ||
		   sym->hist_hi != p[1] || sym->hist_step != p[2]) {
		char where[256];
		format_loc(se->s, sym->hist_loc, where, sizeof(where));
		diag_error(se->s, n->loc, "'%s' has a different histogram at "
			   "%s; a statistic has one histogram", sym->name,
			   where);
	}
}

static enum type infer_stat(struct sema *se, struct node *n)
{
	struct node *op = n->stat.operand;

	/* aggregating needs the statistic exclusively: a writer's lock
	 * (but it does not modify it, as far as foreach is concerned) */
	se->aggregating = true;
	if (op->kind == N_VAR)
		infer_scalar(se, op, TY_STATS, true);
	else if (op->kind == N_INDEX)
		infer_index(se, op, TY_STATS, true);
	else if (se->report)
		diag_error(se->s, op->loc, "%s needs a statistic variable",
			   n->kind == N_HIST ? "a histogram" : "this operator");
	se->aggregating = false;
	if (op->type != TY_STATS && op->type != TY_UNKNOWN && se->report)
		diag_error(se->s, op->loc, "'%s' is not a statistic (it is a "
			   "%s)", op->sym ? op->sym->name : "?",
			   type_name(op->type));
	ast_foreach(a, n->stat.args) {
		expect(se, a, infer(se, a, TY_LONG), TY_LONG);
		if (a->kind != N_NUMBER && se->report)
			diag_error(se->s, a->loc, "%s parameters must be number "
				   "literals", n->kind == N_HIST ? "histogram" :
				   "@variance");
	}
	if (n->kind == N_HIST && op->sym && se->report)
		note_hist(se, n, op->sym);
	if (n->kind == N_STAT && n->stat.op == STAT_VARIANCE && op->sym)
		op->sym->uses_variance = true;
	if (n->kind == N_STAT && op->sym && n->stat.args) {
		struct node *a = n->stat.args;
		if (n->stat.op != STAT_VARIANCE || a->next) {
			if (se->report)
				diag_error(se->s, a->loc, "only @variance takes "
					   "a parameter (the bit shift)");
		} else if (a->kind == N_NUMBER) {
			if ((a->num.value < 0 || a->num.value > 62) && se->report)
				diag_error(se->s, a->loc, "the @variance bit "
					   "shift must be between 0 and 62");
			else if (a->num.value > op->sym->var_shift)
				op->sym->var_shift = (int)a->num.value;
		}
	}
	return n->type = n->kind == N_HIST ? TY_UNKNOWN : TY_LONG;
}

/*
 * The buckets of a histogram, SystemTap's one-dimensional array of
 * counts indexed by bucket number: @hist_log(s)[b] and b in @hist_log(s)
 * (the same count: 'in' is true when the bucket counts anything).
 */
static enum type infer_hist_keys(struct sema *se, struct node *hist,
				 struct node *keys, struct srcloc at)
{
	infer_stat(se, hist);
	if (ast_list_length(keys) != 1) {
		if (se->report)
			diag_error(se->s, at, "a histogram has one index, the "
				   "bucket number, not %d",
				   ast_list_length(keys));
		ast_foreach(k, keys)
			if (k->kind != N_WILDCARD)
				infer(se, k, TY_LONG);
		return TY_LONG;
	}
	if (keys->kind == N_WILDCARD) {
		if (se->report)
			diag_error(se->s, keys->loc, "a histogram bucket needs "
				   "a number, not '*'");
		return TY_LONG;
	}
	expect(se, keys, infer(se, keys, TY_LONG), TY_LONG);
	return TY_LONG;
}

enum type infer(struct sema *se, struct node *n, enum type want)
{
	switch (n->kind) {
	case N_NUMBER:
		return n->type = TY_LONG;
	case N_STRING:
		return n->type = TY_STRING;
	case N_VAR:
		return infer_scalar(se, n, want, false);
	case N_INDEX:
		return infer_index(se, n, want, false);
	case N_ASSIGN:
		return infer_assign(se, n);
	case N_BINARY:
		if (n->binary.op == OP_AND || n->binary.op == OP_OR) {
			expect(se, n->binary.lhs,
			       infer(se, n->binary.lhs, TY_LONG), TY_LONG);
			expect(se, n->binary.rhs,
			       infer(se, n->binary.rhs, TY_LONG), TY_LONG);
			return n->type = TY_LONG;
		}
		return infer_binary(se, n);
	case N_UNARY:
		if (n->unary.op == OP_ADDR) {
			struct node *op = n->unary.operand;
			struct node *root = chain_root(op);
			const struct probe_family *f = body_family(se, se->body);
			/* &@var("x") in a kernel.function probe: &$x */
			if (root->kind == N_ATFUNC &&
			    !strcmp(root->call.name, "@var"))
				atvar_is_context(se, root);
			/* &$x->f: the family's slot for the address */
			if (is_context(op) && root->kind == N_TARGET && f &&
			    !f->first_claims &&
			    f->context(se, op, true) != TY_UNKNOWN) {
				n->sym = op->sym;
				op->sym = NULL;	/* not read itself */
				return n->type = TY_LONG;
			}
			if (is_typed_root(root) ||
			    autocast_root(root, op))
				return infer_cast_chain(se, n, op, PATH_ADDRESS, 0);
			if (se->report)
				diag_error(se->s, n->loc, "'&' applies only to "
					   "members of context variables and "
					   "@cast ($x->f, @cast(p, \"T\")->f)");
			return TY_LONG;
		}
		expect(se, n->unary.operand,
		       infer(se, n->unary.operand, TY_LONG), TY_LONG);
		return n->type = TY_LONG;
	case N_INCDEC:
		if (!is_lvalue(n->incdec.operand)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' needs a variable",
					   n->incdec.increment ? "++" : "--");
			return TY_LONG;
		}
		infer_lvalue(se, n->incdec.operand, TY_LONG);
		/* ++ reads too (an unresolved name was reported) */
		if (n->incdec.operand->sym)
			note_access(se, n->incdec.operand->sym, false, n);
		return n->type = TY_LONG;
	case N_TERNARY: {
		expect(se, n->cond.cond, infer(se, n->cond.cond, TY_LONG),
		       TY_LONG);
		int64_t live;
		if (sema_folded_defined(n->cond.cond, &live))	/* one branch only */
			return n->type = infer(se, live ? n->cond.then :
					       n->cond.els, want);
		enum type a = infer(se, n->cond.then, want);
		enum type b = infer(se, n->cond.els, a != TY_UNKNOWN ? a : want);
		if (a == TY_UNKNOWN)
			a = infer(se, n->cond.then, b);
		if (a != TY_UNKNOWN && b != TY_UNKNOWN && a != b && se->report)
			diag_error(se->s, n->loc, "type mismatch: the branches "
				   "are %s and %s", type_name(a), type_name(b));
		return n->type = a != TY_UNKNOWN ? a : b;
	}
	case N_IN: {
		struct node *arr = n->binary.rhs;
		if (arr->kind == N_HIST)
			return n->type = infer_hist_keys(se, arr, n->binary.lhs,
							 n->loc);
		struct symbol *sym = find_global(se->prog, arr->var.name, arr->loc.file);
		if (!sym) {
			if (se->report)
				diag_error(se->s, arr->loc, "unresolved array "
					   "'%s'", arr->var.name);
			return TY_LONG;
		}
		arr->sym = n->sym = sym;
		note_access(se, sym, false, n);
		if (sym->used_as_scalar && se->report)
			diag_error(se->s, n->loc, "'%s' is used as a scalar "
				   "%s, and as an array here", sym->name,
				   where(se, sym, sym->scalar_loc));
		int k = 0;
		ast_foreach(key, n->binary.lhs) {
			if (key->kind != N_WILDCARD && k < MAX_KEYS) {
				enum type kt = infer(se, key, sym->key_types[k]);
				if (k < sym->nkeys)
					unify_key(se, sym, k, kt, key->loc);
			}
			k++;
		}
		if (sym->nkeys && sym->nkeys != k && se->report)
			diag_error(se->s, n->loc, "array '%s' has %d indexes, "
				   "not %d", sym->name, sym->nkeys, k);
		return n->type = TY_LONG;
	}
	case N_CALL:
		return infer_call(se, n, want);
	case N_PRINT:
		check_print(se, n);
		switch (n->print.kind) {
		case PRINT_SPRINT: case PRINT_SPRINTLN: case PRINT_SPRINTF:
		case PRINT_SPRINTD: case PRINT_SPRINTDLN:
			return n->type = TY_STRING;
		default:
			return n->type = TY_UNKNOWN;
		}
	case N_STAT:
	case N_HIST:
		return infer_stat(se, n);
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
		if (ast_hist_index(n))
			return n->type = infer_hist_keys(se, n->target.base,
							 n->target.index,
							 n->loc);
		return infer_target(se, n);
	case N_ATFUNC:
		if (!strcmp(n->call.name, "@defined"))
			return infer_defined(se, n);
		if (!strcmp(n->call.name, "@cast"))
			return infer_cast_chain(se, n, n, 0, 0);
		if (!strcmp(n->call.name, "@var"))
			return atvar_is_context(se, n) ? infer_target(se, n) :
			       infer_cast_chain(se, n, n, 0, 0);
		if (!strcmp(n->call.name, "@json_print"))
			return infer_json_print(se, n);
		{
			/* the body's own family first (@entry of a kprobe
			 * .return is the kprobe family's), then any */
			const struct probe_body *cb = sema_ctx(se);
			const struct derived_probe *first = cb ?
				body_first_probe(se->prog, cb) : NULL;
			enum type t;
			if (first && first->family->at_func &&
			    body_all_of(se, cb, first->family) &&
			    first->family->at_func(se, n, want, &t))
				return t;
		}
		for (int f = 0; probe_families[f]; f++) {
			enum type t;
			if (probe_families[f]->at_func &&
			    probe_families[f]->at_func(se, n, want, &t))
				return t;
		}
		if (se->report)
			diag_error(se->s, n->loc, "'%s' is not supported yet",
				   n->call.name);
		return TY_UNKNOWN;
	case N_EMBEDDED:
		/* the parser allows it only in tapsets and with -g */
		note_pragmas(se, n->embedded.code, n);
		return n->type = strstr(n->embedded.code, "/* string */") ?
				 TY_STRING : TY_LONG;
	case N_WILDCARD:
		if (se->report)
			diag_error(se->s, n->loc, "'*' is only allowed as an "
				   "index in 'in' and delete");
		return TY_UNKNOWN;
	default:
		if (se->report)
			diag_error(se->s, n->loc, "unexpected %s in an "
				   "expression", ast_kind_name(n->kind));
		return TY_UNKNOWN;
	}
}

/* ---- statements ----------------------------------------------------- */


/*
 * if (@defined($x->f)) A else B: only the live branch is kept, in place,
 * before its names are checked (the dead one may use members this kernel
 * lacks: the point of @defined), as SystemTap folds it in pass 2.
 */
static bool fold_defined_if(struct node *n)
{
	struct node *next = n->next, *tail = n->tail;
	const struct node *live;
	int64_t v;

	if (!sema_folded_defined(n->cond.cond, &v))
		return false;
	live = v ? n->cond.then : n->cond.els;
	if (live) {
		*n = *live;
	} else {
		n->kind = N_NULL_STMT;
	}
	n->next = next;
	n->tail = tail;
	return true;
}

static void walk_list(struct sema *se, struct node *list)
{
	ast_foreach(st, list)
		walk_stmt(se, st);
}

/*
 * foreach (b in @hist_log(s)): b runs over every bucket number, 0 up to
 * the last, whatever the sort marker (SystemTap 4.8 ignores it); v =
 * b takes the bucket's count. The body may add to s (SystemTap allows
 * it): nothing is snapshot but the aggregate.
 */
static void walk_hist_foreach(struct sema *se, struct node *n)
{
	struct node *hist = n->foreach.array;
	int nkeys = ast_list_length(n->foreach.keys);

	infer_stat(se, hist);
	if (nkeys != 1 && se->report)
		diag_error(se->s, n->loc, "foreach over a histogram has one "
			   "index, the bucket number, not %d", nkeys);
	ast_foreach(key, n->foreach.keys)
		infer_scalar(se, key, TY_LONG, true);
	if (n->foreach.value)
		infer_scalar(se, n->foreach.value, TY_LONG, true);
	if (n->foreach.slice && se->report)
		diag_error(se->s, n->foreach.slice->loc, "a histogram's "
			   "buckets cannot be sliced; test the bucket number "
			   "in the loop");
	if (n->foreach.sort_agg != STAT_NONE && se->report)
		diag_error(se->s, n->loc, "sorting by an aggregate needs an "
			   "array of statistics");
	if (n->foreach.limit)
		expect(se, n->foreach.limit,
		       infer(se, n->foreach.limit, TY_LONG), TY_LONG);
	se->loop_depth++;
	walk_stmt(se, n->foreach.body);
	se->loop_depth--;
}

static void walk_foreach(struct sema *se, struct node *n)
{
	struct node *arr = n->foreach.array;
	if (arr->kind == N_HIST) {
		walk_hist_foreach(se, n);
		return;
	}
	struct symbol *sym = find_global(se->prog, arr->var.name, arr->loc.file);

	if (!sym) {
		if (se->report)
			diag_error(se->s, arr->loc, "foreach over '%s', which "
				   "is not a global array", arr->var.name);
	} else {
		arr->sym = sym;
		/* a statistics array is aggregated into one shared copy
		 * (a writer's lock; it is read) */
		se->aggregating = sym->type == TY_STATS;
		note_access(se, sym, sym->type == TY_STATS, arr);
		se->aggregating = false;
		int nkeys = ast_list_length(n->foreach.keys);
		if (sym->nkeys && sym->nkeys != nkeys && se->report)
			diag_error(se->s, n->loc, "foreach has %d keys but "
				   "array '%s' has %d indexes", nkeys,
				   sym->name, sym->nkeys);
		int k = 0;
		ast_foreach(key, n->foreach.keys) {
			infer_scalar(se, key, k < MAX_KEYS ?
				     sym->key_types[k] : TY_UNKNOWN, true);
			if (k < MAX_KEYS && k < sym->nkeys)
				unify_key(se, sym, k, key->type, key->loc);
			k++;
		}
		if (n->foreach.value && sym->type == TY_STATS) {
			if (se->report)
				diag_error(se->s, n->foreach.value->loc, "the "
					   "values of statistics array '%s' cannot "
					   "be copied to a local; use @count(%s[...]) "
					   "and friends", sym->name, sym->name);
		} else if (n->foreach.value) {
			infer_scalar(se, n->foreach.value, sym->type, true);
		}
		k = 0;
		ast_foreach(key, n->foreach.slice) {
			if (key->kind != N_WILDCARD && k < MAX_KEYS) {
				enum type kt = infer(se, key, sym->key_types[k]);
				if (k < sym->nkeys)
					unify_key(se, sym, k, kt, key->loc);
			}
			k++;
		}
		if (n->foreach.slice && k != nkeys && se->report)
			diag_error(se->s, n->foreach.slice->loc, "the slice has "
				   "%d indexes but foreach has %d keys", k,
				   nkeys);
		if (n->foreach.sort_agg == STAT_VARIANCE)
			sym->uses_variance = true;
		if (n->foreach.sort_agg != STAT_NONE && sym->type != TY_STATS &&
		    se->report)
			diag_error(se->s, n->loc, "sorting by an aggregate needs "
				   "an array of statistics");
	}
	if (n->foreach.limit)
		expect(se, n->foreach.limit,
		       infer(se, n->foreach.limit, TY_LONG), TY_LONG);
	bool pushed = sym && se->niterating < (int)(sizeof(se->iterating) /
						   sizeof(se->iterating[0]));
	if (pushed)
		se->iterating[se->niterating++] = sym;
	se->loop_depth++;
	walk_stmt(se, n->foreach.body);
	se->loop_depth--;
	if (pushed)
		se->niterating--;
}

void walk_stmt(struct sema *se, struct node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		walk_list(se, n->block.stmts);
		break;
	case N_NULL_STMT:
		break;
	case N_EXPR_STMT:
		infer(se, n->stmt.expr, TY_UNKNOWN);
		break;
	case N_IF: {
		expect(se, n->cond.cond, infer(se, n->cond.cond, TY_LONG),
		       TY_LONG);
		if (fold_defined_if(n)) {
			walk_stmt(se, n);	/* the live branch only */
			break;
		}
		walk_stmt(se, n->cond.then);
		if (n->cond.els)
			walk_stmt(se, n->cond.els);
		break;
	}
	case N_WHILE:
	case N_FOR:
		if (n->loop.init)
			infer(se, n->loop.init, TY_UNKNOWN);
		if (n->loop.cond)
			expect(se, n->loop.cond,
			       infer(se, n->loop.cond, TY_LONG), TY_LONG);
		if (n->loop.step)
			infer(se, n->loop.step, TY_UNKNOWN);
		se->loop_depth++;
		walk_stmt(se, n->loop.body);
		se->loop_depth--;
		break;
	case N_FOREACH:
		walk_foreach(se, n);
		break;
	case N_BREAK:
	case N_CONTINUE:
		if (se->loop_depth == 0 && se->report)
			diag_error(se->s, n->loc, "'%s' outside a loop",
				   n->kind == N_BREAK ? "break" : "continue");
		break;
	case N_NEXT:
		break;
	case N_RETURN: {
		struct script_func *f = se->body->func;
		if (!f) {
			if (se->report)
				diag_error(se->s, n->loc, "'return' is only "
					   "allowed in functions; use 'next' to "
					   "leave a probe");
			break;
		}
		if (!n->stmt.expr)
			break;
		f->returns_value = true;
		enum type t = infer(se, n->stmt.expr, f->sym->type);
		if (t == TY_STATS) {
			if (se->report)
				diag_error(se->s, n->stmt.expr->loc, "a function "
					   "cannot return a statistic");
			break;
		}
		unify_sym(se, f->sym, t, n->stmt.expr->loc);
		note_btf_type(se, f->sym, n->stmt.expr);	/* f()->x */
		break;
	}
	case N_DELETE: {
		struct node *e = n->stmt.expr;
		if (e->kind == N_VAR) {
			struct symbol *sym = find_global(se->prog, e->var.name, e->loc.file);
			if (!sym)
				sym = find_local(se->body, e->var.name);
			if (!sym) {
				if (se->report)
					diag_error(se->s, e->loc, "delete of "
						   "unknown variable '%s'",
						   e->var.name);
				break;
			}
			e->sym = sym;
			note_access(se, sym, true, e);
		} else if (e->kind == N_INDEX) {
			infer_index(se, e, TY_UNKNOWN, true);
		} else if (ast_hist_index(e)) {
			if (se->report)
				diag_error(se->s, e->target.base->loc,
					   "cannot delete histogram bucket "
					   "entries: delete the statistic");
			infer(se, e, TY_LONG);
		} else if (se->report) {
			diag_error(se->s, e->loc, "delete needs a variable, an "
				   "array or an array element");
		}
		break;
	}
	case N_TRY:
		walk_stmt(se, n->try.body);
		if (n->try.catch_var) {
			struct symbol *sym = find_local(se->body, n->try.catch_var);
			if (!sym)
				sym = add_local(se, n->try.catch_var,
						n->try.catch_loc);
			unify_sym(se, sym, TY_STRING, n->try.catch_loc);
			sym->written = true;	/* the catch assigns it */
		}
		walk_stmt(se, n->try.handler);
		break;
	case N_EMBEDDED:
		/* privileged; pass 3 pastes it */
		note_pragmas(se, n->embedded.code, n);
		break;
	default:
		if (se->report)
			diag_error(se->s, n->loc, "unexpected %s",
				   ast_kind_name(n->kind));
		break;
	}
}
