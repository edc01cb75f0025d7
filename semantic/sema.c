// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: elaboration.
 *
 *   1. globals are collected from every file;
 *   2. each probe point is matched against the probe families (begin, end,
 *      error, never, timer.*, kernel.trace) and becomes a derived probe;
 *   3. each probe body is walked: names bind to globals, locals, script
 *      functions (by name and arity) or built-in functions; a function
 *      becomes "used" (and is walked too) when something used calls it;
 *   4. types are inferred over the whole program, through parameters and
 *      return values, until nothing changes, then one last walk reports
 *      mismatches and what stayed unknown;
 *   5. global accesses are propagated up the call graph (for the probes'
 *      locks) and the deepest call chain is measured (-1: recursion).
 *
 * Invariant: this file never allocates AST nodes, it only annotates them.
 */
#include "semantic/semantic.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "target/btf.h"
#include "target/functions.h"
#include "target/tracepoints.h"
#include "lib/files.h"
#include "lib/strbuf.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Grow an array in the session arena (freed with the session). */
#define GROW(se, arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			int nc_ = (cap) ? (cap) * 2 : 8;		\
			void *na_ = arena_alloc(&(se)->s->arena,	\
				(size_t)nc_ * sizeof(*(arr)));		\
			if (n)						\
				memcpy(na_, (arr),			\
				       (size_t)(n) * sizeof(*(arr)));	\
			(arr) = na_;					\
			(cap) = nc_;					\
		}							\
	} while (0)

/* Functions the compiler provides until the tapset library lands. */
static const struct builtin {
	const char *name;
	enum type ret;
	int nargs;
	enum type args[3];
	const char *c_expr;
	enum builtin_kind kind;
} builtins[] = {
	/* the string tapset, implemented in runtime/tapset.c */
	{ "strlen", TY_LONG, 1, { TY_STRING }, "stp_f_strlen", BI_LONG },
	{ "substr", TY_STRING, 3, { TY_STRING, TY_LONG, TY_LONG },
	  "stp_f_substr", BI_STRING },
	{ "stringat", TY_LONG, 2, { TY_STRING, TY_LONG }, "stp_f_stringat",
	  BI_LONG },
	{ "isinstr", TY_LONG, 2, { TY_STRING, TY_STRING }, "stp_f_isinstr",
	  BI_LONG },
	{ "strpos", TY_LONG, 2, { TY_STRING, TY_STRING }, "stp_f_strpos",
	  BI_LONG },
	{ "str_replace", TY_STRING, 3, { TY_STRING, TY_STRING, TY_STRING },
	  "stp_f_str_replace", BI_STRING },
	{ "string_quoted", TY_STRING, 1, { TY_STRING }, "stp_f_string_quoted",
	  BI_STRING },
	{ "text_str", TY_STRING, 1, { TY_STRING }, "stp_f_text_str",
	  BI_STRING },
	{ "text_strn", TY_STRING, 3, { TY_STRING, TY_LONG, TY_LONG },
	  "stp_f_text_strn", BI_STRING },
	{ "strtol", TY_LONG, 2, { TY_STRING, TY_LONG }, "stp_f_strtol",
	  BI_LONG },
	{ "tokenize", TY_STRING, 2, { TY_STRING, TY_STRING }, "stp_f_tokenize",
	  BI_CTX_STRING },
	{ "print_char", TY_UNKNOWN, 1, { TY_LONG }, "stp_print_char",
	  BI_CTX_VOID },
	/* conversions: a fault-safe read of a kernel string */
	{ "kernel_string", TY_STRING, 1, { TY_LONG }, "stp_f_kernel_string",
	  BI_CTX_STRING },
	/* kernel_string(addr, err_msg): err_msg instead of a fault */
	{ "kernel_string", TY_STRING, 2, { TY_LONG, TY_STRING },
	  "stp_f_kernel_string_or", BI_CTX_STRING },
	{ "exit", TY_UNKNOWN, 0, { 0 }, "stp_request_exit(c)", BI_SPECIAL },
	{ "execname", TY_STRING, 0, { 0 }, "stp_execname", BI_SPECIAL },
	/* the derived probe point: kernel.trace("sched:sched_switch") */
	{ "pp", TY_STRING, 0, { 0 }, "c->probe->pp", BI_SPECIAL },
	/* the probe point as the script named it, aliases and wildcards
	 * expanded: syscall.read (SystemTap's pn.stp) */
	{ "pn", TY_STRING, 0, { 0 }, "c->probe->pn", BI_SPECIAL },
	{ "pid", TY_LONG, 0, { 0 }, "stp_pid()", BI_SPECIAL },
	{ "tid", TY_LONG, 0, { 0 }, "stp_tid()", BI_SPECIAL },
	{ "cpu", TY_LONG, 0, { 0 }, "stp_cpu()", BI_SPECIAL },
	{ "target", TY_LONG, 0, { 0 }, "stp_target()", BI_SPECIAL },
	{ "error", TY_UNKNOWN, 1, { TY_STRING }, "stp_error", BI_SPECIAL },
	/* the regex tapset: the last =~ match of this context */
	{ "matched", TY_STRING, 1, { TY_LONG }, "stp_re_matched", BI_SPECIAL },
	{ "matched_str", TY_STRING, 0, { 0 }, "stp_re_matched", BI_SPECIAL },
	{ "ngroups", TY_LONG, 0, { 0 }, "stp_re_ngroups", BI_SPECIAL },
};

struct sema {
	struct session *s;
	struct program *prog;
	struct probe_body *body;	/* the probe being walked */
	int loop_depth;
	bool report;			/* last round: report type errors */
	bool changed;			/* a type was learned this round */
	/* tracepoint catalog, loaded on the first kernel.trace point */
	int tp_state;			/* 0 not yet, 1 loaded, -1 failed */
	char *tp_err;			/* why it failed (malloc'ed) */
	struct tp_catalog tpcat;
	/* kernel function catalog, loaded on the first kernel.function */
	int kf_state;
	char *kf_err;
	struct kf_catalog kfcat;
	/* probe aliases: one entry per alias name, in declaration order */
	struct alias {
		struct node *name;	/* N_PROBE_POINT */
		struct node *decl;	/* N_PROBE with probe.alias set */
		const char *key;	/* the name as text: sort order */
		int order;		/* declaration order among equal keys */
	} *aliases;
	int naliases, aliases_cap;
	struct node *expanding[32];	/* alias decls being expanded */
	int nexpanding;
	int optional;			/* > 0: inside an optional point */
	const char *list_name;		/* the outermost alias being expanded */
	struct symbol *iterating[16];	/* arrays of the enclosing foreach'es */
	int niterating;
	bool aggregating;		/* @op(s): a lock write, not a change */
	/* BTF types, loaded on the first member access */
	int btf_state;			/* 0 not yet, 1 loaded, -1 failed */
	char *btf_err;
	struct btf *btf;
	/* the debug vmlinux's DWARF, opened on the first kernel.function
	 * context variable (kfvars.c) */
	const char *kf_vmlinux;		/* the catalog's, in the arena */
	int dw_state;			/* 0 not yet, 1 open, -1 failed */
	char *dw_err;
	struct dwloc_file *dw;
	int in_entry;			/* inside @entry(...) */
};

/* ---- names ---------------------------------------------------------- */

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = xmalloc((lb + 1) * sizeof(int));

	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	int d = row[lb];
	free(row);
	return d;
}

/* The closest candidate within a small distance, or NULL. */
static const char *suggest(const char *name, const char *const *cands, int n)
{
	const char *best = NULL;
	int best_d = 3;

	for (int i = 0; i < n; i++) {
		int d = edit_distance(name, cands[i]);
		if (d < best_d || (d == best_d && !best && d <= 2)) {
			best = cands[i];
			best_d = d;
		}
	}
	return best;
}

/* A private global or function is seen only from its own file. */
static bool visible_from(const struct node *decl, bool is_private, int file)
{
	return !is_private || decl->loc.file == file;
}

/* The global name seen from file: its own private one first. */
static struct symbol *find_global(struct program *prog, const char *name,
				  int file)
{
	struct symbol *public = NULL;

	for (int i = 0; i < prog->nglobals; i++) {
		struct symbol *g = prog->globals[i];
		if (strcmp(g->name, name))
			continue;
		if (g->decl->global.is_private && g->decl->loc.file == file)
			return g;
		if (!g->decl->global.is_private && !public)
			public = g;
	}
	return public;
}

static struct symbol *find_local(struct probe_body *b, const char *name)
{
	for (int i = 0; i < b->nlocals; i++)
		if (strcmp(b->locals[i]->name, name) == 0)
			return b->locals[i];
	return NULL;
}

static struct symbol *find_param(struct probe_body *b, const char *name)
{
	if (!b->func)
		return NULL;
	for (int i = 0; i < b->func->nparams; i++)
		if (strcmp(b->locals[i]->name, name) == 0)
			return b->locals[i];
	return NULL;
}

/* The overload of name taking nargs arguments, or NULL. */
static struct script_func *find_func(struct program *prog, const char *name,
				     int nargs, int file)
{
	struct script_func *public = NULL;

	for (int i = 0; i < prog->nfuncs; i++) {
		struct script_func *f = prog->funcs[i];
		if (f->nparams != nargs || strcmp(f->sym->name, name))
			continue;
		if (f->decl->func.is_private && f->decl->loc.file == file)
			return f;
		if (!f->decl->func.is_private && !public)
			public = f;
	}
	return public;
}

static bool func_name_exists(struct program *prog, const char *name, int file)
{
	for (int i = 0; i < prog->nfuncs; i++)
		if (strcmp(prog->funcs[i]->sym->name, name) == 0 &&
		    visible_from(prog->funcs[i]->decl,
				 prog->funcs[i]->decl->func.is_private, file))
			return true;
	return false;
}

static struct symbol *new_symbol(struct sema *se, const char *name,
				 enum sym_kind kind, struct srcloc loc)
{
	struct symbol *sym = arena_alloc(&se->s->arena, sizeof(*sym));

	sym->name = name;
	sym->kind = kind;
	sym->loc = loc;
	return sym;
}

static struct symbol *add_local_to(struct sema *se, struct probe_body *b,
				   const char *name, struct srcloc loc)
{
	struct symbol *sym = new_symbol(se, name, SYM_LOCAL, loc);

	sym->index = b->nlocals;
	GROW(se, b->locals, b->nlocals, b->locals_cap);
	b->locals[b->nlocals++] = sym;
	return sym;
}

static struct symbol *add_local(struct sema *se, const char *name,
				struct srcloc loc)
{
	return add_local_to(se, se->body, name, loc);
}

/*
 * The builtin NAME taking nargs arguments (a builtin may have overloads of
 * other arities, as kernel_string); with none of that arity, the first
 * of the name, for the caller's "takes N arguments" error.
 */
static struct symbol *builtin_symbol(struct sema *se, const char *name,
				     int nargs)
{
	struct program *prog = se->prog;
	const struct builtin *b = NULL;

	for (int i = 0; i < prog->nbuiltins_used; i++)
		if (strcmp(prog->builtins_used[i]->name, name) == 0 &&
		    prog->builtins_used[i]->nargs == nargs)
			return prog->builtins_used[i];
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (strcmp(builtins[i].name, name) != 0)
			continue;
		if (!b || builtins[i].nargs == nargs)
			b = &builtins[i];
		if (b->nargs == nargs)
			break;
	}
	if (!b)
		return NULL;
	struct symbol *sym = new_symbol(se, b->name, SYM_BUILTIN,
					(struct srcloc){ .file = -1 });
	sym->type = b->ret;
	sym->nargs = b->nargs;
	memcpy(sym->arg_types, b->args, sizeof(b->args));
	sym->c_expr = b->c_expr;
	sym->bi_kind = b->kind;
	GROW(se, prog->builtins_used, prog->nbuiltins_used,
	     prog->builtins_used_cap);
	prog->builtins_used[prog->nbuiltins_used++] = sym;
	return sym;
}

/* ---- types ---------------------------------------------------------- */

