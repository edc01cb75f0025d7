// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2: names. The functions the compiler provides (builtins[]), the
 * lookup of globals, locals, parameters and script functions (by name and
 * arity, with private names visible in their own file), and the
 * did-you-mean suggestions for names that resolve to nothing.
 */
#include "semantic/elaborate.h"
#include "semantic/format.h"
#include "semantic/regex.h"
#include "lib/hash.h"
#include "lib/strbuf.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Functions the compiler provides itself: the string tapset and the
 * context accessors pass 3 computes inline (the rest of SystemTap's
 * library is tapsets/, see library.c). A script function of the same
 * name hides one.
 */
static const struct builtin {
	const char *name;
	enum type ret;
	int nargs;
	enum type args[3];
	const char *c_expr;
	enum builtin_kind kind;
	const char *argn[3];	/* SystemTap's parameter names, for
				 * --dump-functions */
} builtins[] = {
	/* the string tapset, implemented in runtime/tapset.c */
	{ "strlen", TY_LONG, 1, { TY_STRING }, "stp_f_strlen", BI_LONG,
	  { "s" } },
	{ "substr", TY_STRING, 3, { TY_STRING, TY_LONG, TY_LONG },
	  "stp_f_substr", BI_STRING, { "str", "start", "length" } },
	{ "stringat", TY_LONG, 2, { TY_STRING, TY_LONG }, "stp_f_stringat",
	  BI_LONG, { "str", "pos" } },
	{ "isinstr", TY_LONG, 2, { TY_STRING, TY_STRING }, "stp_f_isinstr",
	  BI_LONG, { "s1", "s2" } },
	{ "strpos", TY_LONG, 2, { TY_STRING, TY_STRING }, "stp_f_strpos",
	  BI_LONG, { "s1", "s2" } },
	{ "str_replace", TY_STRING, 3, { TY_STRING, TY_STRING, TY_STRING },
	  "stp_f_str_replace", BI_STRING,
	  { "prnt_str", "srch_str", "rplc_str" } },
	{ "string_quoted", TY_STRING, 1, { TY_STRING }, "stp_f_string_quoted",
	  BI_STRING, { "str" } },
	{ "text_str", TY_STRING, 1, { TY_STRING }, "stp_f_text_str",
	  BI_STRING, { "input" } },
	{ "text_strn", TY_STRING, 3, { TY_STRING, TY_LONG, TY_LONG },
	  "stp_f_text_strn", BI_STRING, { "input", "len", "quoted" } },
	{ "strtol", TY_LONG, 2, { TY_STRING, TY_LONG }, "stp_f_strtol",
	  BI_LONG, { "str", "base" } },
	{ "tokenize", TY_STRING, 2, { TY_STRING, TY_STRING }, "stp_f_tokenize",
	  BI_CTX_STRING, { "input", "delim" } },
	{ "print_char", TY_UNKNOWN, 1, { TY_LONG }, "stp_print_char",
	  BI_CTX_VOID, { "ch" } },
	/* conversions: a fault-safe read of a kernel string */
	{ "kernel_string", TY_STRING, 1, { TY_LONG }, "stp_f_kernel_string",
	  BI_CTX_STRING, { "addr" } },
	/* kernel_string(addr, err_msg): err_msg instead of a fault */
	{ "kernel_string", TY_STRING, 2, { TY_LONG, TY_STRING },
	  "stp_f_kernel_string_or", BI_CTX_STRING, { "addr", "err_msg" } },
	{ "exit", TY_UNKNOWN, 0, { 0 }, "stp_request_exit(c)", BI_SPECIAL,
	  { 0 } },
	{ "execname", TY_STRING, 0, { 0 }, "stp_execname", BI_SPECIAL,
	  { 0 } },
	/* the derived probe point: kernel.trace("sched:sched_switch") */
	{ "pp", TY_STRING, 0, { 0 }, "c->probe->pp", BI_SPECIAL,
	  { 0 } },
	/* the probe point as the script named it, aliases and wildcards
	 * expanded: syscall.read (SystemTap's pn.stp) */
	{ "pn", TY_STRING, 0, { 0 }, "c->probe->pn", BI_SPECIAL,
	  { 0 } },
	{ "pid", TY_LONG, 0, { 0 }, "stp_pid()", BI_SPECIAL,
	  { 0 } },
	{ "tid", TY_LONG, 0, { 0 }, "stp_tid()", BI_SPECIAL,
	  { 0 } },
	{ "cpu", TY_LONG, 0, { 0 }, "stp_cpu()", BI_SPECIAL,
	  { 0 } },
	{ "target", TY_LONG, 0, { 0 }, "stp_target()", BI_SPECIAL,
	  { 0 } },
	{ "error", TY_UNKNOWN, 1, { TY_STRING }, "stp_error", BI_SPECIAL,
	  { "msg" } },
	/* the regex tapset: the last =~ match of this context */
	{ "matched", TY_STRING, 1, { TY_LONG }, "stp_re_matched", BI_SPECIAL,
	  { "n" } },
	{ "matched_str", TY_STRING, 0, { 0 }, "stp_re_matched", BI_SPECIAL,
	  { 0 } },
	{ "ngroups", TY_LONG, 0, { 0 }, "stp_re_ngroups", BI_SPECIAL,
	  { 0 } },
};


