/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2: resolve names, expand aliases, derive probe points, infer types,
 * then optimise. The result is a struct program that pass 3 translates.
 * It annotates nodes (node.type, node.sym); the only nodes it makes are
 * clones for alias expansions and point conditions.
 */
#ifndef SEMANTIC_SEMANTIC_H
#define SEMANTIC_SEMANTIC_H

#include <stdint.h>
#include <stdio.h>

#include "parser/parser.h"
#include "semantic/attach.h"

struct probe_family;

/* How pass 3 calls a built-in function (symbol.c_expr names it). */
enum builtin_kind {
	BI_SPECIAL,		/* pass 3 knows it by name, or c_expr is whole */
	BI_LONG,		/* int64_t FN(args...) */
	BI_STRING,		/* void FN(char *result, args...) */
	BI_CTX_STRING,		/* void FN(struct stp_context *, char *, args...) */
	BI_CTX_VOID,		/* void FN(struct stp_context *, args...) */
};

enum sym_kind {
	SYM_GLOBAL,
	SYM_LOCAL,		/* probe or function local (or parameter) */
	SYM_BUILTIN,		/* a function the compiler provides */
	SYM_FUNCTION,		/* a script function (one overload) */
	SYM_CONTEXT,		/* a context value ($x, $x->f) a probe's
				 * family computes for its handler:
				 * index = slot in its body's ctxvars, decl =
				 * the N_TARGET/N_TMEMBER node; for @defined,
				 * index = the folded value and no slot */
	SYM_TYPED,		/* a typed value the handler computes from a
				 * script value (typed_base): @cast(p, "T")
				 * chains (member_path), &chains, and pretty
				 * printing ($x$, @cast(...)$: pretty) */
};

struct script_func;
struct btf;

/*
 * A member chain on a value of a known BTF type (a context variable's
 * $prev->real_parent->comm, a @cast), one step per '->member' or '[N]',
 * resolved through BTF (members.c). The generated code walks it from the
 * value: a step first dereferences
 * (deref: the current value is a pointer to the struct, or the array the
 * index applies to is behind a pointer), then either only computes the
 * address (STEP_ADDR: an embedded struct or an array, whose value is its
 * address) or reads size bytes (STEP_READ), or bit_size bits at bit_offset
 * (STEP_BITS: a bitfield), fault-safely.
 */
enum step_kind { STEP_MEMBER, STEP_INDEX };
enum step_result { STEP_ADDR, STEP_READ, STEP_BITS };

struct member_step {
	enum step_kind kind;
	const char *member;		/* STEP_MEMBER */
	int64_t index;			/* STEP_INDEX */
	struct node *index_expr;	/* STEP_INDEX of a @cast chain: a
					 * computed index (else NULL) */
	unsigned stride;		/* STEP_INDEX: element size */
	bool deref;
	enum step_result result;
	unsigned size;			/* STEP_READ: bytes */
	bool is_signed;
	unsigned bit_offset, bit_size;	/* STEP_MEMBER: within its struct */
};

struct member_path {
	struct member_step *steps;
	int nsteps;
	bool user;			/* its reads are the process's memory
					 * (a user program's types) */
};

/* members.c: the $name at the root of a chain, or NULL */
const char *context_root(const struct node *n);
/* A condition @defined(...) or its '!' decides, folded in pass 2 to
 * *value: only the live branch of its ?: or if was elaborated. */
bool sema_folded_defined(const struct node *n, int64_t *value);
/* the root of a chain: N_TARGET, N_ATFUNC (@cast) or any expression */
struct node *chain_root(struct node *n);
/* "$prev->comm", "$argv[1]": the slot's name */
char *context_key(struct arena *a, const struct node *n);
/* the step right after the variable ($x->f: the ->f, $x[1]: the [1]),
 * or NULL for a plain $x */