static void format_loc(struct session *s, struct srcloc loc, char *buf,
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
static void expect(struct sema *se, struct node *n, enum type got,
		   enum type want)
{
	if (got == TY_UNKNOWN || want == TY_UNKNOWN || got == want)
		return;
	if (se->report)
		diag_error(se->s, n->loc, "type mismatch: expected %s, got %s",
			   type_name(want), type_name(got));
}

static enum type infer(struct sema *se, struct node *n, enum type want);

static void use_global(struct sema *se, struct symbol *sym, bool write)
{
	struct probe_body *b = se->body;

	if (write) {
		bool known = false;
		for (int i = 0; i < b->nwrites && !known; i++)
			known = b->writes[i] == sym;
		if (!known) {
			GROW(se, b->writes, b->nwrites, b->writes_cap);
			b->writes[b->nwrites++] = sym;
		}
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

static void note_access(struct sema *se, struct symbol *sym, bool write,
			const struct node *at)
{
	if (sym->kind == SYM_GLOBAL) {
		use_global(se, sym, write);
		if (write)
			check_iterating(se, sym, at);
	}
	else if (write)
		sym->written = true;
	else
		sym->read = true;
}

static enum type infer_scalar(struct sema *se, struct node *n, enum type want,
			      bool write)
{
	struct symbol *sym = resolve_var(se, n, write);

	note_access(se, sym, write, n);
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
				   "elsewhere, and indexed here", sym->name);
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

static bool body_all_of(struct sema *se, struct probe_body *b,
			enum probe_family family);
static enum type infer_kfvar(struct sema *se, struct node *n, bool addr_of,
			     bool write);
static bool other_target(struct sema *se, struct node *n, int op,
			 enum type *type);

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
	if ((n->kind == N_TARGET || n->kind == N_TMEMBER ||
	     n->kind == N_TINDEX) && (body_all_of(se, se->body, PF_KFUNC) ||
				      body_all_of(se, se->body, PF_KRETFUNC) ||
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

static void note_btf_type(struct sema *se, struct symbol *sym,
			  struct node *rhs);

static enum type infer_assign(struct sema *se, struct node *n)
{
	struct node *lhs = n->binary.lhs, *rhs = n->binary.rhs;
	enum type tt;

	if ((lhs->kind == N_TARGET || lhs->kind == N_TMEMBER ||
	     lhs->kind == N_TINDEX) && other_target(se, lhs, n->binary.op, &tt)) {
		expect(se, rhs, infer(se, rhs, tt), tt);
		return n->type = tt;
	}
	switch (n->binary.op) {
	case OP_ASSIGN: {
		if ((lhs->kind == N_TARGET || lhs->kind == N_TMEMBER ||
		     lhs->kind == N_TINDEX) && se->s->guru &&
		    body_all_of(se, se->body, PF_KFUNC)) {
			/* -g: write a kernel function's variable */
			expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
			infer_kfvar(se, lhs, false, true);
			return n->type = TY_LONG;
		}
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

static void add_callee(struct sema *se, struct script_func *f)
{
	struct probe_body *b = se->body;

	for (int i = 0; i < b->ncallees; i++)
		if (b->callees[i] == f)
			return;
	GROW(se, b->callees, b->ncallees, b->callees_cap);
	b->callees[b->ncallees++] = f;
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

/* The closest name among builtins, script functions and the library's. */
static const char *suggest_function(struct sema *se, const char *name)
{
	struct session *s = se->s;
	int nb = (int)(sizeof(builtins) / sizeof(builtins[0]));
	int n = 0;
	const char **names = xmalloc((size_t)(nb + se->prog->nfuncs +
					      s->nlibrary_names + 1) *
				     sizeof(*names));

	for (int i = 0; i < nb; i++)
		names[n++] = builtins[i].name;
	for (int i = 0; i < se->prog->nfuncs; i++)
		names[n++] = se->prog->funcs[i]->sym->name;
	for (int i = 0; i < s->nlibrary_names; i++)
		if (!strncmp(s->library_names[i], "f:", 2))
			names[n++] = s->library_names[i] + 2;
	const char *hint = suggest(name, names, n);
	free(names);
	return hint;
}

static enum type infer_call(struct sema *se, struct node *n, enum type want)
{
	int nargs_given = ast_list_length(n->call.args);
	struct script_func *f = n->sym && n->sym->kind == SYM_FUNCTION ?
		n->sym->func : find_func(se->prog, n->call.name, nargs_given,
				     n->loc.file);

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
		if (p[2] <= 0 || p[1] <= p[0] || (p[1] - p[0]) / p[2] > 1000) {
			diag_error(se->s, n->loc, "bad @hist_linear range: "
				   "the step must be positive, low < high, and "
				   "at most 1000 buckets");
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

/* ---- tracepoint context variables ------------------------------------ */

/*
 * Does the body run only for probes of this family (and, for tracepoints,
 * with a catalog entry, so $vars mean their arguments)?
 */
static bool body_all_of(struct sema *se, struct probe_body *b,
			enum probe_family family)
{
	bool any = false;

	if (b->func)
		return false;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (dp->family != family ||
		    (family == PF_TRACEPOINT && !dp->tp))
			return false;
		any = true;
	}
	return any;
}

static bool tp_only_body(struct sema *se, struct probe_body *b)
{
	return body_all_of(se, b, PF_TRACEPOINT);
}

static const struct tp_arg *tp_find_arg(const struct tracepoint_info *tp,
					const char *name)
{
	for (int i = 0; i < tp->nargs; i++)
		if (!strcmp(tp->args[i].name, name))
			return &tp->args[i];
	return NULL;
}

/* A scalar the callback can widen to a long: an integer or a pointer. */
static bool tp_scalar(const char *c_type)
{
	if (strpbrk(c_type, "*["))
		return true;
	return strncmp(c_type, "struct ", 7) && strncmp(c_type, "union ", 6);
}

static bool tp_special(const char *name)
{
	return !strcmp(name, "$$parms") || !strcmp(name, "$$vars") ||
	       !strcmp(name, "$$system") || !strcmp(name, "$$name");
}

/*
 * Is $name (without '$') an argument of every tracepoint of the body?
 * With report, say why not (at n).
 */
static bool tp_check_arg(struct sema *se, struct node *n, const char *name,
			 bool report)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != se->body)
			continue;
		const struct tracepoint_info *tp = dp->tp;
		const struct tp_arg *a = tp->args_ok ? tp_find_arg(tp, name) : NULL;
		if (a && tp_scalar(a->c_type))
			continue;
		if (!report)
			return false;
		if (!tp->args_ok) {
			diag_error(se->s, n->loc, "the arguments of %s are not "
				   "known", dp->pp);
		} else if (a) {
			diag_error(se->s, n->loc, "context variable '$%s' of %s "
				   "is a '%s', which is not supported yet",
				   name, dp->pp, a->c_type);
		} else {
			struct strbuf sb = { 0 };
			for (int k = 0; k < tp->nargs; k++)
				sb_printf(&sb, " $%s", tp->args[k].name);
			diag_error(se->s, n->loc, "context variable '$%s' is not "
				   "available in %s (it has:%s)", name, dp->pp,
				   tp->nargs ? sb_str(&sb) : " no arguments");
			sb_free(&sb);
		}
		return false;
	}
	return true;
}

/* The target kernel's BTF, loaded on the first member access; or NULL. */
static struct btf *sema_btf(struct sema *se)
{
	if (se->btf_state == 0) {
		se->btf_state = -1;
		if (!se->s->release)
			se->btf_err = xstrdup("no target kernel release");
		else if (!btf_load(se->s->release,
				   cache_dir(&se->s->arena),
				   &se->btf, &se->btf_err))
			se->btf_state = 1;
	}
	return se->btf_state > 0 ? se->btf : NULL;
}

/* A new context value of body b: the next slot of b->tpvars. */
static struct symbol *add_context_slot(struct sema *se, struct probe_body *b,
				       struct node *n, const char *name)
{
	struct symbol *sym = arena_alloc(&se->s->arena, sizeof(*sym));

	sym->name = name;
	sym->kind = SYM_CONTEXT;
	sym->type = TY_LONG;
	sym->loc = n->loc;
	sym->decl = n;
	sym->index = b->ntpvars;
	GROW(se, b->tpvars, b->ntpvars, b->tpvars_cap);
	b->tpvars[b->ntpvars++] = sym;
	return sym;
}

/*
 * $arg->member..., $arg[N]: a context slot of its own, its path resolved
 * through BTF for every tracepoint of the body (they must agree). flags:
 * PATH_AGGREGATE (the base of a pretty printing may be a struct),
 * PATH_ADDRESS (&$arg->member, a slot of its own). NULL on an error.
 */
static struct symbol *tp_chain_slot(struct sema *se, struct node *n,
				    int flags)
{
	struct probe_body *b = se->body;
	const char *root = tp_member_root(n);
	struct arena *a = &se->s->arena;

	if (n->kind == N_TINDEX)
		infer(se, n->target.index, TY_LONG);
	if (!root || root[1] == '$') {
		if (se->report)
			diag_error(se->s, n->loc, "member access and indexing "
				   "apply to tracepoint arguments ($arg) only, "
				   "for now");
		return NULL;
	}
	if (!tp_check_arg(se, n, root + 1, se->report))
		return NULL;
	char *key = tp_member_key(a, n);
	if (flags & PATH_ADDRESS)
		key = arena_printf(a, "&%s", key);
	for (int i = 0; i < b->ntpvars; i++)
		if (!strcmp(b->tpvars[i]->name, key))
			return b->tpvars[i];
	if (b->ntpvars >= 64) {
		/* the callback flags faults in a 64-bit mask */
		if (se->report)
			diag_error(se->s, n->loc, "too many context values in "
				   "one probe (at most 64)");
		return NULL;
	}
	struct btf *btf = sema_btf(se);
	if (!btf) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot resolve '%s': %s", key,
				   se->btf_err);
		return NULL;
	}
	struct tp_path *path = NULL;
	const struct derived_probe *first = NULL;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		const struct tp_arg *arg = tp_find_arg(dp->tp, root + 1);
		struct tp_path p;
		const struct node *at = n;
		int type = btf_find_type(btf, arg->c_type), end;
		const char *msg = type ? type_path(a, btf, type, flags, n, &p,
						   &end, &at) :
			arena_printf(a, "the kernel's BTF has no type '%s'",
				     arg->c_type);
		if (msg) {
			if (se->report)
				diag_error(se->s, (at ? at : n)->loc, "%s (in %s)",
					   msg, dp->pp);
			return NULL;
		}
		if (path && !tp_path_equal(path, &p)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' has another "
					   "layout in %s than in %s", key,
					   dp->pp, first->pp);
			return NULL;
		}
		if (!path) {
			path = arena_alloc(a, sizeof(*path));
			*path = p;
			first = dp;
		}
	}
	struct symbol *sym = add_context_slot(se, b, n, key);
	sym->tp_path = path;
	sym->tp_arg = root + 1;
	return sym;
}

static enum type infer_member(struct sema *se, struct node *n)
{
	n->sym = tp_chain_slot(se, n, 0);
	return n->type = TY_LONG;
}

/* ---- kernel.function context variables (see kfvars.c) -------------- */

/* Do all probes of the body come from kernel.function points? */
static bool kf_only_body(struct sema *se, struct probe_body *b)
{
	return body_all_of(se, b, PF_KFUNC) || body_all_of(se, b, PF_KRETFUNC);
}

/* The C type of variable name in dp's function (-L's), or NULL. */
static const char *kf_var_type(const struct derived_probe *dp,
			       const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; i < dp->kf_nvars; i++)
		if (!strncmp(dp->kf_vars[i], name, len) &&
		    dp->kf_vars[i][len] == ':')
			return dp->kf_vars[i] + len + 1;
	return NULL;
}

static struct dwloc_file *sema_dwarf(struct sema *se)
{
	if (se->dw_state == 0) {
		se->dw_state = -1;
		if (!se->kf_vmlinux)
			se->dw_err = xstrdup("no kernel debuginfo");
		else if ((se->dw = dwloc_open(se->kf_vmlinux, &se->dw_err)))
			se->dw_state = 1;
	}
	return se->dw;
}

/* Why dp's function has no variable name: SystemTap's two errors. */
static const char *kf_missing_var(struct sema *se,
				  const struct derived_probe *dp,
				  const char *name)
{
	struct arena *a = &se->s->arena;
	struct dwloc loc;
	const char *msg = dp->kf_statement ?
			  dwloc_var_at(se->dw, a, dp->kf_entry_pc, dp->kf_cu,
				       dp->kf_addr, name, 8, &loc) :
			  dwloc_var(se->dw, a, dp->kf_addr, dp->kf_cu, name,
				    8, &loc);

	if (!msg)
		return arena_printf(a, "the type of '$%s' is not known", name);
	if (strncmp(msg, "unable to find", 14))
		return arena_printf(a, "'$%s': %s", name, msg);
	struct strbuf sb = { 0 };
	for (int i = 0; i < dp->kf_nvars; i++)
		sb_printf(&sb, "%s$%.*s", i ? ", " : "",
			  (int)strcspn(dp->kf_vars[i], ":"), dp->kf_vars[i]);
	msg = arena_printf(a, "%s in %s (alternatives: %s)", msg, dp->kf_symbol,
			   dp->kf_nvars ? sb_str(&sb) : "none");
	sb_free(&sb);
	return msg;
}

/*
 * $$parms, $$locals, $$vars, $$return of a kernel.function probe: rewritten
 * in place into the sprintf SystemTap 4.8 makes of them, "name=%#x" per
 * variable in DWARF order ("name=?" without a location at the entry,
 * "name={...}" for a struct), of $name (@entry($name) in .return probes).
 */
static enum type infer_kf_dollars(struct sema *se, struct node *n,
				  const char *name)
{
	struct arena *a = &se->s->arena;
	const struct derived_probe *dp = NULL;
	int nprobes = 0;

	for (int i = 0; i < se->prog->nprobes; i++)
		if (se->prog->probes[i]->body == se->body) {
			dp = se->prog->probes[i];
			nprobes++;
		}
	bool ret = dp && dp->family == PF_KRETFUNC;
	int want = !strcmp(name, "$$parms") ? 1 : !strcmp(name, "$$locals") ?
		   2 : !strcmp(name, "$$vars") ? 3 : 0;
	if (!dp || (!want && (strcmp(name, "$$return") || !ret))) {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' of kernel.function probes "
				   "is not supported yet", name);
		return n->type = TY_STRING;
	}
	struct strbuf fmt = { 0 };
	struct node *args = NULL;
	if (want) {
		struct dwloc_file *dw = sema_btf(se) ? sema_dwarf(se) : NULL;
		struct dwloc_name *vars;
		/* a function only in the symbol table has no variables */
		int nv = !dp->kf_addr ? 0 : dw ? dwloc_names(dw, a, dp->kf_addr,
							      dp->kf_cu, &vars)
			 : -1;
		if (nv < 0 || nprobes > 1) {
			if (se->report)
				diag_error(se->s, n->loc, nv < 0 ? "cannot list "
					   "the variables of %s" : "'%s' of "
					   "several functions in one body is not "
					   "supported yet", nv < 0 ? dp->pp :
					   name);
			return n->type = TY_STRING;
		}
		for (int i = 0; i < nv; i++) {
			if (!(want & (vars[i].is_param ? 1 : 2)))
				continue;
			const char *type = kf_var_type(dp, vars[i].name);
			struct btf_info info = { .cls = BTF_CLASS_OTHER };
			if (type)
				btf_resolve(se->btf, btf_find_type(se->btf, type),
					    &info);
			sb_printf(&fmt, "%s%s=", fmt.len ? " " : "", vars[i].name);
			if (!type) {
				sb_putc(&fmt, '?');
				continue;
			}
			if (info.cls == BTF_CLASS_STRUCT ||
			    info.cls == BTF_CLASS_UNION) {
				sb_puts(&fmt, "{...}");
				continue;
			}
			sb_puts(&fmt, "%#x");
			struct node *v = ast_new(se->s, N_TARGET, n->loc);
			v->target.name = arena_printf(a, "$%s", vars[i].name);
			if (ret) {
				struct node *e = ast_new(se->s, N_ATFUNC, n->loc);
				e->call.name = "@entry";
				e->call.args = v;
				v = e;
			}
			args = ast_append(args, v);
		}
	} else {
		struct node *v = ast_new(se->s, N_TARGET, n->loc);
		v->target.name = "$return";
		sb_puts(&fmt, "return=%#x");
		args = v;
	}
	struct node *f = ast_new(se->s, N_STRING, n->loc);
	f->str.value = arena_strdup(a, sb_str(&fmt));
	f->str.len = fmt.len;
	sb_free(&fmt);
	n->kind = N_PRINT;
	n->print.kind = PRINT_SPRINTF;
	n->print.args = ast_append(f, args);
	n->sym = NULL;
	return infer(se, n, TY_STRING);
}

/*
 * $x, $x->f..., $x[N] or (addr_of) &$x in a kernel.function body: a
 * context slot of its own, like a tracepoint's, whose root each derived
 * probe locates in its own function (dp->kf_locs); the member chain must
 * have the same layout in all of them. In a .return probe every such
 * value is taken at the entry (SystemTap 4.8: $param means
 * @entry($param) there).
 */
static enum type infer_kfvar(struct sema *se, struct node *n, bool addr_of,
			     bool write)
{
	struct probe_body *b = se->body;
	struct arena *a = &se->s->arena;
	const char *root = tp_member_root(n);

	if (n->kind == N_TINDEX)
		infer(se, n->target.index, TY_LONG);
	if (addr_of && root && !strcmp(root, "$return")) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot take address of "
				   "'$return': the return value is in a "
				   "register");
		return n->type = TY_LONG;
	}
	if (root && root[1] == '$' && n->kind == N_TARGET && !addr_of && !write)
		return infer_kf_dollars(se, n, root);
	if (!root || root[1] == '$') {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' of kernel.function "
				   "probes is not supported yet",
				   root ? root : "this expression");
		return n->type = TY_LONG;
	}
	char *key = tp_member_key(a, n);
	const struct srcfile *sf = session_file(se->s, n->loc.file);
	if (se->report && !se->in_entry && !write &&
	    body_all_of(se, b, PF_KRETFUNC) &&
	    !(sf && sf->privileged))
		diag_warning(se->s, n->loc, "confusing usage, value is captured "
			     "as @entry(%s) in .return probe [man stapprobes] "
			     "RETURN PROBES", key);
	if (addr_of || write)
		key = arena_printf(a, "%s%s", write ? "=" : "&", key);
	for (int i = 0; i < b->ntpvars; i++)
		if (!strcmp(b->tpvars[i]->name, key)) {
			n->sym = b->tpvars[i];
			return n->type = TY_LONG;
		}
	if (b->ntpvars >= 64) {
		if (se->report)
			diag_error(se->s, n->loc, "too many context values in "
				   "one probe (at most 64)");
		return n->type = TY_LONG;
	}
	struct btf *btf = sema_btf(se);
	struct dwloc_file *dw = btf ? sema_dwarf(se) : NULL;
	if (!dw) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot resolve '%s': %s", key,
				   btf ? se->dw_err : se->btf_err);
		return n->type = TY_LONG;
	}
	struct tp_path *path = NULL;
	const struct derived_probe *first = NULL;
	unsigned write_size = 0;
	struct kf_loc **locs = arena_alloc(a, (size_t)se->prog->nprobes *
					   sizeof(*locs));
	const char *dropped = NULL;
	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (dp->kf_dropped) {
			dropped = dp->kf_dropped;
			continue;
		}
		const char *type = kf_var_type(dp, root + 1);
		const struct node *at = n;
		struct tp_path p;
		const char *msg;
		locs[i] = arena_alloc(a, sizeof(*locs[i]));
		if (!type)
			msg = kf_missing_var(se, dp, root + 1);
		else
			msg = kf_var_resolve(a, btf, dw, dp, type, n, addr_of, write,
					     locs[i], &p, &at);
		if (msg && dp->kf_inline) {
			/* an inlined copy may keep no trace of a variable
			 * the function's own copy has: that copy goes */
			dropped = arena_printf(a, "the inlined copy at 0x%"
					       PRIx64 " of %s: %s", dp->kf_addr,
					       dp->pp, msg);
			dp->kf_dropped = dropped;
			dp->kf_dropped_at = n;
			continue;
		}
		if (msg) {
			if (se->report)
				diag_error(se->s, (at ? at : n)->loc, "%s (in %s)",
					   msg, dp->pp);
			return n->type = TY_LONG;
		}
		if (path && (!tp_path_equal(path, &p) ||
			     locs[i]->write_size != write_size)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' has another "
					   "layout in %s than in %s", key,
					   dp->pp, first->pp);
			return n->type = TY_LONG;
		}
		if (!path) {
			path = arena_alloc(a, sizeof(*path));
			*path = p;
			first = dp;
			write_size = locs[i]->write_size;
		}
	}
	if (!path) {	/* every copy was an inlined one without it */
		if (se->report)
			diag_error(se->s, n->loc, "%s", dropped ? dropped :
				   "no copy of the function");
		return n->type = TY_LONG;
	}
	struct symbol *sym = add_context_slot(se, b, n, key);
	sym->tp_path = path && path->nsteps ? path : NULL;
	sym->tp_arg = root + 1;
	sym->kf_entry = true;
	sym->kf_write_size = write_size;
	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (!dp->kf_locs)
			dp->kf_locs = arena_alloc(a, 64 * sizeof(*dp->kf_locs));
		dp->kf_locs[sym->index] = locs[i];
	}
	n->sym = sym;
	return n->type = TY_LONG;
}

