/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF locations of kernel.function context variables ($count in
 * vfs_read), as location programs (elf/elf.h), and the symbolic run of
 * such a program (dwloc_eval, dwloc_eval.c): what pass 2 checks (the
 * same refusals, the same messages) and what a backend renders through
 * its struct dwloc_render (module/loc_c.h: C over the probed function's
 * pt_regs).
 *
 * The vmlinux is opened only when a probe body names a context variable.
 * A function is found by its out-of-line copy's entry pc and CU number
 * (struct kf_inst); a variable is one of that DIE's own parameters or
 * variables. Its location is looked up at the entry pc, else just after
 * the fentry call (endbr64 and/or the 5-byte call): registers and the
 * stack pointer are the same at all of those, which is where both the
 * ftrace and the kprobe handlers run.
 *
 * Memory: names and constants' programs are in the caller's arena, the
 * programs read from the DWARF in the file's (until dwloc_close()).
 */
#ifndef TARGET_DWLOC_H
#define TARGET_DWLOC_H

#include <stdbool.h>
#include <stdint.h>

#include "elf/elf.h"
#include "lib/arena.h"

struct dwloc_file;

/* Where a variable is: its program, and what the place it holds at
 * knows. */
struct dwloc_prog {
	const struct elf_loc *loc;
	bool inlined;		/* not at a function's entry: no CFA */
	bool stmt;		/* inside the function: no entry values */
	/* past the entry, the frame address the place's CFI gives
	 * (register cfa_reg + cfa_offset), when the caller looked it up:
	 * DW_OP_call_frame_cfa is then that, inlined or not */
	bool cfa_known;
	unsigned cfa_reg;
	int64_t cfa_offset;
	/* a module's variable (DW_OP_addr): the module is wherever it was
	 * loaded, so the address is mod_sym's there plus the program's
	 * address minus mod_sym_addr, mod_sym's in the layout; or NULL */
	const char *module, *mod_sym;
	uint64_t mod_sym_addr;
};

/* What a program's value is, once run. */
enum dwloc_kind {
	DWL_REGISTER,		/* expr is the register's value */
	DWL_VALUE,		/* expr is the value (DW_OP_stack_value) */
	DWL_MEMORY,		/* expr is the address of the value */
};

struct dwloc_value {
	enum dwloc_kind kind;
	const char *expr;	/* the renderer's, or "" without one */
	int reg;		/* DWL_REGISTER: its DWARF number, else -1 */
};

/*
 * A backend's values for the ops of a program: each returns a new value
 * (an expression of the backend's, opaque here) from its arguments; a
 * read from memory may also emit code of its own (the backend keeps it
 * in ctx). reg is a general purpose register (elf/arch.h), op of binary
 * one of + - * & | ^ << >> == != < <= > >= (is_signed: the comparisons
 * and the arithmetic shift), of unary '-' or '~'.
 */
struct dwloc_render {
	const char *(*reg)(void *ctx, unsigned reg);
	const char *(*offset)(void *ctx, const char *base, int64_t offset);
	const char *(*plus)(void *ctx, const char *a, uint64_t value);
	const char *(*constant)(void *ctx, uint64_t value, bool is_signed);
	const char *(*binary)(void *ctx, const char *op, const char *a,
			      const char *b, bool is_signed);
	const char *(*unary)(void *ctx, char op, const char *a);
	const char *(*deref)(void *ctx, const char *addr, unsigned size);
	const char *(*cfa)(void *ctx);	/* the frame address at the entry */
	const char *(*link_addr)(void *ctx, uint64_t addr);
};

/*
 * Run p symbolically for a value of value_size bytes (a first
 * DW_OP_piece as large covers the value; smaller pieces are refused):
 * NULL and *out, or why it cannot be read (in a). With r NULL only the
 * checks run: pass 2 reports its refusals at the variable, and a
 * backend rendering the same program later meets none.
 */
const char *dwloc_eval(struct arena *a, const struct dwloc_prog *p,
		       unsigned value_size, const struct dwloc_render *r,
		       void *ctx, struct dwloc_value *out);

/* Open the debug vmlinux; NULL and a malloc'ed *err on failure. */
struct dwloc_file *dwloc_open(const char *vmlinux, char **err);
void dwloc_close(struct dwloc_file *f);
/* The file read (its symbols: elf_file_dwarf_layout's for a .ko). */
struct elf_file *dwloc_elf(struct dwloc_file *f);

/*
 * The location of variable name (without '$') of the function whose
 * out-of-line copy starts at addr in CU number cu. Returns NULL and fills
 * *out, or an error message (in a).
 */
const char *dwloc_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, struct dwloc_prog *out);

/*
 * A variable defined at the top of CU number cu (a file's static or
 * global, DW_AT_location a DW_OP_addr program): NULL, *out and its C type
 * as -L spells it (*c_type, in a), or an error message.
 */
const char *dwloc_global(struct dwloc_file *f, struct arena *a, uint32_t cu,
			 const char *name, struct dwloc_prog *out,
			 const char **c_type);

/*
 * A global variable for @var("name@file"): at the top of the CU whose
 * name ends with file (the shortest such name), or, file NULL, of the
 * first CU that defines it, else declares it. As dwloc_global, whose
 * messages it shares; a declaration's address is the symbol table's.
 */
const char *dwloc_global_named(struct dwloc_file *f, struct arena *a,
			       const char *file, const char *name,
			       struct dwloc_prog *out, const char **c_type);

/*
 * The same at pc inside that copy (kernel.statement): the innermost
 * lexical block around pc that declares name, its location at pc. The
 * stack frame and the entry's values are not known there.
 */
const char *dwloc_var_at(struct dwloc_file *f, struct arena *a,
			 uint64_t entry, uint32_t cu, uint64_t pc,
			 const char *name, struct dwloc_prog *out);

/*
 * The scalar type of variable name of the function at addr in CU cu
 * (pc not 0: of the innermost scope around pc that declares it), through
 * typedefs and qualifiers: a base type, an enum or a pointer (*size
 * bytes, *is_signed). False for any other type (a struct, an array) or
 * no such variable.
 */
bool dwloc_var_scalar(struct dwloc_file *f, uint64_t addr, uint32_t cu,
		      uint64_t pc, const char *name, unsigned *size,
		      bool *is_signed);

/* A variable of a function, in DWARF order (for $$parms, $$locals). */
struct dwloc_name {
	const char *name;
	bool is_param;
	char shape;		/* its type: '{' struct, union or class, '['
				 * array, 0 anything else */
	const char *tag;	/* a named struct's or union's type:
				 * "struct fd", or NULL */
};

/*
 * The named parameters and variables of the function at addr in CU cu
 * (its own children, as -L looks at them): the count, or -1 when there is
 * no such function; *out in a.
 */
int dwloc_names(struct dwloc_file *f, struct arena *a, uint64_t addr,
		uint32_t cu, struct dwloc_name **out);

/*
 * The same at pc inside that copy (kernel.statement), as SystemTap lists
 * them: the innermost lexical block around pc first, the function's own
 * last.
 */
int dwloc_names_at(struct dwloc_file *f, struct arena *a, uint64_t entry,
		   uint32_t cu, uint64_t pc, struct dwloc_name **out);

#endif /* TARGET_DWLOC_H */