const struct node *context_step(const struct node *n);
/* Resolve a chain on an argument of C type arg_type (NULL: ok) */
const char *context_member_path(struct arena *a, struct btf *btf,
			   const char *arg_type, const struct node *n,
			   struct member_path *out, const struct node **at);
bool member_path_equal(const struct member_path *x, const struct member_path *y);


/*
 * The general form, for any value whose BTF type is known ("a base value
 * and a type": a tracepoint argument, @cast, a kernel.function variable):
 * the chain of N_TMEMBER/N_TINDEX nodes from its root to n (n itself
 * may be the root: no steps). The value is of type type_id, or with
 * PATH_OBJECT the address of an object of that type (@cast). *end_type
 * is the result's type (a struct or array: the value is its address).
 */
#define PATH_OBJECT	0x1	/* the value is the address of a type_id */
#define PATH_AGGREGATE	0x2	/* may end on a struct (pretty printing) */
#define PATH_ADDRESS	0x4	/* &chain: the last member's address */
#define PATH_VAR	0x8	/* the value is the address of a type_id that
				 * the chain reads first (@var: a first
				 * step [0] on it) */
const char *type_path(struct arena *a, struct btf *btf, int type_id,
		      int flags, const struct node *n, struct member_path *out,
		      int *end_type, const struct node **at);

/*
 * Pretty printing (pretty.c): a value of a BTF type flattened into
 * items, each literal text then at most one conversion of a value the
 * runtime reads at a fixed offset from the input value (or the input
 * value itself). See runtime/pretty.h for the kernel side.
 */
enum pretty_src { PS_VALUE, PS_ADDR, PS_READ, PS_BITS };
struct pretty_item {
	const char *text;		/* literal text before the value */
	char conv;			/* 'i' 'u' 'c' 'p' 'x' 's', 0: none */
	enum pretty_src src;
	unsigned offset;		/* bytes from the input value */
	unsigned size;			/* PS_READ: bytes */
	bool is_signed;
	unsigned bit_shift, bit_size;	/* PS_BITS */
};
struct pretty {
	struct pretty_item *items;
	int nitems;
	bool user;			/* read from the process's memory */
};
/* $ (one level) or $$ (full) of a value of type type_id */
const char *pretty_build(struct arena *a, const struct btf *btf, int type_id,
			 bool full, struct pretty *out);
/* the text of $ or $$ of a value of type_id that cannot be read: "?" for
 * each conversion */
const char *pretty_unknown(struct arena *a, const struct btf *btf,
			   int type_id, bool full);
/* one conversion of the value itself: "%#x" ('x') or "%p" ('p') */
struct pretty *pretty_value(struct arena *a, char conv);
bool pretty_equal(const struct pretty *x, const struct pretty *y);

#define MAX_KEYS 9

