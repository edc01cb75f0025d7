/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2's own state and services, shared by the files of semantic/ and
 * by the probe families (probes/, through struct probe_family's hooks).
 * Nothing outside pass 2 and the families includes this header.
 */
#ifndef SEMANTIC_ELABORATE_H
#define SEMANTIC_ELABORATE_H

#include <string.h>

#include "semantic/semantic.h"
#include "semantic/family.h"
#include "target/btf.h"
#include "target/target.h"

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

/* A probe alias: one entry per alias name, in declaration order. */
struct alias {
	struct node *name;	/* N_PROBE_POINT */
	struct node *decl;	/* N_PROBE with probe.alias set */
	const char *key;	/* the name as text: sort order */
	int order;		/* declaration order among equal keys */
};

struct sema {
	struct session *s;
	struct program *prog;
	struct probe_body *body;	/* the probe being walked */
	int loop_depth;
	bool report;			/* last round: report type errors */
	bool changed;			/* a type was learned this round */
	struct alias *aliases;
	int naliases, aliases_cap;
	struct node *expanding[32];	/* alias decls being expanded */
	int nexpanding;
	int optional;			/* > 0: inside an optional point */
	const char *list_name;		/* the outermost alias being expanded */
	const char *pn;			/* the outermost alias being expanded
					 * whose name (and suffix) has no
					 * wildcard, or NULL */
	struct node *user_point;	/* the script's point being expanded */
	const char *cond;		/* the condition of the points being
					 * expanded, as -p2 names it, or NULL */
	struct symbol *iterating[16];	/* arrays of the enclosing foreach'es */
	int niterating;
	bool aggregating;		/* @op(s): a lock write, not a change */
	int in_entry;			/* inside @entry(...) */
	int entry_slots;		/* @entry(...)s kept per thread by
					 * points.c (__entry_N globals) */
	int json_functions;		/* @json_print's functions so far */
	/* the copies of functions (copies.c), open addressing on (the
	 * function, its probe body): a lookup per call stays O(1) */
	struct script_func **copy_set;
	int copy_set_size, ncopy_set;	/* a power of two, or 0 */
	const char *btf_err;		/* why sema_btf() has no BTF (the
					 * target's string) */
};

/* ---- names (names.c) ------------------------------------------------ */

int edit_distance(const char *a, const char *b);
/* the candidate closest to name, if close enough; or NULL */
const char *suggest(const char *name, const char *const *cands, int n);
/*
 * The closest five names to a typo (vfs_raed) by edit distance, as
 * SystemTap lists them in " (similar functions: a, b, c)": similar_init,
 * similar_add for each candidate (in order: ties keep the first), then
 * similar_text ("" for a pattern or when nothing is close).
 */
enum { SIMILAR_MAX = 5 };
struct similar {
	const char *name;
	int limit, n;
	const char *best[SIMILAR_MAX];
	int dist[SIMILAR_MAX];
};
void similar_init(struct similar *sm, const char *name);
void similar_add(struct similar *sm, const char *cand);
const char *similar_text(struct sema *se, const struct similar *sm);
struct symbol *find_global(const struct program *prog, const char *name,
			   int file);
struct symbol *find_local(struct probe_body *b, const char *name);
struct symbol *find_param(struct probe_body *b, const char *name);
/* adds the global just appended to prog->globals to the name index */
void index_global(struct sema *se, struct program *prog);
/* whether a global declared before g has its name */
bool global_name_taken(const struct program *prog, const struct symbol *g);
/* adds the function just appended to prog->funcs to the name index */
void index_func(struct sema *se, struct program *prog);
/* the overload of name with nargs parameters visible from file */
struct script_func *find_func(struct program *prog, const char *name,
			      int nargs, int file);
bool func_name_exists(struct program *prog, const char *name, int file);
struct symbol *new_symbol(struct sema *se, const char *name,
			  enum sym_kind kind, struct srcloc loc);
/* a local of the body being walked (or of b) */
struct symbol *add_local(struct sema *se, const char *name,
			 struct srcloc loc);
struct symbol *add_local_to(struct sema *se, struct probe_body *b,
			    const char *name, struct srcloc loc);
/* the builtin name with nargs arguments, or NULL */
struct symbol *builtin_symbol(struct sema *se, const char *name, int nargs);
const char *suggest_function(struct sema *se, const char *name);
/* a name in scope close to the unassigned local l, or NULL */
const char *suggest_variable(struct sema *se, struct probe_body *b,
			     struct symbol *l);

/* A script function for declaration d (sema.c), numbered as the next of
 * prog->funcs; NULL after a repeated parameter (reported). */
struct script_func *sema_new_function(struct sema *se, struct node *d);

/* ---- functions reading a probe's context (copies.c) ------------------ */

/* Sets reads_context on the declared functions (before the probes). */
void sema_mark_context_functions(struct sema *se);
/* What a call of f (found by name) in the scope being walked runs: f, or
 * its copy for the scope's probe body. */
struct script_func *sema_bind_call(struct sema *se, struct script_func *f,
				   struct node *call);
/* fn on each node of body and of the context-reading functions it
 * calls, at any depth, each once. */
void sema_visit_reached(struct sema *se, struct node *body,
			void (*fn)(struct node *n, void *arg), void *arg);
/* The probe body whose context the scope being walked reads (its own,
 * or the one a function's copy was made for), or NULL. */
static inline struct probe_body *sema_ctx(const struct sema *se)
{
	return context_body(se->body);
}

/* ---- types (types.c) ------------------------------------------------ */

/* The type of expression n (want: the type the context expects), with
 * its names bound; reports errors on the last round (se->report). */
enum type infer(struct sema *se, struct node *n, enum type want);
/* n was inferred as got where want was needed: report a mismatch */
void expect(struct sema *se, struct node *n, enum type got, enum type want);
void walk_stmt(struct sema *se, struct node *n);
/* the body being walked reads (or writes) global sym */
void use_global(struct sema *se, struct symbol *sym, bool write);
/* "FILE:LINE:COL" of loc, for messages that point elsewhere */
void format_loc(struct session *s, struct srcloc loc, char *buf, size_t size);

/* ---- @json_print (json.c) ------------------------------------------- */

/* @json_print(G): binds G (or the statistic of @hist_*(G)); no value */
enum type infer_json_print(struct sema *se, struct node *n);
/* the source of `function FNAME() { ... }` that prints what n names, or
 * NULL after an error (malloc'd) */
char *json_print_function(struct sema *se, const struct node *n,
			  const char *fname);

/* ---- context values (context.c) ------------------------------------- */

/* $x, $x->f, $x[i], $x$: the type of context value n */
enum type infer_target(struct sema *se, struct node *n);
/* @defined(...): folded to 0 or 1 (n->sym->index) */
enum type infer_defined(struct sema *se, struct node *n);
/* @cast(p, "T")->f... and autocast chains; flags as for type_path,
 * depth > 0: pretty printing */
enum type infer_cast_chain(struct sema *se, struct node *n,
			   struct node *chain, int flags, int depth);
/* x = rhs: x keeps rhs's BTF type while every assignment agrees */
void note_btf_type(struct sema *se, struct symbol *sym, struct node *rhs);
/* the globals embedded C names in "pragma:read:NAME" comments */
void note_pragmas(struct sema *se, const char *code, struct node *at);

/* The family whose context values body b has (family.h), or NULL. */
const struct probe_family *body_family(struct sema *se,
				       const struct probe_body *b);
/* Are all probes of body b of family f (and there is one)? */
bool body_all_of(struct sema *se, const struct probe_body *b,
		 const struct probe_family *f);
/* A new context value of body b: the next slot of b->ctxvars. */
struct symbol *add_context_slot(struct sema *se, struct probe_body *b,
				struct node *n, const char *name);
/* One context value's member path over the probes sharing a body
 * (whose C is one for all): the first probe's path, which every other
 * probe's must equal. */
struct path_merge {
	struct member_path *path;
	const struct derived_probe *first;
};
/* Probe dp's path p of the value key (n), or msg, its error (at, else
 * n, its place) into m: false after reporting a problem. */
bool path_merge_add(struct sema *se, struct path_merge *m,
		    const struct derived_probe *dp, const struct member_path *p,
		    const char *msg, const struct node *at,
		    const struct node *n, const char *key);
/* The context slot of b named key, or NULL. */
struct symbol *find_context_slot(const struct probe_body *b, const char *key);
/* $x$ / $x->f$$: base's pretty printing (base already inferred by its
 * family), the same in every probe of the body. */
enum type infer_context_pretty(struct sema *se, struct node *n,
			       struct node *base, int depth);
/* The user program whose values the body's probes read, or NULL. */
const char *body_user_program(struct sema *se);
/* Is root, of chain n, a value autocast types (a local, a call, a ?:,
 * (&chain), (x = value))? */
bool autocast_root(const struct node *root, const struct node *n);
/* atvar.c: @cast or @var, the root of a typed chain? */
bool is_typed_root(const struct node *n);
/* @var("name") in a probe of the kernel's DWARF: n becomes $name (true) */
bool atvar_is_context(struct sema *se, struct node *n);
/* @var(...): its typed symbol (base: the variable's address; btf_type:
 * its type), resolved once; NULL when it cannot be (reported if asked) */
struct symbol *atvar_resolve(struct sema *se, struct node *n, bool report);
/* A SYM_TYPED symbol: a value computed from base. */
struct symbol *typed_symbol(struct sema *se, struct node *n,
			    struct node *base, enum type type);
/* "$prev$$" -> base "$prev", 2; depth 0 when name has no pretty suffix. */
int pretty_suffix(struct arena *a, const char *name, const char **base);
/* The pretty-printing depth of context value n ($x$: 1, $x$$: 2, the same
 * after a member chain), with n->target.base set to the value printed; 0
 * for none ($$parms$ and the like are the families' $$ expansions). */
int context_pretty_depth(struct sema *se, struct node *n);
/* The BTF type of context value n ($x or a chain on it) at dp, 0 when
 * it has none; flags as for type_path. */
int context_value_type(struct sema *se, const struct derived_probe *dp,
		       const struct node *n, int flags);
/* The target kernel's BTF, or NULL (se->btf_err says why). */
struct btf *sema_btf(struct sema *se);
/*
 * The BTF type of C type c_type in dp's context: vmlinux's, else (vmlinux
 * has no such type, or only declares the struct it points to) that of
 * the module whose types dp's family names (var_module), whose BTF is
 * added then. 0 when neither has it; *why, when not NULL, is then
 * "the kernel's BTF has no type 'T'" or says why the module's is not
 * there either (arena).
 */
int sema_ctype_btf(struct sema *se, const struct derived_probe *dp,
		   const char *c_type, const char **why);
/*
 * @entry(expr) in a .return probe whose context variables are all read
 * at the entry: an expression of them, constants and operators means the
 * same at the return; NULL, or the first node that is something else (a
 * function call, a variable: it would have to run at the entry).
 */
const struct node *entry_not_constant(const struct node *n);

/* ---- probe points (points.c) ---------------------------------------- */

/* The i-th component of a point, or NULL; is c named name? */
struct node *comp_at(struct node *comps, int i);
bool comp_is(const struct node *c, const char *name);
bool is_str_arg(const struct node *c);
bool is_num_arg(const struct node *c);
/* Has a component of point a '*' in its name (syscall.*, kernel.*)? */
bool point_has_wildcard(const struct node *point);
/* Report msg at `at` (or point) unless the point is optional: false. */
bool point_error(struct sema *se, struct node *point, struct node *at,
		 const char *msg);
/* The point as text (without '?', '!' and its condition). */
char *point_string(struct sema *se, struct node *point);
/* Declare global d (an N_GLOBAL) of the program. */
void declare_global(struct sema *se, struct node *d);
/* Elaborate one probe declaration (its points, its body). */
void add_probe_body(struct sema *se, struct node *probe);
/* Gather the alias declarations of every file, sorted. */
void collect_aliases(struct sema *se);
/* A copy of dp and its family's data (family.h point_size). */
struct derived_probe *sema_clone_derived(struct sema *se,
					 const struct derived_probe *dp);
/* Add derived probe dp of body b to the program. */
void sema_add_derived(struct sema *se, struct derived_probe *dp,
		      struct probe_body *b);
/* A copy of body b for another point of its probe, added to the
 * program's bodies: SystemTap elaborates each derived probe apart, so
 * what a body decides by its point (@defined, each function's $$vars)
 * needs a body per point. */
struct probe_body *sema_own_body(struct sema *se, struct probe_body *b);
/* Does body (or a context-reading function it calls) ask @defined? */
bool sema_asks_defined(struct sema *se, struct node *body);

#endif /* SEMANTIC_ELABORATE_H */
