/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel function family's own data (probes/kernel_function.c and
 * kernel_function_vars.c): a kernel.function or kernel.statement probe,
 * and where its context values live.
 */
#ifndef PROBES_KERNEL_FUNCTION_H
#define PROBES_KERNEL_FUNCTION_H

#include "probes/probes.h"
#include "target/dwloc.h"
#include "target/functions.h"

/*
 * The root of a kernel.function context value in one function: its DWARF
 * location program (checked: a backend can render it) and how to turn it
 * into a long (kernel_function_vars.c).
 * Then the symbol's member_path, shared by the body's functions, walks
 * any member chain.
 */
struct kf_loc {
	struct dwloc_prog prog;
	unsigned prog_size;		/* the value's bytes prog was checked
					 * for (its pieces) */
	struct dwloc_value shape;	/* what prog's value is: a register,
					 * a computed value or an address */
	unsigned size;			/* bytes of a scalar read */
	bool is_signed;
	bool address;			/* the value is loc's address: an
					 * array, struct or union, or &$var */
	bool spill;			/* an aggregate of at most 8 bytes in
					 * a register: its members are read
					 * from a copy on the stack */
	bool reg_address;		/* a write's target: the register's
					 * slot in pt_regs */
	unsigned write_size;		/* a write (-g): bytes at the address
					 * the value is */
};


struct kf_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	const char *symbol;		/* the function's name */
	/* module("NAME"): the point's NAME (a pattern) until expand, then
	 * the module whose DWARF (target/moddebug.h) the probe's function
	 * is in; NULL: the kernel's */
	const char *module;
	/* its types: the module's BTF scope (target_module_btf), -1 when
	 * it has none, 0 not asked yet */
	int btf_scope;
	const char *suffix;		/* ".call", ".return" or NULL */
	/* the return value's size in bytes (0: unknown, 8 is read as is)
	 * and signedness, from its DWARF type through BTF: $return of an
	 * int is the register's low 32 bits, sign-extended */
	unsigned ret_size;
	bool ret_signed;
	const char *ret_ctype;		/* .return: that type as -L prints it */
	int64_t maxactive;		/* .return.maxactive(N), or 0 */
	uint64_t addr;			/* link-time entry pc of the instance */
	bool inlined;			/* an inlined copy (by kprobe) */
	/* an inlined copy left out: why (it lacks a context variable the
	 * body reads, at dropped_at), or NULL */
	const char *dropped;
	const struct node *dropped_at;
	bool statement;			/* kernel.statement: a kprobe at addr */
	bool nearest;			/* .nearest: a line without code is
					 * the nearest one with code */
	uint64_t entry_pc;		/* kernel.statement: the entry pc of
					 * the copy addr is in */
	/* the CU of the copy whose DWARF gives the context variables, and
	 * its variables ("name:type", as -L) */
	uint32_t cu;
	const char **vars;
	int nvars;
	/* locs[k]: where the body's context value k (ctxvars[k]) starts in
	 * this function, or NULL (allocated on the first one) */
	struct kf_loc **locs;
};

static inline struct kf_probe *kf_of(const struct derived_probe *dp)
{
	return (struct kf_probe *)dp;
}

/* Entry and statement probes, and .return probes (kernel_function.c). */
extern const struct probe_family kernel_function_family, kernel_return_family;

/* Is dp a kernel.function or kernel.statement probe (kf_of applies)? */
static inline bool is_kf(const struct derived_probe *dp)
{
	return dp->family == &kernel_function_family ||
	       dp->family == &kernel_return_family;
}

/* The program's anchor for the runtime's KASLR offset: an exported
 * function and its link-time address (program_family_data). */
struct kf_anchor {
	uint64_t addr;
	const char *sym;
};

/*
 * kernel_function_vars.c: the context value n ($x, $x->f..., with addr_of &$x, with
 * write the address `$x... = v` writes to) in the
 * kernel function of dp, whose root variable has C type c_type: fills
 * *loc and, for a chain, *path. whole: n is what $n$ or $n$$ prints, and
 * a struct's value is its address (spilled when a register holds it, as
 * kuid_t). Returns NULL, or an error message (arena) and *at, the node it
 * is about.
 */
struct derived_probe;
struct kf_loc;
const char *kf_var_resolve(struct arena *a, struct btf *btf,
			   struct dwloc_file *dw,
			   const struct derived_probe *dp, const char *c_type,
			   const struct node *n, bool addr_of, bool write,
			   bool whole,
			   struct kf_loc *loc, struct member_path *path,
			   const struct node **at);

/* kernel_function_dollars.c */
struct sema;
/* the C type of variable name in dp's function (-L's), or NULL */
const char *kf_var_type(const struct derived_probe *dp, const char *name);
/* the DWARF of dp's function (the debug vmlinux's, or its module's),
 * or NULL with *err saying why */
struct dwloc_file *kf_dwarf(struct sema *se, const struct derived_probe *dp,
			    const char **err);
/* Variable name's location in dp's function, for a value of value_size
 * bytes, run through dwloc_eval's checks: NULL, or why it cannot be
 * read (dwloc.c's messages). */
/* A symbol of a module's file (ef: its layout) whose name the module
 * has once, locating layout address addr by an offset from it: true and
 * *out (kernel_function_dollars.c). */
bool kf_module_anchor(struct elf_file *ef, uint64_t addr, struct elf_sym *out);
/* The C type of a variable of the file of dp's function (a static or
 * global defined there), or NULL. */
const char *kf_global_type(struct arena *a, struct dwloc_file *dw,
			   const struct derived_probe *dp, const char *name);
const char *kf_var_loc(struct arena *a, struct dwloc_file *dw,
		       const struct derived_probe *dp, const char *name,
		       unsigned value_size, struct dwloc_prog *prog,
		       struct dwloc_value *shape);
/* why dp's function has no variable name: SystemTap's two errors */
const char *kf_missing_var(struct sema *se, struct dwloc_file *dw,
			   const struct derived_probe *dp, const char *name);
/* $x$ of a variable no probe of the body can read: its constant text */
const char *kf_pretty_unknown(struct sema *se, const struct node *base,
			      int depth);
/* $$parms, $$locals, $$vars, $$return (and $$parms$ ...): rewritten */
enum type infer_kf_dollars(struct sema *se, struct node *n,
			   const char *name);

#endif /* PROBES_KERNEL_FUNCTION_H */