/* ---- names ---------------------------------------------------------- */

int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows: two back for a swap of neighbours (optimal string
	 * alignment), so "raed" is one edit from "read", as a typist sees it */
	int *rows = xmalloc(3 * (lb + 1) * sizeof(int));
	int *prev2 = rows, *prev = rows + lb + 1, *row = prev + lb + 1;

	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int *t = prev2;
		prev2 = prev;
		prev = row;
		row = t;
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int best = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			row[j] = best;
		}
	}
	int d = row[lb];
	free(rows);
	return d;
}

/* The closest candidate within a small distance, or NULL. */
const char *suggest(const char *name, const char *const *cands, int n)
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

static size_t name_bucket(const char *name, int size)
{
	return fnv1a(FNV_OFFSET, name, strlen(name)) & (size_t)(size - 1);
}

/* The first of the globals named name (the others follow through
 * hash_next; any name may follow), or NULL. */
static struct symbol *global_chain(const struct program *prog,
				   const char *name)
{
	if (!prog->global_hash_size)
		return NULL;
	return prog->global_hash[name_bucket(name, prog->global_hash_size)];
}

/*
 * Index prog->globals[prog->nglobals - 1], just added: as index_func does
 * for functions, chained into its bucket, the buckets doubled when there
 * are as many globals as buckets.
 */
void index_global(struct sema *se, struct program *prog)
{
	struct symbol *g = prog->globals[prog->nglobals - 1];

	if (prog->nglobals > prog->global_hash_size) {
		int size = prog->global_hash_size ?
			   2 * prog->global_hash_size : 256;

		prog->global_hash = arena_alloc(&se->s->arena, (size_t)size *
						sizeof(*prog->global_hash));
		prog->global_hash_size = size;
		for (int i = 0; i < prog->nglobals - 1; i++) {
			struct symbol *o = prog->globals[i];
			size_t b = name_bucket(o->name, size);

			o->hash_next = prog->global_hash[b];
			prog->global_hash[b] = o;
		}
	}
	size_t b = name_bucket(g->name, prog->global_hash_size);

	g->hash_next = prog->global_hash[b];
	prog->global_hash[b] = g;
}

/* Whether name names another global declared before g (a private one of
 * another file). */
bool global_name_taken(const struct program *prog, const struct symbol *g)
{
	for (struct symbol *o = global_chain(prog, g->name); o;
	     o = o->hash_next)
		if (o != g && o->index < g->index && !strcmp(o->name, g->name))
			return true;
	return false;
}

/* The global name seen from file: its own private one first, else the
 * public one declared first. Those the optimiser dropped are gone. */
struct symbol *find_global(const struct program *prog, const char *name,
				  int file)
{
	struct symbol *public = NULL;

	for (struct symbol *g = global_chain(prog, name); g; g = g->hash_next) {
		if (strcmp(g->name, name) || g->index >= prog->nglobals ||
		    prog->globals[g->index] != g)
			continue;
		if (g->decl->global.is_private && g->decl->loc.file == file)
			return g;
		if (!g->decl->global.is_private &&
		    (!public || g->index < public->index))
			public = g;
	}
	return public;
}

struct symbol *find_local(struct probe_body *b, const char *name)
{
	for (int i = 0; i < b->nlocals; i++)
		if (strcmp(b->locals[i]->name, name) == 0)
			return b->locals[i];
	return NULL;
}

struct symbol *find_param(struct probe_body *b, const char *name)
{
	if (!b->func)
		return NULL;
	for (int i = 0; i < b->func->nparams; i++)
		if (strcmp(b->locals[i]->name, name) == 0)
			return b->locals[i];
	return NULL;
}

static size_t func_bucket(const struct program *prog, const char *name)
{
	return name_bucket(name, prog->func_hash_size);
}

/*
 * Index prog->funcs[prog->nfuncs - 1], just added: chained into its
 * bucket; the buckets double (in the arena) when there are as many
 * functions as buckets, so chains stay short.
 */