struct symbol {
	const char *name;
	enum sym_kind kind;
	enum type type;			/* value type */
	struct srcloc type_loc;		/* where the type was first inferred */
	struct srcloc loc;		/* declaration or first use */
	struct node *decl;		/* N_GLOBAL, or NULL */
	int nkeys;			/* > 0: an array with these keys */
	enum type key_types[MAX_KEYS];
	int index;			/* for names in generated C */
	const char *cname;		/* SYM_GLOBAL: its C name's suffix */
	struct symbol *hash_next;	/* SYM_GLOBAL: the next in its
					 * global_hash bucket */
	bool written, read;
	bool used_as_scalar;		/* seen without an index */
	struct srcloc scalar_loc;	/* where first, for the messages */
	bool cross_file_warned;		/* a tapset's code named this script
					 * global (warned once) */
	bool mentioned;			/* still named after elision */
	/* SYM_BUILTIN */
	int nargs;			/* -1: variadic */
	enum type arg_types[4];
	const char *c_expr;		/* how pass 3 computes it */
	int bi_kind;			/* enum builtin_kind */
	/* SYM_FUNCTION */
	struct script_func *func;
	/* TY_STATS globals: the histogram all @hist_* on it share */
	enum stat_op hist;		/* STAT_NONE, HIST_LOG or HIST_LINEAR */
	int64_t hist_lo, hist_hi, hist_step;
	int var_shift;			/* the largest @variance(s, N) shift */
	bool uses_variance;		/* @variance of it is read (or sorts a
					 * foreach): only then do its hits
					 * keep the running variance */
	struct srcloc hist_loc;
	/* SYM_CONTEXT: a member chain's steps from the argument named by
	 * ctx_root (name is the whole chain), or NULL for a plain $arg */
	const struct member_path *member_path;
	const char *ctx_root;
	bool may_fault;			/* computed from memory: its read may
					 * have faulted (the family's locs) */
	unsigned write_size;		/* the target of `$x = v` (-g): the
					 * value is the address, write this
					 * many bytes there */
	/* SYM_TYPED: the expression whose value the steps of member_path (if
	 * any) start from, then the pretty printing of the result (or NULL) */
	struct node *typed_base;
	const struct pretty *pretty;
	/* SYM_LOCAL, autocast: the BTF type of the values assigned to it
	 * (SYM_FUNCTION: returned by it; SYM_TYPED of @var: the variable's)
	 * (0 none yet, -1 untyped or conflicting); btf_object: they are
	 * addresses of objects of that type; btf_user: in the process's
	 * memory (a user program's types) */
	int btf_type;
	bool btf_object, btf_user;
};

/* One probe point of a probe, resolved: what the runtime registers. */
struct derived_probe {
	struct node *point;		/* the N_PROBE_POINT it is derived
					 * from (an alias's, through one) */
	struct node *user_point;	/* the point as the script wrote it,
					 * which may name aliases */
	struct probe_body *body;
	const struct probe_family *family;	/* semantic/family.h */
	const char *pp;			/* canonical point, e.g. timer.s(1) */
	/* -p2's derivation when the family gives its own (SystemTap's
	 * perf: the point as aliases expanded it), else NULL: the aliases
	 * and the script's point */
	const char *pp_from;
	/* what a backend attaches, filled by the family (attach.h) */
	struct attach attach;
	/* the family's own data follows: struct derived_probe is the first
	 * member of a struct of the family's file (family.h, point_size) */
};


/*
 * A scope with a frame: a probe handler (one body shared by its derived
 * probes) or a script function (then `func` is set, `probe` is its
 * N_FUNCTION and the first func->nparams locals are the parameters).
 */
struct probe_body {
	struct node *probe;		/* N_PROBE or N_FUNCTION; for an alias
					 * expansion, a synthetic N_PROBE */
	struct node *user_probe;	/* the script's N_PROBE it came from */
	const char *via;		/* aliases expanded, innermost first:
					 * "a = begin <- b += a <- ", or "" */
	const char *cond;		/* its points' condition as SystemTap
					 * names it in -p2 ("(a) && (b)" through
					 * an alias), or NULL */
	const char *list_name;		/* -l: the outermost alias as matched
					 * (with any suffix), or NULL */
	const char *pn;			/* pn() and -l's name: the outermost
					 * alias as matched whose name with its
					 * suffix has no wildcard, or NULL (then
					 * the point's own) */
	struct script_func *func;	/* NULL for a probe */
	struct symbol **locals;
	int nlocals, locals_cap;
	int index;			/* stp_probe_<index> */
	bool reads_globals, writes_globals;	/* transitively, after pass 2 */
	struct symbol **writes;		/* globals written directly */
	int nwrites, writes_cap;
	struct hashset write_set;	/* the same, hashed: a body writing
					 * 100,000 globals checks each once */
	struct script_func **callees;	/* functions called directly */
	int ncallees, callees_cap;
	/* the callees again, as an open-addressing set (types.c): a body
	 * calling 40,000 functions made the check for a repeat quadratic */
	struct script_func **callee_set;
	int callee_set_size;		/* a power of two, or 0 */
	/* context values the body reads, one slot each (SYM_CONTEXT);
	 * every derived probe's callback fills them all */
	struct symbol **ctxvars;
	int nctxvars, ctxvars_cap;
	bool parms;			/* uses $$parms / $$vars */
	/* values the handler computes at a function's entry for its
	 * return (@entry(expr) whose expr calls functions ...): each
	 * N_ATFUNC's sym->index is its slot */
	struct node **entry_values;
	int nentry_values, entry_values_cap;
	bool per_point;			/* a copy of the body for one point
					 * of its probe (@defined decides per
					 * function) */
	bool kept;			/* kept by the optimiser even when it
					 * does nothing (a perf counter, which
					 * @perf reads) */
	unsigned parms_modes;	/* bit m: $$parms (0), $$parms$ (1),
					 * $$parms$$ (2) */
	/* a probe: the copies of functions made for it (copies.c) */
	struct script_func **copies;
	int ncopies, copies_cap;
	/* what its code uses at run time (enum body_use, uses.h): its own,
	 * and with its callees' (transitively), after pass 2 */
	unsigned uses, uses_reached;
	/* its derived probes in prog->probes order, as body_probes()
	 * indexes them (valid while derived_gen is the program's) */
	const struct derived_probe **derived;
	int nderived, derived_cap;
	unsigned derived_gen;
};