/*
 * @entry(expr) in a .return probe: its context variables are all taken
 * at the entry already, so an expression of them, constants and operators
 * means the same at the return; anything else (a function call, a
 * variable) would need to run at the entry, which is not supported yet.
 */
static const struct node *entry_unsupported(const struct node *n)
{
	switch (n->kind) {
	case N_NUMBER:
	case N_STRING:
	case N_TMEMBER:
		return NULL;
	case N_TARGET:
		return strcmp(n->target.name, "$return") ? NULL : n;
	case N_TINDEX:
		return entry_unsupported(n->target.index);
	case N_UNARY:
		return entry_unsupported(n->unary.operand);
	case N_BINARY: {
		const struct node *x = entry_unsupported(n->binary.lhs);
		return x ? x : entry_unsupported(n->binary.rhs);
	}
	case N_TERNARY: {
		const struct node *x = entry_unsupported(n->cond.cond);
		if (!x)
			x = entry_unsupported(n->cond.then);
		return x ? x : entry_unsupported(n->cond.els);
	}
	default:
		return n;
	}
}

static enum type infer_entry(struct sema *se, struct node *n, enum type want)
{
	struct node *arg = n->call.args;

	if (!body_all_of(se, se->body, PF_KRETFUNC)) {
		if (se->report)
			diag_error(se->s, n->loc, "@entry is only valid in "
				   ".return probes");
		return TY_UNKNOWN;
	}
	if (!arg || arg->next) {
		if (se->report)
			diag_error(se->s, n->loc, "@entry takes one expression");
		return TY_UNKNOWN;
	}
	const struct node *bad = entry_unsupported(arg);
	if (bad && bad->kind == N_TARGET) {
		if (se->report)
			diag_error(se->s, bad->loc, "'$return' has no value at "
				   "the entry");
		return TY_UNKNOWN;
	}
	se->in_entry++;
	n->type = infer(se, arg, bad ? TY_LONG : want);
	se->in_entry--;
	if (!bad)
		return n->type;
	/* run at the entry by the handler itself (see codegen) */
	if (n->type == TY_STRING) {
		if (se->report)
			diag_error(se->s, n->loc, "a string @entry(...) that "
				   "calls functions is not supported yet");
		return n->type;
	}
	if (!n->sym) {
		struct probe_body *b = se->body;
		n->sym = arena_alloc(&se->s->arena, sizeof(*n->sym));
		n->sym->name = "@entry";
		n->sym->kind = SYM_CONTEXT;
		n->sym->type = TY_LONG;
		n->sym->loc = n->loc;
		n->sym->index = b->nkf_entries;
		GROW(se, b->kf_entries, b->nkf_entries, b->kf_entries_cap);
		b->kf_entries[b->nkf_entries++] = n;
	}
	return n->type = TY_LONG;
}

/* ---- typed values: pretty printing, @cast, & -------------------------- */

static enum type infer_target(struct sema *se, struct node *n);

/*
 * "$prev$$" -> base "$prev" and depth 2; "$$parms$" -> "$$parms", 1.
 * Depth 0 when the name has no pretty-printing suffix.
 */
static int pretty_suffix(struct arena *a, const char *name, const char **base)
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

static bool body_has_probe(struct sema *se, const struct derived_probe *dp)
{
	return dp->body == se->body;
}

/* The C type of $name in dp, or NULL. */
static const char *tp_arg_type(const struct derived_probe *dp,
			       const char *name)
{
	const struct tp_arg *arg = dp->tp && dp->tp->args_ok ?
		tp_find_arg(dp->tp, name) : NULL;

	return arg ? arg->c_type : NULL;
}

/*
 * The BTF type of a tracepoint value ($arg or a chain on it) in dp, 0 when
 * it has none; flags as for type_path.
 */
static int tp_value_type(struct sema *se, const struct derived_probe *dp,
			 const struct node *n, int flags)
{
	const char *root = tp_member_root(n);
	bool kfunc = dp->family == PF_KFUNC || dp->family == PF_KRETFUNC;
	const char *c_type = !root ? NULL : kfunc ? kf_var_type(dp, root + 1) :
			     tp_arg_type(dp, root + 1);
	struct btf *btf = sema_btf(se);
	struct tp_path p;
	const struct node *at;
	int type, end;

	if (!c_type || !btf || !(type = btf_find_type(btf, c_type)))
		return 0;
	if (n->kind == N_TARGET)
		return type;
	if (type_path(&se->s->arena, btf, type, flags, n, &p, &end, &at))
		return 0;
	return end;
}

static struct symbol *typed_symbol(struct sema *se, struct node *n,
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

/*
 * $prev$, $prev->se$$ on tracepoints: the base value's slot, then its
 * pretty printing, the same in every tracepoint of the body.
 */
static enum type infer_tp_pretty(struct sema *se, struct node *n,
				 struct node *base, int depth)
{
	struct arena *a = &se->s->arena;
	const struct pretty *pretty = NULL;
	const struct derived_probe *first = NULL;
	struct symbol *slot;

	if (base->kind == N_TARGET) {
		if (!tp_check_arg(se, base, base->target.name + 1, se->report))
			return n->type = TY_STRING;
		infer_target(se, base);
		slot = base->sym;
	} else {
		slot = base->sym = tp_chain_slot(se, base, PATH_AGGREGATE);
	}
	if (!slot || (n->sym && n->sym->kind == SYM_TYPED))
		return n->type = TY_STRING;
	struct btf *btf = sema_btf(se);
	if (!btf) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot pretty-print '%s': %s",
				   tp_member_key(a, base), se->btf_err);
		return n->type = TY_STRING;
	}
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		struct pretty *p;
		int type;

		if (!body_has_probe(se, dp))
			continue;
		type = tp_value_type(se, dp, base, PATH_AGGREGATE);
		if (!type) {
			if (se->report)
				diag_error(se->s, n->loc, "the type of '%s' in %s "
					   "is not in the kernel's BTF",
					   tp_member_key(a, base), dp->pp);
			return n->type = TY_STRING;
		}
		p = arena_alloc(a, sizeof(*p));
		pretty_build(a, btf, type, depth == 2, p);
		if (pretty && !pretty_equal(pretty, p)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' has another type "
					   "in %s than in %s",
					   tp_member_key(a, base), dp->pp,
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

/* $$parms$ / $$parms$$: each tracepoint's arguments, pretty-printed. */
static void tp_parms_pretty(struct sema *se, int depth)
{
	struct arena *a = &se->s->arena;
	struct btf *btf = sema_btf(se);

	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		const struct tracepoint_info *tp = dp->tp;

		if (!body_has_probe(se, dp) || !tp || !tp->args_ok ||
		    dp->tp_parms_pretty[depth])
			continue;
		dp->tp_parms_pretty[depth] = arena_alloc(a, (size_t)(tp->nargs + 1) *
					      sizeof(*dp->tp_parms_pretty[depth]));
		for (int k = 0; btf && k < tp->nargs; k++) {
			int type = tp_scalar(tp->args[k].c_type) ?
				btf_find_type(btf, tp->args[k].c_type) : 0;
			struct pretty *p;

			if (!type)
				continue;	/* "=?" */
			p = arena_alloc(a, sizeof(*p));
			pretty_build(a, btf, type, depth == 2, p);
			dp->tp_parms_pretty[depth][k] = p;
		}
	}
}

/*
 * The type of @cast(p, "type"[, "module"]), or 0 (said when report). The
 * module may be "kernel", "kernel<linux/sched.h>" (the header is not
 * needed: BTF has the kernel's types) or a ':'-separated list of
 * alternatives, one of which must be the kernel.
 */
static int cast_type(struct sema *se, struct node *cast, bool report)
{
	struct node *p = cast->call.args;
	struct node *tn = p ? p->next : NULL;
	struct node *mn = tn ? tn->next : NULL;
	struct arena *a = &se->s->arena;
	struct btf *btf;
	const char *name, *mod;
	int type = 0;

	if (!tn || (mn && mn->next) || tn->kind != N_STRING ||
	    (mn && mn->kind != N_STRING)) {
		if (report)
			diag_error(se->s, cast->loc, "@cast takes a value, a type "
				   "name and optionally a module, both string "
				   "literals");
		return 0;
	}
	mod = mn ? mn->str.value : "kernel";
	bool kernel = !*mod;
	for (const char *m = mod; *m && !kernel;) {
		size_t len = strcspn(m, ":");
		kernel = (len == 6 && !strncmp(m, "kernel", 6)) ||
			 (len > 7 && !strncmp(m, "kernel<", 7) &&
			  m[len - 1] == '>');
		m += len + (m[len] == ':');
	}
	if (!kernel) {
		if (report)
			diag_error(se->s, (mn ? mn : cast)->loc, "@cast with the "
				   "types of '%s' is not supported yet (only the "
				   "kernel's, from its BTF)", mod);
		return 0;
	}
	btf = sema_btf(se);
	if (!btf) {
		if (report)
			diag_error(se->s, cast->loc, "cannot resolve @cast: %s",
				   se->btf_err);
		return 0;
	}
	name = tn->str.value;
	while (*name == ' ')
		name++;
	if (!strncmp(name, "class ", 6))
		name = arena_printf(a, "struct %s", name + 6);
	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6) ||
	    !strncmp(name, "enum ", 5) || strpbrk(name, "*["))
		type = btf_find_type(btf, name);
	else if (!(type = btf_find_type(btf, arena_printf(a, "struct %s", name))) &&
		 !(type = btf_find_type(btf, arena_printf(a, "union %s", name))))
		type = btf_find_type(btf, name);
	if (!type && report)
		diag_error(se->s, tn->loc, "type definition '%s' not found in "
			   "the kernel's BTF", tn->str.value);
	return type;
}

/*
 * The BTF type of a local that autocast gave one (SystemTap carries the
 * type of a @cast or context value into the locals it is assigned to):
 * 0 and false when it has none.
 */
static int local_btf_type(const struct node *root, bool *object)
{
	const struct symbol *sym = root->kind == N_VAR ? root->sym : NULL;

	*object = false;
	if (!sym || sym->kind != SYM_LOCAL || sym->btf_type <= 0)
		return 0;
	*object = sym->btf_object;
	return sym->btf_type;
}

/*
 * @cast(p, "T")->a[1]->b, &@cast(...)->f, @cast(...)$, and the same on a
 * local holding a typed value (autocast: x = &@cast(...); x->f): a typed
 * value the handler computes from p (or x). flags as for type_path;
 * depth > 0: pretty.
 */
