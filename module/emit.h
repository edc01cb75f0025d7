/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3's own state and services, shared by the files of module/ and by
 * the emitters of the attach kinds (emit_*.c, struct kind_emit).
 *
 * Every expression is evaluated in script order into temporaries: the
 * generator emits the statements that compute it and returns a C
 * expression (without side effects) for its value. Longs live in C locals;
 * strings live in the frame (struct stp_locals_probe_N or _fn_N in the
 * per-CPU context), never on the kernel stack. A runtime error records a
 * message and jumps to the current error label: `out` (leave the probe or
 * function), or a try's catch label.
 */
#ifndef CODEGEN_EMIT_H
#define CODEGEN_EMIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/codegen.h"
#include "module/locks.h"
#include "semantic/filter.h"
#include "semantic/semantic.h"
#include "lib/strbuf.h"

struct cg {
	struct session *s;
	const struct program *prog;
	struct strbuf code;		/* the current handler's body */
	struct strbuf frame;		/* its frame struct members */
	int depth;			/* indentation */
	int ntemps;			/* temporaries in this handler */
	int nlabels;
	int loop_break[64], loop_cont[64];	/* label numbers per loop */
	int nloops;
	/* the enclosing foreach loops over histograms (stmt.c) */
	struct hist_loop {
		const struct symbol *stat;	/* a scalar statistic, or NULL
						 * (an element of an array) */
		const struct symbol *key;	/* the bucket number */
		const char *agg;		/* its aggregate, C */
		bool stable;			/* the body never writes key */
	} hist_loops[64];
	int nhist_loops;
	int errors;
	/* the handler being generated: statements it charges, whether it
	 * loops or has embedded C (stmt.c, expr.c): how much of a context
	 * its probes' hits set up (module.c) */
	int nactions;
	bool looped, embedded;
	bool calls;			/* it calls a script function */
	unsigned *use;			/* [body]: its USE_* bits (stmt.c) */
	const char *err;		/* where a runtime error jumps */
	const struct probe_body *scope;	/* the probe or function */
	const struct lock_plan *locks;	/* also which globals are counters */
	int *nlean;			/* [body]: its count statements when
					 * lean (module.c), else -1 */
	bool *filtered;			/* [body]: lean past its first
					 * statement, a filter its probes'
					 * callbacks check themselves */
	bool *prefiltered;		/* [body]: every probe's callback
					 * checks its first statement, a
					 * filter (kind_emit.filters): the
					 * handler does not run it again */
	const struct node *skip;	/* in the handler being generated:
					 * that filter (stmt.c) */
	int *fn_c;			/* [function index]: the function whose
					 * C a call runs (a copy merged into
					 * an identical one: module.c) */
	/* per attach kind: state its emitter keeps between hooks
	 * (freed at the end) */
	void *kind_states[ATTACH_NKINDS];
	/* the module's C is spread over several translation units
	 * (module.c): handlers and functions are not static */
	bool split;
	bool *called;			/* [function]: some handler's code
					 * calls it (module.c) */
	bool *src_used;			/* [file]: its name is STP_SRC_N in
					 * locations (where(), expr.c) */
	bool *bare;			/* [body]: its frame has no locals or
					 * temporaries (stmt.c) */
};

/* What a probe body uses of its context: runtime/probes.h's STP_USE_*. */
enum {
	USE_ERROR = 1, USE_ACTION = 2, USE_PRINT = 4, USE_CALL = 8,
	USE_ITER = 16, USE_MATCH = 32, USE_REGS = 64, USE_CTX = 128,
};
/* The STP_USE_* expression of body b (stp_free_B decides USE_ACTION). */
const char *use_expr(struct cg *cg, int b);

/*
 * How the probes of one attach kind (semantic/attach.h) are emitted into
 * the kernel module: one emitter per kind, in emit_KIND.c, listed in
 * emit_kinds.c. A hook reads the probe's description (dp->attach) and
 * the elaborated program, never a family's data.
 */