void index_func(struct sema *se, struct program *prog)
{
	struct script_func *f = prog->funcs[prog->nfuncs - 1];

	if (prog->nfuncs > prog->func_hash_size) {
		int size = prog->func_hash_size ? 2 * prog->func_hash_size : 256;

		prog->func_hash = arena_alloc(&se->s->arena, (size_t)size *
					      sizeof(*prog->func_hash));
		prog->func_hash_size = size;
		for (int i = 0; i < prog->nfuncs - 1; i++) {
			struct script_func *g = prog->funcs[i];
			size_t b = func_bucket(prog, g->sym->name);

			if (g->copy_of)
				continue;	/* found through their calls */

			g->hash_next = prog->func_hash[b];
			prog->func_hash[b] = g;
		}
	}
	size_t b = func_bucket(prog, f->sym->name);

	f->hash_next = prog->func_hash[b];
	prog->func_hash[b] = f;
}

/* The overload of name taking nargs arguments, or NULL: the private one
 * of file, else the public one declared first. */
struct script_func *find_func(struct program *prog, const char *name,
				     int nargs, int file)
{
	struct script_func *public = NULL;

	if (!prog->func_hash_size)
		return NULL;
	for (struct script_func *f = prog->func_hash[func_bucket(prog, name)];
	     f; f = f->hash_next) {
		if (f->nparams != nargs || strcmp(f->sym->name, name))
			continue;
		if (f->decl->func.is_private && f->decl->loc.file == file)
			return f;
		if (!f->decl->func.is_private &&
		    (!public || f->index < public->index))
			public = f;
	}
	return public;
}

bool func_name_exists(struct program *prog, const char *name, int file)
{
	if (!prog->func_hash_size)
		return false;
	for (struct script_func *f = prog->func_hash[func_bucket(prog, name)];
	     f; f = f->hash_next)
		if (strcmp(f->sym->name, name) == 0 &&
		    visible_from(f->decl, f->decl->func.is_private, file))
			return true;
	return false;
}

struct symbol *new_symbol(struct sema *se, const char *name,
				 enum sym_kind kind, struct srcloc loc)
{
	struct symbol *sym = arena_alloc(&se->s->arena, sizeof(*sym));

	sym->name = name;
	sym->kind = kind;
	sym->loc = loc;
	return sym;
}

struct symbol *add_local_to(struct sema *se, struct probe_body *b,
				   const char *name, struct srcloc loc)
{
	struct symbol *sym = new_symbol(se, name, SYM_LOCAL, loc);

	sym->index = b->nlocals;
	GROW(se, b->locals, b->nlocals, b->locals_cap);
	b->locals[b->nlocals++] = sym;
	return sym;
}

struct symbol *add_local(struct sema *se, const char *name,
				struct srcloc loc)
{
	return add_local_to(se, se->body, name, loc);
}

/*
 * The builtin NAME taking nargs arguments (a builtin may have overloads of
 * other arities, as kernel_string); with none of that arity, the first
 * of the name, for the caller's "takes N arguments" error.
 */
int builtin_count(void)
{
	return (int)(sizeof(builtins) / sizeof(builtins[0]));
}

/* Builtin i as --dump-functions shows a function: NAME:TYPE (A:TYPE, ...) */
const char *builtin_signature(struct session *s, int i)
{
	const struct builtin *b = &builtins[i];
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s:%s (", b->name, type_name(b->ret));
	for (int a = 0; a < b->nargs; a++)
		sb_printf(&sb, "%s%s:%s", a ? ", " : "", b->argn[a],
			  type_name(b->args[a]));
	sb_putc(&sb, ')');
	const char *r = arena_strdup(&s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

struct symbol *builtin_symbol(struct sema *se, const char *name,
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


/* The closest name among builtins, script functions and the library's. */
const char *suggest_function(struct sema *se, const char *name)
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

/* A name in scope close to an unassigned local: probably a typo. */
const char *suggest_variable(struct sema *se, struct probe_body *b,
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

void similar_init(struct similar *sm, const char *name)
{
	sm->name = name;
	sm->n = 0;
	/* a pattern has no typo */
	sm->limit = strpbrk(name, "*?[") || !*name ? -1 :
		    (int)strlen(name) / 3 + 1;
}

void similar_add(struct similar *sm, const char *cand)
{
	if (sm->limit < 0)
		return;
	int d = edit_distance(sm->name, cand);
	if (d > sm->limit ||
	    (sm->n == SIMILAR_MAX && d >= sm->dist[sm->n - 1]))
		return;
	int k = sm->n < SIMILAR_MAX ? sm->n++ : sm->n - 1;
	for (; k > 0 && sm->dist[k - 1] > d; k--) {
		sm->best[k] = sm->best[k - 1];
		sm->dist[k] = sm->dist[k - 1];
	}
	sm->best[k] = cand;
	sm->dist[k] = d;
}

const char *similar_text(struct sema *se, const struct similar *sm)
{
	if (!sm->n)
		return "";
	char *out = arena_printf(&se->s->arena, " (similar functions: %s",
				 sm->best[0]);
	for (int k = 1; k < sm->n; k++)
		out = arena_printf(&se->s->arena, "%s, %s", out, sm->best[k]);
	return arena_printf(&se->s->arena, "%s)", out);
}