static enum type infer_cast_chain(struct sema *se, struct node *n,
				  struct node *chain, int flags, int depth)
{
	struct node *root = chain_root(chain);
	bool is_cast = root->kind == N_ATFUNC;
	struct node *base = is_cast ? root->call.args : root;
	struct arena *a = &se->s->arena;
	enum type result = depth ? TY_STRING : TY_LONG;
	struct tp_path *path;
	const struct node *at;
	bool object = is_cast;
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
	if (is_cast) {
		type = cast_type(se, root, true);
	} else {
		type = local_btf_type(root, &object);
		if (!type)
			diag_error(se->s, root->loc, "unknown type in dereference "
				   "of '%s': it holds no typed value (assign it "
				   "from @cast or a context variable, always of "
				   "one type)", root->var.name);
	}
	if (!type)
		return n->type = result;
	path = arena_alloc(a, sizeof(*path));
	const char *msg = type_path(a, sema_btf(se), type,
				    flags | (object ? PATH_OBJECT : 0), chain,
				    path, &end, &at);
	if (msg) {
		diag_error(se->s, (at ? at : chain)->loc, "%s", msg);
		return n->type = result;
	}
	n->sym = typed_symbol(se, n, base, result);
	n->sym->tp_path = path;
	if (depth) {
		struct pretty *p = arena_alloc(a, sizeof(*p));
		pretty_build(a, sema_btf(se), end, depth == 2, p);
		n->sym->pretty = p;
	}
	return n->type = result;
}

/*
 * The BTF type of the value of e, for autocast: a @cast chain or &chain,
 * a tracepoint argument or chain (the same type in every tracepoint of
 * the body), a typed local. object: the value is the address of one.
 */
static int expr_btf_type(struct sema *se, struct node *e, bool *object)
{
	int flags = 0, type = 0, end;
	struct tp_path p;
	const struct node *at;

	*object = false;
	if (e->kind == N_ASSIGN && e->binary.op == OP_ASSIGN)
		return expr_btf_type(se, e->binary.rhs, object);
	if (e->kind == N_UNARY && e->unary.op == OP_ADDR) {
		flags = PATH_ADDRESS;
		e = e->unary.operand;
		if (e->kind != N_TMEMBER && e->kind != N_TINDEX &&
		    (e->kind != N_ATFUNC || strcmp(e->call.name, "@cast")))
			return 0;
	} else if (e->kind == N_TMEMBER &&
		   (!strcmp(e->target.name, "$") ||
		    !strcmp(e->target.name, "$$"))) {
		return 0;
	}
	struct node *root = chain_root(e);
	struct btf *btf = NULL;
	bool base_object = false;
	if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@cast")) {
		type = cast_type(se, root, false);
		base_object = true;
	} else if (root->kind == N_VAR) {
		type = local_btf_type(root, &base_object);
	} else if (root->kind == N_TARGET && root->target.name[1] != '$' &&
		   (tp_only_body(se, se->body) || kf_only_body(se, se->body))) {
		for (int i = 0; i < se->prog->nprobes; i++) {
			const struct derived_probe *dp = se->prog->probes[i];
			if (!body_has_probe(se, dp))
				continue;
			int t = tp_value_type(se, dp, e, flags);
			if (!t || (type && t != type))
				return 0;
			type = t;
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

/* x = value: x keeps value's BTF type while every assignment agrees. */
static void note_btf_type(struct sema *se, struct symbol *sym,
			  struct node *rhs)
{
	bool object;
	int type;

	if (sym->kind != SYM_LOCAL || sym->btf_type < 0)
		return;
	type = expr_btf_type(se, rhs, &object);
	if (type && sym->btf_type && sym->btf_type != type) {
		/* two ids may spell one type ("struct task_struct*") */
		char *x = btf_type_name(se->btf, sym->btf_type);
		char *y = btf_type_name(se->btf, type);
		if (x && y && !strcmp(x, y))
			type = sym->btf_type;
		free(x);
		free(y);
	}
	if (!type || (sym->btf_type && (sym->btf_type != type ||
					sym->btf_object != object))) {
		sym->btf_type = -1;	/* untyped or conflicting */
		return;
	}
	sym->btf_type = type;
	sym->btf_object = object;
}

/* Is the chain n (tracepoint or @cast) defined, as @defined asks? */
static int kf_defined(struct sema *se, const char *name);

/* @defined($x->f...) in a kernel.function body: every function of the
 * body has $x, and the chain resolves on the type $x has in each. */
static bool kf_chain_defined(struct sema *se, struct node *n,
			     const char *name, int flags)
{
	struct btf *btf = sema_btf(se);
	struct tp_path p;
	const struct node *at;
	int end;

	if (name[1] == '$' || !kf_defined(se, name))
		return false;
	if (n->kind == N_TARGET)
		return true;
	if (!btf)
		return false;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != se->body)
			continue;
		const char *c_type = kf_var_type(dp, name + 1);
		int type = c_type ? btf_find_type(btf, c_type) : 0;
		if (!type || type_path(&se->s->arena, btf, type, flags, n, &p,
				       &end, &at))
			return false;
	}
	return true;
}

static bool chain_defined(struct sema *se, struct node *n, int flags)
{
	struct node *root = chain_root(n);
	struct btf *btf;
	struct tp_path p;
	const struct node *at;
	int end;

	if (root->kind == N_ATFUNC && !strcmp(root->call.name, "@cast")) {
		int type = cast_type(se, root, false);
		return type && !type_path(&se->s->arena, sema_btf(se), type,
					  flags | PATH_OBJECT, n, &p, &end, &at);
	}
	if (root->kind == N_VAR && n != root) {	/* autocast */
		bool object;
		int type;
		infer(se, root, TY_LONG);
		type = local_btf_type(root, &object);
		return type && !type_path(&se->s->arena, sema_btf(se), type,
					  flags | (object ? PATH_OBJECT : 0), n,
					  &p, &end, &at);
	}
	if (root->kind == N_TARGET && kf_only_body(se, se->body))
		return kf_chain_defined(se, n, root->target.name, flags);
	if (root->kind != N_TARGET || !tp_only_body(se, se->body))
		return false;
	const char *name;
	pretty_suffix(&se->s->arena, root->target.name, &name);
	if (name[1] == '$' || !tp_check_arg(se, root, name + 1, false))
		return false;
	if (n == root)
		return true;
	btf = sema_btf(se);
	if (!btf)
		return false;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (body_has_probe(se, dp) && !tp_value_type(se, dp, n, flags))
			return false;
	}
	return true;
}

/*
 * Context variables in procfs probes and in the points of families pass 3
 * does not translate, checked as SystemTap checks them. op is 0 for a
 * read, else the assignment operator. false when the body is not one of
 * those probes (the caller handles it).
 */
static bool other_target(struct sema *se, struct node *n, int op,
			 enum type *type)
{
	struct probe_body *b = se->body;
	const struct derived_probe *dp = NULL;

	if (b->func)
		return false;
	for (int i = 0; i < se->prog->nprobes && !dp; i++)
		if (se->prog->probes[i]->body == b)
			dp = se->prog->probes[i];
	if (!dp || (dp->family != PF_PROCFS && dp->family != PF_UNSUPPORTED))
		return false;
	*type = TY_LONG;
	const char *root = tp_member_root(n);
	if (!root || dp->ctx == CTX_UNCHECKED) {
		if (root && root[1] == '$')
			*type = TY_STRING;	/* $$parms and the like */
		n->type = *type;
		return true;	/* the point's own error says enough */
	}
	/* the step right after the variable: member access or index */
	const struct node *step = NULL;
	for (const struct node *m = n; m->kind != N_TARGET; m = m->target.base)
		step = m;
	const char *msg = NULL;
	if (dp->family == PF_PROCFS) {
		*type = TY_STRING;
		if (strcmp(root, "$value"))
			msg = arena_printf(&se->s->arena, "invalid context "
					   "variable '%s' in a procfs probe "
					   "(only $value)", root);
		else if (step)
			msg = step->kind == N_TMEMBER ?
			      "procfs variable '$value' cannot be used as a "
			      "structure" : "procfs variable '$value' cannot "
			      "be used as an array";
		else if (dp->procfs_write && op)
			msg = "procfs variable '$value' is read-only in a "
			      "procfs write probe";
		else if (!dp->procfs_write && !op)
			msg = "procfs variable '$value' cannot be read in a "
			      "procfs read probe (assign it with '=' or '.=')";
		else if (op && op != OP_ASSIGN && op != OP_CONCAT)
			msg = "only '=' and '.=' assign procfs variable "
			      "'$value'";
	} else {
		bool args = dp->ctx == CTX_SYSCALL, ret =
			    dp->ctx == CTX_SYSCALL_RETURN;
		bool argn = !strncmp(root, "$arg", 4) && root[4] >= '1' &&
			    root[4] <= '6' && !root[5];
		bool known = argn || !strcmp(root, "$return") ||
			     !strcmp(root, "$syscall");
		if (dp->ctx == CTX_PLT) {
			*type = TY_STRING;
			if (strcmp(root, "$$name") || step || op)
				msg = arena_printf(&se->s->arena, "unknown "
						   "context variable '%s': .plt "
						   "probes have only $$name (the "
						   "function's name)", root);
		} else if (dp->ctx == CTX_NONE)
			msg = arena_printf(&se->s->arena, "unknown context "
					   "variable '%s': %s has none", root,
					   dp->pp);
		else if (known && step)
			msg = arena_printf(&se->s->arena, "'%s' cannot be used "
					   "as %s", root, step->kind == N_TMEMBER ?
					   "a structure" : "an array");
		else if (argn && !args)
			msg = arena_printf(&se->s->arena, "'%s' is only "
					   "available in .syscall probes", root);
		else if (!strcmp(root, "$return") && !ret)
			msg = "'$return' is only available in .syscall.return "
			      "probes";
		else if (!known)
			msg = arena_printf(&se->s->arena, "unknown context "
					   "variable '%s' (%s has $syscall, %s)",
					   root, dp->pp, args ? "$arg1 to $arg6" :
					   "$return");
		else if (op)
			msg = arena_printf(&se->s->arena, "'%s' is read-only",
					   root);
	}
	if (msg && se->report)
		diag_error(se->s, n->loc, "%s", msg);
	n->type = *type;
	return true;
}

static enum type infer_target(struct sema *se, struct node *n)
{
	struct probe_body *b = se->body;
	const char *name = n->target.name;
	int depth = 0;
	struct node *root = chain_root(n);
	enum type other;

	if (n->kind == N_TMEMBER && (!strcmp(name, "$") || !strcmp(name, "$$")))
		depth = (int)strlen(name);
	if ((root->kind == N_ATFUNC && !strcmp(root->call.name, "@cast")) ||
	    (root->kind == N_VAR && n != root))
		return infer_cast_chain(se, n, depth ? n->target.base : n,
					depth ? PATH_AGGREGATE : 0, depth);
	if (depth && root->kind != N_TARGET) {
		if (se->report)
			diag_error(se->s, n->loc, "pretty printing of anything "
				   "but a context variable or @cast is not "
				   "supported yet");
		return n->type = TY_STRING;
	}
	if (other_target(se, n, 0, &other))
		return other;
	if (n->kind != N_TARGET && !tp_member_root(n)) {
		if (se->report)
			diag_error(se->s, n->loc, "member access on a plain value "
				   "(autocast) is not supported yet: name its type "
				   "with @cast(value, \"type\")");
		return n->type = TY_LONG;
	}
	if (n->kind == N_TARGET && !strcmp(name, "$return")) {
		if (body_all_of(se, b, PF_KRETFUNC))
			return n->type = TY_LONG; /* pass 3: the return register */
		if (se->report)
			diag_error(se->s, n->loc, "'$return' is only available in "
				   "kernel.function(...).return probes");
		return n->type = TY_LONG;
	}
	if (kf_only_body(se, b))
		return infer_kfvar(se, n, false, false);
	if (!tp_only_body(se, b)) {
		/* begin, end, error, never and timers have none at all */
		const char *pp = NULL;
		bool kfunc = false;
		for (int i = 0; i < se->prog->nprobes && !pp; i++)
			if (se->prog->probes[i]->body == b &&
			    se->prog->probes[i]->family != PF_TRACEPOINT) {
				pp = se->prog->probes[i]->pp;
				kfunc = se->prog->probes[i]->kf_symbol != NULL;
			}
		if (se->report && kfunc)
			diag_error(se->s, n->loc, "context variables of "
				   "kernel.function probes are not supported "
				   "yet");
		else if (se->report && pp)
			diag_error(se->s, n->loc, "unknown context variable '%s': "
				   "%s has no context variables",
				   tp_member_root(n), pp);
		else if (se->report)
			diag_error(se->s, n->loc, "context variables are not "
				   "available in functions");
		return TY_LONG;
	}
	if (depth)
		return infer_tp_pretty(se, n, n->target.base, depth);
	if (n->kind != N_TARGET)
		return infer_member(se, n);
	const char *base_name;
	depth = pretty_suffix(&se->s->arena, name, &base_name);
	if (depth && (!strcmp(base_name, "$$parms") ||
		      !strcmp(base_name, "$$vars"))) {
		b->tp_parms = true;
		b->tp_parms_modes |= 1u << depth;
		tp_parms_pretty(se, depth);
		return n->type = TY_STRING;
	}
	if (depth && base_name[1] != '$') {
		/* $prev$: the pretty printing of the plain $prev */
		if (!n->target.base) {
			n->target.base = ast_new(se->s, N_TARGET, n->loc);
			n->target.base->target.name = base_name;
		}
		return infer_tp_pretty(se, n, n->target.base, depth);
	}
	if (tp_special(name)) {
		if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
			b->tp_parms_modes |= 1u;
		if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
			b->tp_parms = true;
		return n->type = TY_STRING;
	}
	if (name[1] == '$') {
		if (se->report)
			diag_error(se->s, n->loc, "unknown context variable "
				   "'%s' (tracepoints have $$parms, $$vars, "
				   "$$system and $$name)", name);
		return TY_STRING;
	}
	if (!tp_check_arg(se, n, name + 1, se->report))
		return TY_LONG;
	for (int i = 0; i < b->ntpvars; i++)
		if (!strcmp(b->tpvars[i]->name, name)) {
			n->sym = b->tpvars[i];
			return n->type = TY_LONG;
		}
	n->sym = add_context_slot(se, b, n, name);
	return n->type = TY_LONG;
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

/* @defined($x) in a kernel.function body: does every function have it? */
static int kf_defined(struct sema *se, const char *name)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != se->body)
			continue;
		if (!strcmp(name, "$return") ? dp->family != PF_KRETFUNC ||
		    !dp->kf_symbol : !kf_var_type(dp, name + 1))
			return 0;
	}
	return 1;
}

/* @defined($x): folded to 1 when every tracepoint of the body has $x. */
static enum type infer_defined(struct sema *se, struct node *n)
{
	struct node *arg = n->call.args;
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
	const char *name;