struct kind_emit {
	/* the runtime's probe type of dp ("STP_PROBE_TIMER"), or NULL:
	 * no table entry (never) */
	const char *(*probe_type)(const struct derived_probe *dp);
	bool event;		/* runs on kernel events: takes the globals'
				 * locks (locks.c) */
	bool lean;		/* a body of constant counts runs as those
				 * counts, without a context (module.c) */
	bool own_hits;		/* its callbacks run stp_run_B themselves:
				 * the runtime never calls the entry's .hit,
				 * so a body only its probes run has no
				 * stp_hit_B (module.c) */
	/* Optional: dp's callback runs the body's first statement, a
	 * filter `if (...) next`, itself; its body is lean past it */
	bool (*filters)(const struct derived_probe *dp);
	/* Optional: #defines before the runtime is included */
	void (*defines)(struct cg *cg, FILE *out);
	/* Optional: module-level C after the handlers, before the probe
	 * table (which is declared): callbacks, value readers, tables */
	void (*support)(struct cg *cg, FILE *out);
	/* Optional: the kind's table in the runtime (runtime/KIND.h):
	 * its entry's type, the table's name in the module, the kind's
	 * operations; fields writes probe i's entry past its .probe (each
	 * field starts with ", "). The probe table's entry of the probe
	 * then points at it (.attach). */
	const char *table_type, *table_name, *table_ops;
	void (*fields)(struct cg *cg, int i, FILE *out);
	/* Optional: the kind's fields of probe i's entry in the probe
	 * table (struct stp_probe), before the runtime's own (locks, lean
	 * counts); each starts with ", " */
	void (*head_fields)(struct cg *cg, int i, FILE *out);
	/* Optional: the start of a handler of b (values it computes at a
	 * function's entry) */
	void (*prologue)(struct cg *cg, const struct probe_body *b);
	/* Optional: a context value the body reads that is no slot
	 * ($value, $$parms, $return, @entry ...): a C expression */
	const char *(*context)(struct cg *cg, struct node *n);
	/* Optional: an assignment to a context value, or NULL when n is
	 * not one the kind writes */
	const char *(*assign)(struct cg *cg, struct node *n);
	/* Optional: an @-function of the kind's that a probe of any kind
	 * may call (@perf): its C value, or NULL when n is not one */
	const char *(*at_func)(struct cg *cg, struct node *n);
};

/* The emitters, by kind (emit_kinds.c); NULL: no module runs the kind. */
extern const struct kind_emit *const kind_emitters[ATTACH_NKINDS];
/* The emitters with a runtime table, in the order the runtime arms
 * them; NULL-ended (emit_kinds.c) */
extern const struct kind_emit *const kind_arm_order[];
/* dp's emitter (a kind without one: no table entry, no hooks) */
const struct kind_emit *emit_of(const struct derived_probe *dp);
/*
 * The C cast that gives $return its type in the handler being generated,
 * for probes of kind whose ret_of says the value's size and signedness:
 * an int is the register's low 32 bits, sign-extended (the upper half is
 * not part of it). The probes sharing the handler must agree; otherwise,
 * or for a 64-bit or unknown type, none ("").
 */
const char *return_cast(const struct cg *cg, enum attach_kind kind,
			void (*ret_of)(const struct attach *at, unsigned *size,
				       bool *is_signed));

/* ---- expressions (expr.c) ------------------------------------------- */