/* A script function: one overload, identified by name and arity. */
struct script_func {
	struct node *decl;		/* N_FUNCTION */
	struct symbol *sym;		/* SYM_FUNCTION; type = return type */
	struct probe_body *scope;	/* parameters and locals */
	int nparams;
	int index;			/* stp_fn_<index> */
	bool used;			/* reachable from a probe */
	bool returns_value;		/* has a 'return EXPR' */
	bool walked;			/* pass 2 has walked its body once:
					 * the BTF type of what it returns
					 * (sym->btf_type) is known */
	bool embedded;			/* body is embedded C (N_EMBEDDED):
					 * STAP_ARG_x / STAP_RETVALUE */
	struct script_func *hash_next;	/* the next in its func_hash bucket */
	/*
	 * A function that reads a probe's context ($x, $$parms, @defined($x),
	 * @entry ...), itself or through a function it calls, is never
	 * elaborated as such: each probe body calling it gets a copy of its
	 * own (copies.c), elaborated as that probe's code. A copy has
	 * copy_of (the declared function, which then stays unused), ctx
	 * (the probe body) and trail (the calls that made it, for notes).
	 */
	bool reads_context;
	struct script_func *copy_of;
	struct probe_body *ctx;
	const struct diag_trail *trail;
	int ncopies;			/* copies made of this function */
};

struct program {
	struct session *s;
	struct ast_file **files;
	int nfiles;
	struct symbol **globals;
	int nglobals, globals_cap;
	struct symbol **builtins_used;
	int nbuiltins_used, builtins_used_cap;
	struct probe_body **bodies;
	int nbodies, bodies_cap;
	struct derived_probe **probes;
	int nprobes, probes_cap;
	struct script_func **funcs;	/* every declared function */
	int nfuncs, funcs_cap;
	/* funcs by name (names.c): a lookup per call and per declaration
	 * made pass 2 quadratic in the number of functions */
	struct script_func **func_hash;	/* buckets, chained by hash_next */
	int func_hash_size;		/* a power of two, or 0 */
	/* globals by name (names.c), for the same reason */
	struct symbol **global_hash;	/* buckets, chained by hash_next */
	int global_hash_size;		/* a power of two, or 0 */
	/* body_probes()'s index: probes[0, probes_indexed) are in their
	 * bodies' lists; last_indexed, probes[probes_indexed - 1] then,
	 * tells that a compaction (only ever removing) changed the prefix:
	 * then the index starts again, in a new generation */
	int probes_indexed;
	const struct derived_probe *last_indexed;
	unsigned probes_gen;
	/* pass 3's: the probe table entries before each probe
	 * (table_index(), module/module.c), counted once */
	int *table_slot;
	int table_slots;		/* nprobes + 1 when counted */
	int max_nesting;		/* deepest call chain; -1: recursion */
	int recursive_nesting;		/* with recursion: SystemTap's MAXNESTING */
	struct node **embeds;		/* top-level %{ %} blocks, in order */
	int nembeds, embeds_cap;
	/* what a probe family keeps for the whole program (family.h) */
	struct family_data {
		const struct probe_family *family;
		void *data;
	} *family_data;
	int nfamily_data;
};