	if (address)
		root = chain_root(arg->unary.operand);
	if (!arg || arg->next || (root->kind != N_TARGET &&
				  (root->kind != N_VAR || root == arg) &&
				  (root->kind != N_ATFUNC ||
				   strcmp(root->call.name, "@cast")))) {
		if (se->report)
			diag_error(se->s, n->loc, "@defined of anything but a "
				   "context variable ($x, $x->f) or @cast is "
				   "not supported yet");
		return n->type = TY_LONG;
	}
	if (address)
		value = chain_defined(se, arg->unary.operand, PATH_ADDRESS);
	else if (pretty)
		value = chain_defined(se, arg->target.base, PATH_AGGREGATE);
	else if (arg->kind != N_TARGET)
		value = chain_defined(se, arg, arg->kind == N_ATFUNC ?
				      PATH_AGGREGATE : 0);
	else if (kf_only_body(se, se->body))
		value = kf_defined(se, arg->target.name);
	else if (!tp_only_body(se, se->body))
		value = 0;
	else if (pretty_suffix(&se->s->arena, arg->target.name, &name),
		 tp_special(name))
		value = 1;
	else
		value = name[1] != '$' &&
			tp_check_arg(se, arg, name + 1, false);
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
static void note_pragmas(struct sema *se, const char *code, struct node *at)
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

static enum type infer_perf(struct sema *se, struct node *n);

static enum type infer(struct sema *se, struct node *n, enum type want)
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
		/* &$x->f in a kernel.function probe; &@cast(p, "T")->f is
		 * the @cast chain's, below, as in any other probe */
		if (n->unary.op == OP_ADDR && kf_only_body(se, se->body) &&
		    (n->unary.operand->kind == N_TARGET ||
		     n->unary.operand->kind == N_TMEMBER ||
		     n->unary.operand->kind == N_TINDEX) &&
		    chain_root(n->unary.operand)->kind == N_TARGET) {
			infer_kfvar(se, n->unary.operand, true, false);
			n->sym = n->unary.operand->sym;
			n->unary.operand->sym = NULL;	/* not read itself */
			return n->type = TY_LONG;
		}
		if (n->unary.op == OP_ADDR) {
			struct node *op = n->unary.operand;
			struct node *root = chain_root(op);
			if ((root->kind == N_ATFUNC &&
			     !strcmp(root->call.name, "@cast")) ||
			    (root->kind == N_VAR && op != root))
				return infer_cast_chain(se, n, op, PATH_ADDRESS, 0);
			if (root->kind == N_TARGET && op != root &&
			    tp_only_body(se, se->body)) {
				n->sym = tp_chain_slot(se, op, PATH_ADDRESS);
				return n->type = TY_LONG;
			}
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
		/* ++ reads too */
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
				   "elsewhere, and as an array here", sym->name);
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
		return infer_target(se, n);
	case N_ATFUNC:
		if (!strcmp(n->call.name, "@defined"))
			return infer_defined(se, n);
		if (!strcmp(n->call.name, "@cast"))
			return infer_cast_chain(se, n, n, 0, 0);
		if (!strcmp(n->call.name, "@perf"))
			return infer_perf(se, n);
		if (!strcmp(n->call.name, "@entry"))
			return infer_entry(se, n, want);
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

static void walk_stmt(struct sema *se, struct node *n);

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

static void walk_foreach(struct sema *se, struct node *n)
{
	struct node *arr = n->foreach.array;
	struct symbol *sym = find_global(se->prog, arr->var.name, arr->loc.file);

	if (!sym) {
		if (se->report)
			diag_error(se->s, arr->loc, "foreach over '%s', which "
				   "is not a global array", arr->var.name);
	} else {
		arr->sym = sym;
		/* a statistics array is aggregated into one shared copy */
		note_access(se, sym, sym->type == TY_STATS, arr);
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

static void walk_stmt(struct sema *se, struct node *n)
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

/* ---- probe points ----------------------------------------------------- */

static const char *const family_names[] = {
	"begin", "end", "error", "never", "timer", "kernel", "procfs",
	"process", "perf", "kprobe", "netfilter",
};

static const struct {
	const char *unit;
	uint64_t ns;
} timer_units[] = {
	{ "s", 1000000000ULL }, { "sec", 1000000000ULL },
	{ "ms", 1000000ULL }, { "msec", 1000000ULL },
	{ "us", 1000ULL }, { "usec", 1000ULL },
	{ "ns", 1ULL }, { "nsec", 1ULL },
};

static int cstr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void sema_dump_probe_types(FILE *out)
{
	static const char *const fixed[] = {
		"begin", "begin(number)", "end", "end(number)", "error",
		"error(number)", "kernel.trace(string)", "never",
		"timer.hz(number)", "timer.jiffies(number)",
		"timer.jiffies(number).randomize(number)", "timer.profile",
	};
	enum { NFIXED = sizeof(fixed) / sizeof(fixed[0]),
	       NUNITS = sizeof(timer_units) / sizeof(timer_units[0]),
	       NLINES = NFIXED + 2 * NUNITS };
	const char *lines[NLINES];
	char *made[2 * NUNITS];

	for (size_t i = 0; i < NFIXED; i++)
		lines[i] = fixed[i];
	for (size_t i = 0; i < NUNITS; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "timer.%s(number)", timer_units[i].unit);
		made[2 * i] = xstrdup(buf);
		snprintf(buf, sizeof(buf), "timer.%s(number).randomize(number)",
			 timer_units[i].unit);
		made[2 * i + 1] = xstrdup(buf);
	}
	for (size_t i = 0; i < 2 * NUNITS; i++)
		lines[NFIXED + i] = made[i];
	qsort(lines, NLINES, sizeof(lines[0]), cstr_cmp);
	for (size_t i = 0; i < NLINES; i++)
		fprintf(out, "%s\n", lines[i]);
	for (size_t i = 0; i < 2 * NUNITS; i++)
		free(made[i]);
}

static struct node *comp_at(struct node *comps, int i)
{
	for (; comps && i > 0; i--)
		comps = comps->next;
	return comps;
}

static bool comp_is(struct node *c, const char *name)
{
	return c && strcmp(c->comp.name, name) == 0;
}

/* Report a probe point error unless the point is optional ('?'). */
static bool point_error(struct sema *se, struct node *point, struct node *at,
			const char *msg)
{
	if (point->point.optional || se->optional)
		return false;
	diag_error(se->s, at ? at->loc : point->loc, "%s", msg);
	return false;
}

static char *point_string(struct sema *se, struct node *point)
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

/*
 * For an unknown point: the closest family (to its first component) or
 * alias (to its dotted names), loaded or in the library.
 */
static const char *suggest_point(struct sema *se, struct node *point)
{
	struct session *s = se->s;
	int nf = (int)(sizeof(family_names) / sizeof(family_names[0]));
	const char **names = xmalloc((size_t)(nf + se->naliases +
					      s->nlibrary_names + 1) *
				     sizeof(*names));
	struct strbuf dotted = { 0 };
	int n = 0;

	ast_foreach(c, point->point.comps)
		sb_printf(&dotted, "%s%s", c == point->point.comps ? "" : ".",
			  c->comp.name);
	for (int i = 0; i < nf; i++)
		names[n++] = family_names[i];
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

/*
 * timer.UNIT(N)[.randomize(M)] (s, ms, us, ns and their long names, and
 * jiffies), timer.hz(N), timer.profile: SystemTap's argument checks and
 * messages. One hrtimer each (not per CPU), but timer.profile: a tick on
 * every CPU, every millisecond, as SystemTap's perf cpu-clock sampling
 * (it names the point so).
 */
static bool derive_timer(struct sema *se, struct node *point,
			 struct derived_probe *dp)
{
	struct node *c0 = point->point.comps, *unit = c0->next;
	struct arena *a = &se->s->arena;
	const uint64_t min_ns = 100000, max_ns = 86400ULL * 1000000000ULL;
	uint64_t scale = 0;

	if (!unit)
		return point_error(se, point, c0, "timer needs a unit: "
				   "timer.s(N), timer.ms(N), ...");
	for (size_t i = 0; i < sizeof(timer_units) / sizeof(timer_units[0]); i++)
		if (comp_is(unit, timer_units[i].unit))
			scale = timer_units[i].ns;
	struct node *opt = unit->next;
	dp->family = PF_TIMER;
	if (comp_is(unit, "profile")) {
		if (opt && comp_is(opt, "tick") && !opt->next)
			return point_error(se, point, opt, "profiling timer "
					   "support (register_timer_hook) not "
					   "found in kernel!");
		if (opt)
			return point_error(se, point, opt, arena_printf(a,
					   "timer.profile takes no '.%s'",
					   opt->comp.name));
		if (unit->comp.arg)
			return point_error(se, point, unit, "timer.profile "
					   "takes no argument");
		dp->timer_profile = true;
		dp->period_ns = 1000000;
		dp->pp = "perf.type(1).config(0).sample(1000000)";
		return true;
	}
	if (opt && !comp_is(opt, "randomize"))
		return point_error(se, point, opt, arena_printf(a,
				   "unexpected component '.%s' after timer.%s",
				   opt->comp.name, unit->comp.name));
	if (opt && comp_is(unit, "hz"))
		return point_error(se, point, opt, "timer.hz takes no "
				   "'.randomize'");
	if (opt && opt->next)
		return point_error(se, point, opt->next, arena_printf(a,
				   "unexpected component '.%s' after "
				   ".randomize", opt->next->comp.name));
	if (!scale && !comp_is(unit, "hz") && !comp_is(unit, "jiffies"))
		return point_error(se, point, unit, "unknown timer unit "
				   "(expected s, ms, us, ns, jiffies, hz or "
				   "profile)");
	if (!unit->comp.arg || unit->comp.arg->kind != N_NUMBER)
		return point_error(se, point, unit, arena_printf(a,
				   "timer.%s needs a number: timer.%s(N)",
				   unit->comp.name, unit->comp.name));
	if (opt && (!opt->comp.arg || opt->comp.arg->kind != N_NUMBER))
		return point_error(se, point, opt, "'.randomize' needs a "
				   "number: .randomize(N)");
	int64_t v = unit->comp.arg->num.value;
	int64_t r = opt ? opt->comp.arg->num.value : 0;

	if (comp_is(unit, "hz")) {
		if (v <= 0)
			return point_error(se, point, unit, "frequency must be "
					   "greater than 0");
		dp->period_ns = 1000000000ULL / (uint64_t)v;
		if (dp->period_ns < min_ns)
			return point_error(se, point, unit, arena_printf(a,
					   "interval value out of range (%" PRIu64
					   ", %" PRIu64 ")", min_ns, max_ns));
		return true;
	}
	if (comp_is(unit, "jiffies")) {
		if (v <= 0 || v > 1000000)
			return point_error(se, point, unit, "invalid interval "
					   "for jiffies timer");
		if (r < 0 || r > v)
			return point_error(se, point, opt, "invalid randomize "
					   "for jiffies timer");
		/* in jiffies: the runtime knows the kernel's HZ */
		dp->timer_jiffies = true;
		dp->period_ns = (uint64_t)v;
		dp->randomize_ns = (uint64_t)r;
		return true;
	}
	uint64_t lo = min_ns / scale ? min_ns / scale : 1, hi = max_ns / scale;
	if (v < (int64_t)lo || (uint64_t)v > hi)
		return point_error(se, point, unit, arena_printf(a,
				   "interval value out of range (%" PRIu64 ", %"
				   PRIu64 ")", lo, hi));
	if (r < 0 || r > v)
		return point_error(se, point, opt, "randomization value out of "
				   "range");
	dp->period_ns = (uint64_t)v * scale;
	dp->randomize_ns = (uint64_t)r * scale;
	return true;
}

/* ---- families pass 3 does not translate (yet), and procfs ------------- */

static bool is_str_arg(const struct node *c)
{
	return c && c->comp.arg && c->comp.arg->kind == N_STRING;
}

static bool is_num_arg(const struct node *c)
{
	return c && c->comp.arg && c->comp.arg->kind == N_NUMBER;
}

/* SystemTap's rules for a procfs file name; NULL when fine. */
static const char *procfs_path_error(const char *path)
{
	if (!*path)
		return "a procfs path cannot be empty";
	if (*path == '/')
		return "a procfs path cannot start with a '/'";
	if (path[strlen(path) - 1] == '/')
		return "a procfs path cannot end with a '/'";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0)
			return "a procfs path cannot have an empty component "
			       "('//')";
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return "a procfs path cannot be relative (no '.' or "
			       "'..' components)";
		p += n;
		p += *p == '/';
	}
	return NULL;
}

/*
 * procfs[("PATH")][.umask(N)].read[.maxsize(N)] and
 * procfs[("PATH")][.umask(N)].write: a file /proc/systemtap/MODULE/PATH.
 */
static int derive_procfs(struct sema *se, struct node *point,
			 struct derived_probe *dp)
{
	struct node *c0 = point->point.comps, *c = c0->next;

	if (c0->comp.arg && !is_str_arg(c0))
		return point_error(se, point, c0, "procfs takes a path string: "
				   "procfs(\"name\")");
	if (comp_is(c, "umask")) {
		if (!is_num_arg(c) || c->comp.arg->num.value < 0 ||
		    c->comp.arg->num.value > 0777)
			return point_error(se, point, c, "umask takes a number "
					   "from 0 to 0777");
		dp->procfs_umask = c->comp.arg->num.value;
		c = c->next;
	}
	if (!c || (!comp_is(c, "read") && !comp_is(c, "write")) || c->comp.arg)
		return -1;
	dp->procfs_write = comp_is(c, "write");
	c = c->next;
	if (!dp->procfs_write && comp_is(c, "maxsize")) {
		if (!is_num_arg(c))
			return point_error(se, point, c, "maxsize needs a number "
					   "(the largest file content in bytes)");
		if (c->comp.arg->num.value <= 0)
			return point_error(se, point, c, "maxsize must be greater "
					   "than 0");
		dp->procfs_maxsize = c->comp.arg->num.value;
		c = c->next;
	}
	if (c)
		return -1;
	dp->procfs_path = c0->comp.arg ? c0->comp.arg->str.value : "command";
	const char *why = procfs_path_error(dp->procfs_path);
	if (why)
		return point_error(se, point, c0, why);
	dp->family = PF_PROCFS;
	return true;
}

/* Record a point of a family pass 3 cannot translate: its body is still
 * checked, then the point is an error (report_unsupported). */
static int unsupported(struct sema *se, struct node *point,
		       struct derived_probe *dp, const char *family,
		       enum point_ctx ctx)
{
	if (point->point.optional || se->optional)
		return false;	/* resolves to nothing */
	dp->family = PF_UNSUPPORTED;
	dp->unsupported = arena_printf(&se->s->arena, "%s probes are not "
				       "supported yet ('%s')", family, dp->pp);
	dp->ctx = ctx;
	return true;
}

/* process[("PATH")|(PID)] needs a program: its own or -c / -x. */
static bool process_target(struct sema *se, struct node *point,
			   struct node *proc, struct derived_probe *dp)
{
	if (proc->comp.arg) {
		dp->process = proc->comp.arg->kind == N_STRING ?
			      proc->comp.arg->str.value :
			      arena_printf(&se->s->arena, "%lld",
					   (long long)proc->comp.arg->num.value);
		return true;
	}
	if (se->s->target_cmd || se->s->target_pid)
		return true;
	return point_error(se, point, proc, arena_printf(&se->s->arena,
			   "probe point not available without -c COMMAND or "
			   "-x PID (it names no program): '%s'", dp->pp));
}

/*
 * process(...).begin/.end/.thread.*, .syscall[.return], .function/
 * .statement/.plt/.mark/.library...: checked, then "not supported yet".
 */
static int derive_process(struct sema *se, struct node *point,
			  struct derived_probe *dp)
{
	struct node *proc = point->point.comps, *c = proc->next;
	enum point_ctx ctx;