void emit(struct cg *cg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* n cannot be translated: an error at n */
void unsupported(struct cg *cg, const struct node *n, const char *what);
const char *tmp_long(struct cg *cg);
const char *tmp_string(struct cg *cg);
/* A C string literal for bytes (with escapes, safe in any context). */
const char *c_string(struct cg *cg, const char *s, size_t len);
const char *c_comment(struct cg *cg, const char *s);
/* "operator '/' at x.stp:7:36" as a C string literal */
const char *where(struct cg *cg, const struct node *n);
const char *gen_expr(struct cg *cg, struct node *n);
void gen_embedded_stmt(struct cg *cg, struct node *n);
/* a script variable as C (a counter folds its per-CPU slots first) */
const char *var_ref(struct cg *cg, const struct symbol *sym);
/* arrays and statistics: the global's runtime object, as a pointer; its
 * keys into a key struct (wild: bit k for a '*' key); may a statement
 * use it here (an error otherwise); the error of a full array */
bool is_stat_array(const struct symbol *sym);
const char *gref(struct cg *cg, const struct symbol *sym);
const char *gen_keys(struct cg *cg, struct node *keys,
		     const struct symbol *sym, unsigned *wild);
bool global_ok(struct cg *cg, struct node *at, const struct symbol *sym);
/* The aggregate of a statistic (scalar, or an element: *keys gets its
 * key struct, else NULL) as a struct stp_stat *. */
const char *gen_stat_get(struct cg *cg, struct node *op, const char **keys);
void overflow_error(struct cg *cg, const struct node *at,
		    const struct symbol *sym);
/* A pretty-printing table's items, one a line (runtime/pretty.h). */
void pretty_items(struct cg *cg, FILE *out, const struct pretty *p,
		  const char *indent);
/* The steps of a member chain from stp_addr, each of which may `goto
 * fault` (a label the caller provides): each line starts with in, the
 * `goto fault` lines with cont; index[i] is the C value of step i's
 * computed index (NULL: the chain has constant indexes only). */
void path_steps(struct strbuf *sb, const struct member_path *path,
		const char *in, const char *cont, const char *const *index);
/* The same into out, every line starting with in. */
void gen_path_steps(FILE *out, const struct member_path *path, const char *in);
/* If the context value sym faulted (bit sym->index of the hit's faults),
 * raise the read fault the body would have met. */
void fault_check(struct cg *cg, const struct node *n, int slot);
/* -g: `lhs = v` where lhs's context slot holds the address to write
 * (sym->write_size bytes) through the runtime's WRITER (stp_kf_write,
 * stp_up_write); a fault is the write-fault error. The value's
 * temporary. */
const char *gen_ctx_write(struct cg *cg, const struct node *n,
			  const char *writer);

/* ---- printf's fast path (print.c) ------------------------------------ */
struct fmt_piece;
/* A struct stp_fmt initialiser for a printf piece. */
const char *fmt_init(struct cg *cg, const struct fmt_piece *p);
/*
 * The np pieces of a format into the probe's print buffer: args[p] is the
 * C value of conversion p, fmts[p] the name of its struct stp_fmt when
 * one was made already, else NULL (made when needed).
 */
void gen_print_pieces(struct cg *cg, const struct fmt_piece *pieces, int np,
		      const char **fmts, const char **args);

/* ---- statements and handlers (stmt.c) -------------------------------- */

void gen_stmt(struct cg *cg, struct node *n);
/* The handler of b (a probe body or function): its frame struct into
 * structs, its code into bodies. */
void gen_body(struct cg *cg, FILE *structs, FILE *bodies,
	      const struct probe_body *b);

/* ---- the module (module.c) ------------------------------------------ */

/* The emitter of the probes whose context the code being generated
 * reads: the handler's, or for a function's copy its probe's (NULL: a
 * function). */
const struct kind_emit *scope_emit(const struct cg *cg);
/* Index of probe i in the emitted stp_probes[] (never has no entry). */
int table_index(const struct program *prog, int i);
/* The kind's state slot in this module (NULL until it sets one; freed
 * at the end). */
void **kind_state(struct cg *cg, enum attach_kind kind);

/* ---- user objects (unwind.c) ------------------------------------------ */

/* The symbol and unwind tables of the user objects runtime/ustack.c
 * reads (stp_uobjs[]), emitted before the tapset's C that includes it. */
/* The C of a line table's row: its address (from the table's base),
 * line (0: no line from there on), file (an index into its names). */
struct elf_file;
#define STP_LINE_ROW_C "#ifndef STP_LINE_ROW\n#define STP_LINE_ROW\n" \
	"struct stp_line { unsigned int addr, line; unsigned short file; };\n" \
	"#endif\n"
/*
 * The line table of f (module/lines.c), all of it or (cus) those of
 * the ncus compilation units, as NAME_files[] and NAME_lines[]: its row
 * count, 0 for none. Rows are addresses from *base, which UINT64_MAX
 * asks to be the table's lowest address.
 */
int gen_line_table(struct cg *cg, FILE *out, const char *name,
		   struct elf_file *f, const uint64_t *cus, int ncus,
		   uint64_t *base);
/* The kernel's line tables: those of the compilation units of the
 * script's kernel.function probes (module/lines.c). */
void gen_kernel_lines(struct cg *cg, FILE *out);
/* lines: also each object's line table (usymfileline() and friends) */
void gen_unwind_tables(struct cg *cg, FILE *out, bool lines);

#endif /* CODEGEN_EMIT_H */
