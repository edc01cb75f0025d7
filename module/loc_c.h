/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Location programs (elf/elf.h) rendered by the module backend as C over
 * the probed function's `struct pt_regs *regs` and the kernel's memory.
 * The program is run symbolically: each stack entry is a C expression
 * (u64), a DW_OP_deref becomes a fault-safe read into a temporary. At a
 * function's entry the canonical frame address is the stack pointer plus
 * the return address, so DW_OP_call_frame_cfa (the usual frame base) is
 * regs->sp + 8, and DW_OP_entry_value(X) is X.
 *
 * Memory: strings in the caller's arena.
 */
#ifndef CODEGEN_LOC_C_H
#define CODEGEN_LOC_C_H

#include "elf/elf.h"
#include "lib/arena.h"
#include "target/dwloc.h"

enum dwloc_kind {
	DWL_REGISTER,		/* expr is the register's value */
	DWL_VALUE,		/* expr is the value (DW_OP_stack_value) */
	DWL_MEMORY,		/* expr is the address of the value */
};

/*
 * C code over `struct pt_regs *regs`: code (statements, maybe "") runs
 * first and may `goto fault` after storing the faulting address in
 * stp_addr (a u64 in scope); expr is then a u64 expression.
 */
struct dwloc {
	enum dwloc_kind kind;
	const char *code;
	const char *expr;
	const char *reg;	/* DWL_REGISTER: its pt_regs member */
};

/*
 * Render p. value_size is the size of the variable's type (a first
 * DW_OP_piece as large covers the value; smaller pieces are refused).
 * NULL and *out, or why not (in a).
 */
const char *loc_c(struct arena *a, const struct dwloc_prog *p,
		  unsigned value_size, struct dwloc *out);

/* dwloc_var() and dwloc_var_at() (target/dwloc.h), rendered. */
const char *loc_c_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, unsigned value_size,
		      struct dwloc *out);
const char *loc_c_var_at(struct dwloc_file *f, struct arena *a,
			 uint64_t entry, uint32_t cu, uint64_t pc,
			 const char *name, unsigned value_size,
			 struct dwloc *out);

#endif /* CODEGEN_LOC_C_H */