	if (!c)
		return -1;
	bool binary = comp_is(c, "function") || comp_is(c, "statement") ||
		      comp_is(c, "plt") || comp_is(c, "mark") ||
		      comp_is(c, "library") || comp_is(c, "provider");
	if (binary) {
		/* .function, .plt, .mark...: a binary's symbols and DWARF,
		 * which pass 2 does not read: nothing matches */
		if (!process_target(se, point, proc, dp))
			return false;
		if (!unsupported(se, point, dp, "", comp_is(c, "plt") ?
				 CTX_PLT : CTX_UNCHECKED))
			return false;
		dp->unsupported = arena_printf(&se->s->arena, "no match for "
					       "probe point '%s': process(...)."
					       "%s probes are not supported yet",
					       dp->pp, c->comp.name);
		return true;
	}
	if (comp_is(c, "thread") && c->next &&
	    (comp_is(c->next, "begin") || comp_is(c->next, "end")) &&
	    !c->next->comp.arg && !c->next->next)
		ctx = CTX_NONE;
	else if ((comp_is(c, "begin") || comp_is(c, "end")) && !c->comp.arg &&
		 !c->next)
		ctx = CTX_NONE;
	else if (comp_is(c, "syscall") && !c->comp.arg && !c->next)
		ctx = CTX_SYSCALL;
	else if (comp_is(c, "syscall") && !c->comp.arg &&
		 comp_is(c->next, "return") && !c->next->next)
		ctx = CTX_SYSCALL_RETURN;
	else
		return -1;
	if (!process_target(se, point, proc, dp))
		return false;
	return unsupported(se, point, dp, "process", ctx);
}

static const char *const perf_hw[] = {
	"cpu_cycles", "instructions", "cache_references", "cache_misses",
	"branch_instructions", "branch_misses", "bus_cycles",
	"stalled_cycles_frontend", "stalled_cycles_backend",
	"ref_cpu_cycles",
};
static const char *const perf_sw[] = {
	"cpu_clock", "task_clock", "page_faults", "context_switches",
	"cpu_migrations", "page_faults_min", "page_faults_maj",
	"alignment_faults", "emulation_faults", "dummy", "bpf_output",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

/*
 * perf.hw.NAME, perf.sw.NAME, perf.type(N).config(M), then .sample(N),
 * .process[("PATH")], .counter("NAME").
 */
static int derive_perf(struct sema *se, struct node *point,
		       struct derived_probe *dp)
{
	struct node *c = point->point.comps->next;

	if (comp_is(c, "hw") || comp_is(c, "sw")) {
		bool hw = comp_is(c, "hw");
		c = c->next;
		if (!c || c->comp.arg ||
		    !(hw ? in_list(c->comp.name, perf_hw, sizeof(perf_hw) /
				   sizeof(perf_hw[0])) :
			   in_list(c->comp.name, perf_sw, sizeof(perf_sw) /
				   sizeof(perf_sw[0]))))
			return -1;
		c = c->next;
	} else if (comp_is(c, "type") && is_num_arg(c) &&
		   comp_is(c->next, "config") && is_num_arg(c->next)) {
		c = c->next->next;
	} else {
		return -1;
	}
	if (comp_is(c, "sample")) {
		if (!is_num_arg(c) || c->comp.arg->num.value <= 0)
			return point_error(se, point, c, "the perf sample "
					   "interval must be a positive number");
		c = c->next;
	}
	if (comp_is(c, "process")) {
		if (c->comp.arg && !is_str_arg(c))
			return -1;
		if (!process_target(se, point, c, dp))
			return false;
		if (!dp->process)
			dp->process = "";	/* the -c / -x program */
		c = c->next;
	}
	if (comp_is(c, "counter")) {
		if (!is_str_arg(c))
			return -1;
		if (!*c->comp.arg->str.value)
			return point_error(se, point, c, "missing perf counter "
					   "name in .counter(\"\")");
		dp->perf_counter = c->comp.arg->str.value;
		c = c->next;
	}
	if (c)
		return -1;
	return unsupported(se, point, dp, "perf", CTX_NONE);
}

static const char *const nf_families[] = {
	"NFPROTO_IPV4", "NFPROTO_IPV6", "NFPROTO_ARP", "NFPROTO_BRIDGE",
};

/*
 * Points of the families SystemTap has beyond ours, with SystemTap's
 * checks; true/false as derive_point, -1: not one of them (or not a
 * shape SystemTap knows), so the caller reports an unknown point.
 */
static int derive_other(struct sema *se, struct node *point,
			struct derived_probe *dp)
{
	struct node *c0 = point->point.comps, *c1 = c0->next;
	const char *name = c0->comp.name;

	if (!strcmp(name, "procfs"))
		return derive_procfs(se, point, dp);
	if (!strcmp(name, "process"))
		return derive_process(se, point, dp);
	if (!strcmp(name, "perf"))
		return derive_perf(se, point, dp);
	if (!strcmp(name, "kprobe")) {
		struct node *c = c1;
		if (comp_is(c, "module") && is_str_arg(c))
			c = c->next;
		if (comp_is(c, "function") && is_str_arg(c)) {
			c = c->next;
			bool ret = comp_is(c, "return");
			if (ret)
				c = c->next;
			if (ret && comp_is(c, "maxactive") && is_num_arg(c))
				c = c->next;
			if (c)
				return -1;
			return unsupported(se, point, dp, "kprobe.function",
					   CTX_NONE);
		}
		if (c == c1 && comp_is(c, "statement") && is_num_arg(c) &&
		    comp_is(c->next, "absolute") && !c->next->next) {
			if (!se->s->guru)
				return point_error(se, point, c0, "kprobe."
						   "statement(...).absolute "
						   "probes need guru mode (-g)");
			return unsupported(se, point, dp, "kprobe.statement",
					   CTX_NONE);
		}
		return -1;
	}
	if (!strcmp(name, "kernel") && comp_is(c1, "statement") &&
	    is_num_arg(c1) && comp_is(c1->next, "absolute") &&
	    !c1->next->next) {
		if (!se->s->guru)
			return point_error(se, point, c0, "kernel.statement(...)"
					   ".absolute probes need guru mode (-g)");
		return unsupported(se, point, dp, "kernel.statement(ADDRESS)"
				   ".absolute", CTX_NONE);
	}
	if (!strcmp(name, "netfilter") && comp_is(c1, "hook")) {
		ast_foreach(c, c1->next)
			if (comp_is(c, "pf") && is_str_arg(c) &&
			    !in_list(c->comp.arg->str.value, nf_families,
				     sizeof(nf_families) / sizeof(nf_families[0])))
				return point_error(se, point, c, arena_printf(
						   &se->s->arena, "unsupported "
						   "netfilter protocol family "
						   "'%s' (NFPROTO_IPV4, "
						   "NFPROTO_IPV6, NFPROTO_ARP or "
						   "NFPROTO_BRIDGE)",
						   c->comp.arg->str.value));
	}
	return -1;
}

/* Match one point against the families; fill dp. false if it does not match. */
static bool derive_point(struct sema *se, struct node *point,
			 struct derived_probe *dp)
{
	struct node *c0 = point->point.comps;
	int ncomps = ast_list_length(c0);
	const char *name = c0->comp.name;

	ast_foreach(c, c0)
		if (strchr(c->comp.name, '*'))
			return point_error(se, point, c, arena_printf(&se->s->arena,
					   "unknown probe point '%s' (no alias or "
					   "family matches%s)", se->nexpanding ?
					   se->list_name : point_string(se, point),
					   se->nexpanding ? arena_printf(&se->s->arena,
					   ": it expands to '%s'", point_string(se,
					   point)) : ""));
	dp->point = point;
	dp->pp = point_string(se, point);

	if (!strcmp(name, "begin") || !strcmp(name, "end") ||
	    !strcmp(name, "error") || !strcmp(name, "never")) {
		dp->family = !strcmp(name, "begin") ? PF_BEGIN :
			     !strcmp(name, "end") ? PF_END :
			     !strcmp(name, "error") ? PF_ERROR : PF_NEVER;
		if (ncomps != 1)
			return point_error(se, point, c0->next, "unexpected "
					   "component after this probe point");
		if (c0->comp.arg) {
			if (c0->comp.arg->kind != N_NUMBER || dp->family == PF_NEVER)
				return point_error(se, point, c0, dp->family ==
						   PF_NEVER ? "'never' takes no argument"
						   : "the priority must be a number");
			dp->priority = c0->comp.arg->num.value;
		}
		return true;
	}
	if (!strcmp(name, "timer"))
		return derive_timer(se, point, dp);
	if (!strcmp(name, "kernel") && comp_is(c0->next, "function")) {
		struct node *fn = c0->next, *sfx = fn->next;
		if (!fn->comp.arg || fn->comp.arg->kind != N_STRING)
			return point_error(se, point, fn, "kernel.function needs "
					   "a function name: kernel.function("
					   "\"vfs_read\")");
		dp->family = PF_KFUNC;
		if (sfx && comp_is(sfx, "call")) {
			dp->kf_suffix = ".call";
			sfx = sfx->next;
		}
		else if (sfx && comp_is(sfx, "return")) {
			dp->family = PF_KRETFUNC;
			dp->kf_suffix = ".return";
			sfx = sfx->next;
			if (sfx && comp_is(sfx, "inline"))
				return point_error(se, point, sfx, "'.inline' "
						   "cannot follow '.return' "
						   "(an inlined copy has no "
						   "return to probe)");
			if (sfx && comp_is(sfx, "maxactive")) {
				if (!sfx->comp.arg || sfx->comp.arg->kind != N_NUMBER)
					return point_error(se, point, sfx, "maxactive "
							   "takes a number (0 to "
							   "32767)");
				if (sfx->comp.arg->num.value < 0 ||
				    sfx->comp.arg->num.value > 32767)
					return point_error(se, point, sfx, "maxactive "
							   "value out of range (0 to "
							   "32767)");
				dp->kf_maxactive = sfx->comp.arg->num.value;
				sfx = sfx->next;
			}
		}
		if (sfx && comp_is(sfx, "inline") && !sfx->next &&
		    !dp->kf_suffix) {
			dp->kf_suffix = ".inline";
			return true;
		}
		if (sfx && comp_is(sfx, "maxactive"))
			return point_error(se, point, sfx, "'.maxactive' applies "
					   "to .return probes only");
		if (sfx)
			return point_error(se, point, sfx, arena_printf(
					   &se->s->arena, "'.%s' is not supported "
					   "on kernel.function yet", sfx->comp.name));
		return true;
	}
	if (!strcmp(name, "kernel") && comp_is(c0->next, "statement") &&
	    c0->next->comp.arg && c0->next->comp.arg->kind == N_STRING) {
		if (c0->next->next)
			return point_error(se, point, c0->next->next, arena_printf(
					   &se->s->arena, "'.%s' is not supported "
					   "on kernel.statement yet",
					   c0->next->next->comp.name));
		dp->family = PF_KFUNC;
		dp->kf_statement = true;
		return true;
	}
	if (!strcmp(name, "kernel") && comp_is(c0->next, "trace")) {
		struct node *tr = c0->next;
		if (!tr->comp.arg || tr->comp.arg->kind != N_STRING)
			return point_error(se, point, tr, "kernel.trace needs a "
					   "tracepoint name: kernel.trace(\"sched:"
					   "sched_switch\")");
		if (tr->next)
			return point_error(se, point, tr->next, "unexpected "
					   "component after kernel.trace(...)");
		const char *arg = tr->comp.arg->str.value;
		const char *colon = strchr(arg, ':');
		dp->family = PF_TRACEPOINT;
		if (colon) {
			dp->tp_system = arena_strndup(&se->s->arena, arg,
						      (size_t)(colon - arg));
			dp->tp_name = colon + 1;
		} else {
			dp->tp_name = arg;
		}
		if (!*dp->tp_name)
			return point_error(se, point, tr, "empty tracepoint name");
		return true;
	}
	int other = derive_other(se, point, dp);
	if (other >= 0)
		return other;
	char msg[256];
	const char *hint = suggest_point(se, point);
	if (hint && strcmp(hint, name))
		snprintf(msg, sizeof(msg), "unknown probe point '%s' (did you "
			 "mean '%s'?)", dp->pp, hint);
	else
		snprintf(msg, sizeof(msg), "unknown probe point '%s'", dp->pp);
	return point_error(se, point, c0, msg);
}

/* The target kernel's function catalog (from its debug vmlinux); or NULL. */
static const struct kf_catalog *kf_catalog(struct sema *se)
{
	if (se->kf_state == 0) {
		const char *vmlinux, *tried = NULL;
		se->kf_state = -1;
		if (!se->s->release)
			se->kf_err = xstrdup("no target kernel release");
		else if (!(vmlinux = kf_find_vmlinux(se->s->release,
						     &se->s->arena, &tried)))
			se->kf_err = xstrdup(arena_printf(&se->s->arena,
				"kernel.function needs debuginfo: install "
				"linux-image-%s-dbg (missing %s)", se->s->release,
				tried ? tried : "its debug vmlinux"));
		else if (!kf_catalog_load(se->s->release, vmlinux,
					  cache_dir(&se->s->arena),
					  &se->kfcat, &se->kf_err))
			se->kf_state = 1;
	}
	return se->kf_state > 0 ? &se->kfcat : NULL;
}

/*
 * The link-time address of an exported function the runtime finds the
 * KASLR offset with (STP_KFUNC_ANCHOR_SYM); 0 when the catalog has none.
 */
static uint64_t kf_anchor(struct sema *se, const struct kf_catalog *cat)
{
	/* exported functions every kernel has: _printk since 5.15 */
	static const char *const anchors[] = { "_printk", "printk", "kfree" };
	struct kf_query q = { .line = -1, .kind = KF_EXPORTED_ONLY,
			      .guru = true };
	struct kf_point *pts = NULL;
	uint64_t addr = 0;
	int n;

	for (size_t i = 0; i < sizeof(anchors) / sizeof(anchors[0]) &&
			   !se->prog->kf_anchor; i++) {
		q.func = anchors[i];
		n = kf_catalog_match(cat, &q, &pts);
		if (n == 1 && pts[0].ninst >= 1 &&
		    !(pts[0].inst[0]->flags & KF_INST_INLINE)) {
			addr = pts[0].inst[0]->addr;
			se->prog->kf_anchor = addr;
			se->prog->kf_anchor_sym = anchors[i];
		}
		kf_points_free(pts, n);
	}
	return se->prog->kf_anchor;
}

/*
 * kernel.statement("FUNC[@FILE[:N|:N-M|:*|+N]]"): a kprobe at each line's
 * lowest address in each copy of each function that matches (see
 * kf_statement_points), named kernel.statement("FUNC@FILE:LINE").
 */
static void find_defined(struct node *n, void *arg);
static struct probe_body *kf_own_body(struct sema *se, struct probe_body *b);

static int expand_kstatement(struct sema *se, struct node *point,
			     struct derived_probe *dp, struct probe_body *b)
{
	bool per_point = false;
	struct probe_body *pb = b;

	struct program *prog = se->prog;
	struct node *st = point->point.comps->next;
	const char *arg = st->comp.arg->str.value, *tried = NULL, *vmlinux;
	char *err = NULL;
	struct kf_stmt *pts = NULL;
	int n;

	if (!se->s->release ||
	    !(vmlinux = kf_find_vmlinux(se->s->release, &se->s->arena, &tried)))
		return point_error(se, point, st, arena_printf(&se->s->arena,
				   "kernel.statement needs debuginfo: install "
				   "linux-image-%s-dbg (missing %s)",
				   se->s->release ? se->s->release : "?",
				   tried ? tried : "its debug vmlinux"));
	const struct kf_catalog *cat = kf_catalog(se);
	if (!cat)
		return point_error(se, point, st, arena_printf(&se->s->arena,
				   "cannot resolve kernel.statement: %s",
				   se->kf_err ? se->kf_err : "no catalog"));
	kf_anchor(se, cat);
	n = kf_statement_points(cat, vmlinux, arg, se->s->guru, true, &pts,
				&err);
	if (n == -2)
		return point_error(se, point, st, "kernel.statement needs "
				   "\"FUNCTION\", \"FUNCTION@FILE\", "
				   "\"FUNCTION@FILE:LINE\", \"FUNCTION@FILE:"
				   "FIRST-LAST\", \"FUNCTION@FILE:*\" or "
				   "\"FUNCTION@FILE+OFFSET\"");
	if (n < 0) {
		point_error(se, point, st, arena_printf(&se->s->arena,
			    "cannot resolve kernel.statement: %s", err));
		free(err);
		return 0;
	}
	if (n == 0 || !prog->kf_anchor) {
		point_error(se, point, st, arena_printf(&se->s->arena,
			    "no match for probe point '%s': %s",
			    point_string(se, point), n ? "no anchor for the "
			    "kernel's KASLR offset" : err ? err : "?"));
		free(err);
		kf_stmts_free(pts, n);
		return 0;
	}
	/* each line's copies share a body: its own one when the body asks
	 * @defined (the variables differ from line to line) */
	ast_visit(b->probe->probe.body, find_defined, &per_point);
	for (int i = 0; i < n; i++) {
		struct derived_probe *d = arena_alloc(&se->s->arena,
						      sizeof(*d));
		if (per_point && i > 0 && (pts[i].line != pts[i - 1].line ||
		    strcmp(pts[i].func, pts[i - 1].func) ||
		    strcmp(pts[i].file, pts[i - 1].file)))
			pb = kf_own_body(se, b);
		*d = *dp;
		d->kf_addr = pts[i].addr;
		d->kf_entry_pc = pts[i].entry;
		d->kf_cu = pts[i].cu;
		d->kf_symbol = arena_strdup(&se->s->arena, pts[i].func);
		d->kf_nvars = 0;
		while (pts[i].vars[d->kf_nvars])
			d->kf_nvars++;
		d->kf_vars = arena_alloc(&se->s->arena, ((size_t)d->kf_nvars +
					 1) * sizeof(*d->kf_vars));
		for (int v = 0; v < d->kf_nvars; v++)	/* without the '$' */
			d->kf_vars[v] = arena_strdup(&se->s->arena,
						     pts[i].vars[v] + 1);
		d->pp = arena_printf(&se->s->arena,
				     "kernel.statement(\"%s@%s:%d\")",
				     pts[i].func, pts[i].file, pts[i].line);
		d->body = pb;
		GROW(se, prog->probes, prog->nprobes, prog->probes_cap);
		prog->probes[prog->nprobes++] = d;
	}
	kf_stmts_free(pts, n);
	return n;
}

/*
 * The instance whose DWARF gives d's context variables (dwloc.c finds
 * out-of-line and inlined copies by entry pc), with its variables copied
 * out of the catalog (freed before types are inferred).
 */
static void kf_keep_instance(struct sema *se, struct derived_probe *d,
			     const struct kf_catalog *cat,
			     const struct kf_inst *in)
{
	const uint32_t *list = cat->lists[in->vars];

	d->kf_addr = in->addr;
	d->kf_cu = in->cu;
	d->kf_nvars = (int)list[0];
	d->kf_vars = arena_alloc(&se->s->arena, (list[0] + 1) *
				 sizeof(*d->kf_vars));
	for (uint32_t v = 0; v < list[0]; v++)
		d->kf_vars[v] = arena_strdup(&se->s->arena,
					     cat->vars[list[1 + v]]);
}

static void find_defined(struct node *n, void *arg)
{
	if ((n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined")) ||
	    (n->kind == N_TARGET && !strncmp(n->target.name, "$$", 2)))
		*(bool *)arg = true;
}

/*
 * The size and signedness of a .return probe's $return: its function's
 * DWARF return type (as -L spells it) resolved through BTF. Left 0 (the
 * whole register) for a type BTF does not know or wider than 8 bytes.
 */
static void kf_ret_type(struct sema *se, struct derived_probe *d,
			const struct kfunc *f)
{
	struct btf *btf;
	struct btf_info bi;
	int id;

	d->kf_ret_size = 0;
	d->kf_ret_signed = false;
	d->kf_ret_ctype = d->family == PF_KRETFUNC ? f->ret_type : NULL;
	if (d->family != PF_KRETFUNC || !f->ret_type || !(btf = sema_btf(se)))
		return;
	id = btf_find_type(btf, f->ret_type);
	if (id <= 0)
		return;
	btf_resolve(btf, id, &bi);
	if ((bi.cls == BTF_CLASS_INT || bi.cls == BTF_CLASS_ENUM) &&
	    (bi.size == 1 || bi.size == 2 || bi.size == 4 || bi.size == 8)) {
		d->kf_ret_size = bi.size;
		d->kf_ret_signed = bi.is_signed;
	}
}

static void find_return(struct node *n, void *arg)
{
	if (n->kind == N_TARGET && !strcmp(n->target.name, "$return"))
		*(bool *)arg = true;
}

/*
 * Does body b already serve a .return probe whose $return has another
 * size or signedness than d's? Then d's function gets a body of its own
 * (kf_own_body): SystemTap elaborates each function apart, so in
 * kernel.function("vfs_*").return an int function's -22 is -22 while
 * ssize_t ones share a body; so do the points of a comma list.
 */
static bool kf_return_differs(const struct program *prog,
			      const struct probe_body *b,
			      const struct derived_probe *d)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *o = prog->probes[i];
		if (o->body == b && o->family == PF_KRETFUNC &&
		    (o->kf_ret_size != d->kf_ret_size ||
		     o->kf_ret_signed != d->kf_ret_signed))
			return true;
	}
	return false;
}

/*
 * A body of its own for another function of a kernel.function point, when
 * the body asks @defined(...): as in SystemTap, each function's probe is
 * elaborated apart, so @defined($x) is 1 where that function has $x
 * (a shared body folds it to 1 only when all of them do).
 */
static struct probe_body *kf_own_body(struct sema *se, struct probe_body *b)
{
	struct program *prog = se->prog;
	struct probe_body *c = arena_alloc(&se->s->arena, sizeof(*c));

