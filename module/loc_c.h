/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Location programs (elf/elf.h, run by target/dwloc.h's dwloc_eval)
 * rendered by the module backend as C over the probed function's
 * `struct pt_regs *regs` and the kernel's memory: each value is a C
 * expression (u64), a DW_OP_deref a fault-safe read into a temporary.
 * The frame address at a function's entry is regs->sp + 8.
 *
 * Memory: strings in the caller's arena.
 */
#ifndef MODULE_LOC_C_H
#define MODULE_LOC_C_H

#include "elf/elf.h"
#include "lib/arena.h"
#include "target/dwloc.h"

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
 * NULL and *out, or why not (in a): dwloc_eval's refusals, which pass 2
 * has reported already for a program it accepted.
 */
const char *loc_c(struct arena *a, const struct dwloc_prog *p,
		  unsigned value_size, struct dwloc *out);

/* The same for a program of a module's variable (p->mod_sym): its
 * symbol's run-time address is stp_modsyms[mod_slot].addr
 * (runtime/kfunc.h). */
const char *loc_c_slot(struct arena *a, const struct dwloc_prog *p,
		       unsigned value_size, int mod_slot, struct dwloc *out);

/* dwloc_var() and dwloc_var_at() (target/dwloc.h), rendered. */
const char *loc_c_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, unsigned value_size,
		      struct dwloc *out);
const char *loc_c_var_at(struct dwloc_file *f, struct arena *a,
			 uint64_t entry, uint32_t cu, uint64_t pc,
			 const char *name, unsigned value_size,
			 struct dwloc *out);

#endif /* MODULE_LOC_C_H */