/*
 * The probe body whose context values scope b reads: b itself for a
 * probe, the calling probe's body for a function's copy, NULL for a
 * function (which has none).
 */
static inline struct probe_body *context_body(const struct probe_body *b)
{
	return !b || !b->func ? (struct probe_body *)b : b->func->ctx;
}

/* The first derived probe of body b, or NULL (a function, or a body
 * whose probes were all dropped). */
const struct derived_probe *body_first_probe(const struct program *prog,
					     const struct probe_body *b);
/* Body b's derived probes, in prog->probes order (*n of them): O(1) after
 * the first call, however many probes the program has. The array is
 * good until prog->probes changes. */
const struct derived_probe *const *body_probes(const struct program *prog,
					       const struct probe_body *b,
					       int *n);

/* Family f's slot for program-wide data (NULL until it sets one). */
void **program_family_data(struct program *prog, const struct probe_family *f);
void *program_family_get(const struct program *prog,
			 const struct probe_family *f);

/* Is name a built-in probe family (begin, timer, kernel, ...)? */
bool sema_is_family(const char *name);
/* May a point starting with name be a probe alias: not a family's root,
 * or one whose family has tapset aliases (its tapset_aliases)? */
bool sema_alias_root(const char *name);

/* Elaborate the parsed files; returns the number of errors. */
int sema_run(struct session *s, struct ast_file **files, int nfiles,
	     struct program *out);

/*
 * The optimiser (elide.c), after type checking and unless -u: drops dead
 * stores, side-effect-free statements, unused locals, probes that do
 * nothing, unused functions and globals; warns about the statements and
 * probes it drops from user code.
 */
void sema_elide(struct session *s, struct program *prog);

/*
 * display.c: the source of SystemTap's synthetic end probes that print the
 * globals of user_file written but never read, or NULL when there are none
 * (malloc'd).
 */
char *sema_display_source(const struct program *prog, int user_file);

/*
 * json.c: the statements that print global g as JSON lines (one object
 * per element; with hist, an N_HIST of g, its histograms), appended to
 * sb; --format=json's display and @json_print's lowering use them.
 */
struct strbuf;
void sema_json_lines(struct strbuf *sb, const struct symbol *g,
		     const struct node *hist);

/* -p2 listing: globals, functions and probes with their types. */
void sema_dump(FILE *out, const struct program *prog);

/* The probe body b as messages and -p2 name it: its first point, the
 * alias it was matched as, how many more points share it. */
const char *sema_probe_name(const struct program *prog,
			    const struct probe_body *b);

/* "name:type (arg:type, ...)", as -p2 and --dump-functions print it. */
const char *sema_signature(struct session *s, const struct script_func *f);
/* the functions the compiler provides, as sema_signature shows them */
int builtin_count(void);
const char *builtin_signature(struct session *s, int i);
/* A probe point as -p2 prints it: its condition's globals named as
 * SystemTap names them (__global_x). */
const char *sema_point_text(const struct program *prog,
			    const struct node *point);

/* Whether running statement n charges MAXACTION (anything but an empty
 * statement or a block of those): every backend charges the same. */
bool stmt_charges_action(const struct node *n);

/* --dump-probe-types: every built-in probe point pattern, sorted. */
void sema_dump_probe_types(FILE *out);

#endif /* SEMANTIC_SEMANTIC_H */