	c->probe = ast_clone_node(se->s, b->probe);
	c->user_probe = b->user_probe;
	c->via = b->via;
	c->list_name = b->list_name;
	c->kf_per_function = b->kf_per_function = true;
	c->index = prog->nbodies;
	GROW(se, prog->bodies, prog->nbodies, prog->bodies_cap);
	prog->bodies[prog->nbodies++] = c;
	return c;
}

/*
 * kernel.function("PATTERN[@FILE]")[.call|.inline|.return]: one derived
 * probe per instance, as SystemTap: a plain point covers the out-of-line
 * copies and the inlined ones, .call only the out-of-line copies, .inline
 * only the inlined ones, .return the out-of-line copies. Each carries its
 * link-time entry pc (the runtime relocates it by the KASLR offset, which
 * costs nothing per function). Returns how many were appended.
 */
static int expand_kfunc(struct sema *se, struct node *point,
			struct derived_probe *dp, struct probe_body *b)
{
	struct program *prog = se->prog;
	struct node *fn = point->point.comps->next;
	if (dp->kf_statement)
		return expand_kstatement(se, point, dp, b);
	const struct kf_catalog *cat = kf_catalog(se);
	struct kf_point *pts = NULL;
	struct kf_query q = { .line = -1, .guru = se->s->guru };
	char *pattern = arena_strdup(&se->s->arena, fn->comp.arg->str.value);
	char *at = strchr(pattern, '@'), msg[512];
	const char *sfx = dp->kf_suffix ? dp->kf_suffix : "";
	int n, derived = 0;

