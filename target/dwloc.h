/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DWARF locations of kernel.function context variables ($count in
 * vfs_read), as location programs (elf/elf.h) that the backend renders
 * (module/loc_c.h: C over the probed function's pt_regs).
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
};

/* Open the debug vmlinux; NULL and a malloc'ed *err on failure. */
struct dwloc_file *dwloc_open(const char *vmlinux, char **err);
void dwloc_close(struct dwloc_file *f);

/*
 * The location of variable name (without '$') of the function whose
 * out-of-line copy starts at addr in CU number cu. Returns NULL and fills
 * *out, or an error message (in a).
 */
const char *dwloc_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, struct dwloc_prog *out);

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