	if (!cat) {
		snprintf(msg, sizeof(msg), "cannot resolve kernel functions: %s",
			 se->kf_err);
		point_error(se, point, fn, msg);
		return 0;
	}
	if (at) {
		char *colon = strchr(at + 1, ':');
		*at = '\0';
		q.file = at + 1;
		if (colon) {
			*colon = '\0';
			q.line = atoi(colon + 1);
		}
	}
	q.func = pattern;
	q.kind = dp->family == PF_KRETFUNC ? KF_RETURN :
		 !strcmp(sfx, ".call") ? KF_CALL :
		 !strcmp(sfx, ".inline") ? KF_INLINE : KF_ANY;
	kf_anchor(se, cat);
	n = kf_catalog_match(cat, &q, &pts);
	bool per_function = false;
	if (n > 1)
		ast_visit(b->probe->probe.body, find_defined, &per_function);
	bool reads_return = false;
	if (dp->family == PF_KRETFUNC)
		ast_visit(b->probe->probe.body, find_return, &reads_return);
	int functions = 0;
	for (int i = 0; i < n; i++) {
		const struct kfunc *f = pts[i].f;
		const char *pp;

		if (*f->file && f->line > 0)
			pp = arena_printf(&se->s->arena,
					  "kernel.function(\"%s@%s:%d\")%s",
					  f->name, f->file, f->line, sfx);
		else
			pp = arena_printf(&se->s->arena,
					  "kernel.function(\"%s\")%s", f->name,
					  sfx);
		/* each function's copies share a body: its own one when the
		 * body asks @defined or reads $return of mixed types (see
		 * kf_own_body) */
		struct probe_body *fb = per_function && functions ?
					kf_own_body(se, b) : b;
		if (reads_return && !per_function) {
			struct derived_probe t = *dp;
			kf_ret_type(se, &t, f);
			if (kf_return_differs(prog, b, &t))
				fb = kf_own_body(se, b);
		}
		functions++;
		for (int k = 0; k < pts[i].ninst; k++) {
			const struct kf_inst *in = pts[i].inst[k];
			struct derived_probe *d = arena_alloc(&se->s->arena,
							      sizeof(*d));
			*d = *dp;
			d->kf_symbol = arena_strdup(&se->s->arena, f->name);
			kf_ret_type(se, d, f);
			/* a function only in the symbol table has no DWARF */
			if (!(f->flags & KF_SYMTAB))
				kf_keep_instance(se, d, cat, in);
			d->kf_addr = in->addr;
			d->kf_inline = in->flags & KF_INST_INLINE;
			d->pp = pp;
			d->body = fb;
			GROW(se, prog->probes, prog->nprobes,
			     prog->probes_cap);
			prog->probes[prog->nprobes++] = d;
			derived++;
		}
	}
	kf_points_free(pts, n);
	if (!derived) {
		if (q.kind == KF_INLINE)
			snprintf(msg, sizeof(msg), "no match for probe point "
				 "'%s': no inlined copies",
				 point_string(se, point));
		else
			snprintf(msg, sizeof(msg), "no match for probe point "
				 "'%s': no kernel function matches%s",
				 point_string(se, point),
				 strpbrk(pattern, "*?[") || q.kind == KF_ANY ?
				 "" : " (or it is only inlined, or on the "
				 "blocklist)");
		point_error(se, point, fn, msg);
	}
	return derived;
}

/* The target kernel's tracepoint catalog, loaded once per run; or NULL. */
static const struct tp_catalog *tp_catalog(struct sema *se)
{
	if (se->tp_state == 0) {
		se->tp_state = -1;
		if (!se->s->release)
			se->tp_err = xstrdup("no target kernel release");
		else if (!tp_catalog_load(se->s->release, se->s->build_dir,
					  cache_dir(&se->s->arena),
					  &se->tpcat, &se->tp_err))
			se->tp_state = 1;
	}
	return se->tp_state > 0 ? &se->tpcat : NULL;
}

/* A catalog entry copied into the session arena (the catalog is freed). */
static const struct tracepoint_info *copy_tp(struct sema *se,
					     const struct tracepoint_info *t)
{
	struct arena *a = &se->s->arena;
	struct tracepoint_info *c = arena_alloc(a, sizeof(*c));

	*c = *t;
	c->system = arena_strdup(a, t->system);
	c->name = arena_strdup(a, t->name);
	c->proto = t->proto ? arena_strdup(a, t->proto) : NULL;
	c->header = t->header ? arena_strdup(a, t->header) : NULL;
	c->args = arena_alloc(a, (size_t)(t->nargs + 1) * sizeof(*c->args));
	for (int i = 0; i < t->nargs; i++) {
		c->args[i].name = arena_strdup(a, t->args[i].name);
		c->args[i].c_type = arena_strdup(a, t->args[i].c_type);
	}
	return c;
}

/* Forward declarations of the structs the protos of header name. */
static const char *tp_header_decls(struct sema *se,
				   const struct tp_catalog *cat,
				   const char *header)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < cat->n; i++) {
		const char *p = cat->tps[i].proto;
		if (!p || !cat->tps[i].header || strcmp(cat->tps[i].header, header))
			continue;
		while ((p = strstr(p, "struct "))) {
			p += 7;
			size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			char *decl = arena_printf(&se->s->arena, "struct %.*s;\n",
						  (int)len, p);
			if (len && !strstr(sb_str(&sb), decl))
				sb_puts(&sb, decl);
		}
	}
	const char *r = arena_strdup(&se->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* The closest "system:name" to a misspelt tracepoint, or NULL. */
static const char *tp_suggest(struct sema *se, const struct tp_catalog *cat,
			      const char *sys, const char *name)
{
	const struct tracepoint_info *best = NULL;
	int best_d = (int)strlen(name) / 4 > 2 ? (int)strlen(name) / 4 : 2;

	for (int i = 0; i < cat->n; i++) {
		const struct tracepoint_info *t = &cat->tps[i];
		int d = edit_distance(name, t->name);
		if (sys)
			d += edit_distance(sys, t->system);
		if (d <= best_d && (!best || d < best_d)) {
			best = t;
			best_d = d;
		}
	}
	return best ? arena_printf(&se->s->arena, "%s:%s", best->system,
				   best->name) : NULL;
}

/*
 * Resolve a kernel.trace point through the catalog: one derived probe per
 * matching tracepoint, sorted by system:name, each with the canonical pp
 * kernel.trace("SYSTEM:NAME"). dp (filled by derive_point) is the first.
 * Returns how many were appended to the program.
 */
static int expand_tracepoint(struct sema *se, struct node *point,
			     struct derived_probe *dp, struct probe_body *b)
{
	struct program *prog = se->prog;
	struct node *tr = point->point.comps->next;
	const char *pattern = tr->comp.arg->str.value;
	const struct tp_catalog *cat = tp_catalog(se);
	const struct tracepoint_info **m = NULL;
	char msg[512];

	if (!cat) {
		snprintf(msg, sizeof(msg), "cannot resolve tracepoints: %s",
			 se->tp_err);
		point_error(se, point, tr, msg);
		return 0;
	}
	int n = tp_catalog_match(cat, pattern, &m);
	if (n == 0) {
		const char *hint = NULL;
		if (!strpbrk(pattern, "*?["))
			hint = tp_suggest(se, cat, dp->tp_system, dp->tp_name);
		if (strpbrk(pattern, "*?["))
			snprintf(msg, sizeof(msg), "no tracepoint matches '%s'",
				 pattern);
		else if (hint)
			snprintf(msg, sizeof(msg), "unknown tracepoint '%s' "
				 "(did you mean '%s'?)", pattern, hint);
		else
			snprintf(msg, sizeof(msg), "unknown tracepoint '%s'",
				 pattern);
		point_error(se, point, tr, msg);
		free(m);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct derived_probe *d = dp;
		if (i) {
			d = arena_alloc(&se->s->arena, sizeof(*d));
			*d = *dp;
		}
		d->tp = copy_tp(se, m[i]);
		if (i && m[i]->header && m[i - 1]->header &&
		    !strcmp(m[i]->header, m[i - 1]->header))
			d->tp_decls = prog->probes[prog->nprobes - 1]->tp_decls;
		else if (m[i]->header)
			d->tp_decls = tp_header_decls(se, cat, m[i]->header);
		d->tp_system = d->tp->system;
		d->tp_name = d->tp->name;
		d->pp = arena_printf(&se->s->arena, "kernel.trace(\"%s:%s\")",
				     d->tp_system, d->tp_name);
		d->body = b;
		GROW(se, prog->probes, prog->nprobes, prog->probes_cap);
		prog->probes[prog->nprobes++] = d;
	}
	free(m);
	return n;
}

/* ---- probe aliases --------------------------------------------------- */

bool sema_is_family(const char *name)
{
	for (size_t i = 0; i < sizeof(family_names) / sizeof(family_names[0]); i++)
		if (!strcmp(name, family_names[i]))
			return true;
	return false;
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

static bool point_has_wildcard(const struct node *point)
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
			const char *outer = se->list_name;
			if (!se->nexpanding) {
				struct node named = *a->name;
				named.point.comps = ast_append(
					ast_clone(se->s, a->name->point.comps),
					ast_clone(se->s, suffix));
				se->list_name = point_string(se, &named);
			}
			/* a wildcard's suffix form that resolves to nothing
			 * is no match (tcp.*.*.return on tcp.sendmsg) */
			bool quiet = point->point.optional ||
				     (!whole && point_has_wildcard(point));
			se->expanding[se->nexpanding++] = a->decl;
			se->optional += quiet;
			derived += add_probe(se, np, user, chain);
			se->optional -= quiet;
			se->nexpanding--;
			se->list_name = outer;
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
 * starts with 'if (!(cond)) next'.
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
	return add_probe(se, np, user, via);
}

/* Derive every probe of one probe declaration; returns how many. */
static int add_probe(struct sema *se, struct node *probe, struct node *user,
		     const char *via)
{
	struct program *prog = se->prog;
	struct probe_body *b = arena_alloc(&se->s->arena, sizeof(*b));
	int derived = 0, mine = 0;

	b->probe = probe;
	b->user_probe = user;
	b->via = via;
	b->list_name = se->list_name;
	ast_foreach(point, probe->probe.points) {
		int n = -1;
		if (point->point.cond) {
			n = add_guarded(se, probe, point, user, via);
		} else if (!sema_is_family(point->point.comps->comp.name)) {
			int errors = se->s->nerrors;
			n = expand_aliases(se, probe, point, user, via);
			if (n == 0 && !point->point.optional && !se->optional &&
			    se->s->nerrors == errors)
				diag_error(se->s, point->loc, "no match for probe "
					   "point '%s': its aliases resolve to "
					   "nothing", point_string(se, point));
		}
		if (n < 0) {
			struct derived_probe *dp = arena_alloc(&se->s->arena,
							       sizeof(*dp));
			n = 0;
			if (derive_point(se, point, dp)) {
				if (dp->family == PF_TRACEPOINT) {
					n = expand_tracepoint(se, point, dp, b);
				} else if (dp->family == PF_KFUNC ||
					   dp->family == PF_KRETFUNC) {
					n = expand_kfunc(se, point, dp, b);
				} else {
					dp->body = b;
					GROW(se, prog->probes, prog->nprobes,
					     prog->probes_cap);
					prog->probes[prog->nprobes++] = dp;
					n = 1;
				}
				mine += n;
			}
		}
		derived += n;
		if (n && point->point.sufficient)
			break;
	}
	if (mine) {
		b->index = prog->nbodies;
		GROW(se, prog->bodies, prog->nbodies, prog->bodies_cap);
		prog->bodies[prog->nbodies++] = b;
	}
	return derived;
}

static void add_probe_body(struct sema *se, struct node *probe)
{
	add_probe(se, probe, probe, "");
}

static int alias_cmp(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->order - y->order;
}

static void collect_aliases(struct sema *se)
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

/* ---- driver ----------------------------------------------------------- */

static void collect_globals(struct sema *se)
{
	struct program *prog = se->prog;

	for (int f = 0; f < prog->nfiles; f++) {
		ast_foreach(d, prog->files[f]->decls) {
			if (d->kind != N_GLOBAL)
				continue;
			struct symbol *old = find_global(prog, d->global.name,
							 d->loc.file);
			/* a private name may shadow another file's */
			if (old && (!d->global.is_private ||
				    old->decl->loc.file == d->loc.file)) {
				char where[256];
				format_loc(se->s, old->loc, where, sizeof(where));
				diag_error(se->s, d->loc, "global '%s' is already "
					   "declared at %s", d->global.name, where);
				continue;
			}
			struct symbol *sym = new_symbol(se, d->global.name,
							SYM_GLOBAL, d->loc);
			sym->decl = d;
			sym->index = prog->nglobals;
			/* private globals of one name in two files: the later
			 * one's C name starts with its index (no script name
			 * starts with a digit) */
			sym->cname = d->global.name;
			for (int i = 0; i < prog->nglobals; i++)
				if (!strcmp(prog->globals[i]->name, d->global.name))
					sym->cname = arena_printf(&se->s->arena, "%d_%s",
								  sym->index,
								  d->global.name);
			d->sym = sym;
			if (d->global.init) {
				sym->type = d->global.init->kind == N_STRING ?
					    TY_STRING : TY_LONG;
				sym->type_loc = d->global.init->loc;
			}
			GROW(se, prog->globals, prog->nglobals, prog->globals_cap);
			prog->globals[prog->nglobals++] = sym;
		}
	}
}

static void walk_all(struct sema *se)
{
	struct program *prog = se->prog;

	for (int i = 0; i < prog->nbodies; i++) {
		se->body = prog->bodies[i];
		se->loop_depth = 0;
		walk_stmt(se, se->body->probe->probe.body);
	}
	/* functions become used while walking: the array may grow in use */
	for (int i = 0; i < prog->nfuncs; i++) {
		struct script_func *f = prog->funcs[i];
		if (!f->used)
			continue;
		se->body = f->scope;
		se->loop_depth = 0;
		if (!f->embedded)
			walk_stmt(se, f->decl->func.body);
		else
			note_pragmas(se, f->decl->func.body->embedded.code,
				     f->decl->func.body);
	}
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
	if (scope->nlocals != nparams)
		return;
	GROW(se, prog->funcs, prog->nfuncs, prog->funcs_cap);
	prog->funcs[prog->nfuncs++] = f;
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
}

/* A name in scope close to an unassigned local: probably a typo. */
static const char *suggest_variable(struct sema *se, struct probe_body *b,
				    struct symbol *l)
{
	int n = 0;
	const char **names = xmalloc((size_t)(b->nlocals + se->prog->nglobals + 1) *
				     sizeof(*names));

	for (int i = 0; i < b->nlocals; i++)
		if (b->locals[i] != l && b->locals[i]->type != TY_UNKNOWN)
			names[n++] = b->locals[i]->name;
	for (int i = 0; i < se->prog->nglobals; i++)
		names[n++] = se->prog->globals[i]->name;
	const char *hint = suggest(l->name, names, n);
	free(names);
	return hint;
}

static void check_unresolved(struct sema *se)
{
	struct program *prog = se->prog;

	for (int i = 0; i < prog->nglobals; i++) {
		struct symbol *g = prog->globals[i];
		const struct srcfile *gf = session_file(se->s, g->loc.file);
		if (!g->read && !g->written && !g->used_as_scalar &&
		    !(gf && gf->privileged))
			diag_warning(se->s, g->loc, "global '%s' is never used",
				     g->name);
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
		}
	}
}

/*
 * Inlined copies left out for a context variable they lack (infer_kfvar).
 * The user hears of it when the variable is the script's own: a tapset
 * alias reading one (socket.close's $sock) is no business of theirs.
 */
static void drop_kf_copies(struct sema *se)
{
	struct program *prog = se->prog;
	int kept = 0;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		if (!dp->kf_dropped)
			prog->probes[kept++] = prog->probes[i];
		else if (dp->body->user_probe && !session_file(se->s,
			 dp->body->user_probe->loc.file)->privileged &&
			 !session_file(se->s,
			 dp->kf_dropped_at->loc.file)->privileged)
			diag_warning(se->s, dp->kf_dropped_at->loc,
				     "skipping %s", dp->kf_dropped);
	}
	prog->nprobes = kept;
}

/* After the body checks: the points no pass 3 translation exists for. */
static void report_unsupported(struct sema *se)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->family == PF_UNSUPPORTED)
			diag_error(se->s, dp->point->loc, "%s",
				   dp->unsupported);
	}
}

/*
 * @perf("NAME"): the value of a perf counter a perf...counter("NAME")
 * point declares for the process the probe runs in.
 */
static enum type infer_perf(struct sema *se, struct node *n)
{
	const struct node *arg = n->call.args;
	const char *name = arg && arg->kind == N_STRING ? arg->str.value : "";
	bool declared = false, here = false;

	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *c = se->prog->probes[i];
		if (!c->perf_counter || strcmp(c->perf_counter, name))
			continue;
		declared = true;
		for (int j = 0; j < se->prog->nprobes; j++) {
			const struct derived_probe *dp = se->prog->probes[j];
			if (dp->body == se->body && dp->process && c->process &&
			    !strcmp(dp->process, c->process))
				here = true;
		}
	}
	if (se->report && !declared)
		diag_error(se->s, n->loc, "perf counter '%s' not defined (no "
			   "perf....counter(\"%s\") point declares it)", name,
			   name);
	else if (se->report && !here)
		diag_error(se->s, n->loc, "perf counter '%s' not defined for "
			   "the process this probe runs in", name);
	return n->type = TY_LONG;
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

int sema_run(struct session *s, struct ast_file **files, int nfiles,
	     struct program *prog)
{
	struct sema se = { .s = s, .prog = prog };
	int errors_before = s->nerrors;

	memset(prog, 0, sizeof(*prog));
	prog->s = s;
	prog->files = files;
	prog->nfiles = nfiles;
	collect_globals(&se);
	collect_aliases(&se);
	for (int f = 0; f < nfiles; f++) {
		ast_foreach(d, files[f]->decls) {
			if (d->kind == N_PROBE && d->probe.alias)
				continue;	/* used through collect_aliases */
			else if (d->kind == N_PROBE)
				add_probe_body(&se, d);
			else if (d->kind == N_FUNCTION)
				collect_function(&se, d);
			else if (d->kind == N_EMBEDDED) {
				GROW(&se, prog->embeds, prog->nembeds,
				     prog->embeds_cap);
				prog->embeds[prog->nembeds++] = d;
			}
		}
	}
	if (se.tp_state > 0)
		tp_catalog_free(&se.tpcat);
	free(se.tp_err);
	if (se.kf_state > 0) {
		se.kf_vmlinux = arena_strdup(&s->arena, se.kfcat.vmlinux);
		kf_catalog_free(&se.kfcat);
	}
	free(se.kf_err);
	if (s->nerrors > errors_before && !s->all_functions)
		goto out;	/* the expansion may have loaded BTF ($return) */
	for (int i = 0; s->all_functions && i < prog->nfuncs; i++)
		prog->funcs[i]->used = true;

	/* Infer until nothing changes, then report on a last walk. */
	for (int round = 0; round < 20; round++) {
		se.changed = false;
		walk_all(&se);
		if (!se.changed)
			break;
	}
	se.report = true;
	walk_all(&se);
	report_unsupported(&se);
	drop_kf_copies(&se);
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
out:
	if (se.btf)
		btf_free(se.btf);
	free(se.btf_err);
	dwloc_close(se.dw);
	free(se.dw_err);
	return s->nerrors - errors_before;
}
