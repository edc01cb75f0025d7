/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The machine's registers, in one place (arch_x86_64.c): DWARF register
 * numbers, their names in assembly (as sys/sdt.h arguments and the
 * tapsets' register() spell them) and their members of the kernel's
 * struct pt_regs. Everything that names a register (location programs,
 * CFI rules, SDT argument specs, the C written over pt_regs) asks here.
 */
#ifndef ELF_ARCH_H
#define ELF_ARCH_H

#include <stdbool.h>

/* DWARF numbers 0..ARCH_NGPR-1 are the general purpose registers. */
#define ARCH_NGPR 16
/* The return address column of the CFI (the instruction pointer). */
#define ARCH_RA_REG 16
#define ARCH_SP_REG 7
#define ARCH_FP_REG 6		/* the frame pointer (rbp): CFA rules may use it */

/* The 64-bit name of DWARF register regno ("rax"), or NULL. */
const char *arch_reg_name(unsigned regno);

/* Its member of struct pt_regs ("ax"; "ip" for the return address
 * column), or NULL when pt_regs has none. */
const char *arch_reg_pt_regs(unsigned regno);

/*
 * The DWARF number of a register named in assembly, with or without
 * '%': "rax", "eax", "ax", "al", "r8d", "r8w", "r8b", "rip" (the return
 * address column). *bytes gets the width the name reads (8, 4, 2, 1).
 * -1 when it names no general purpose register.
 */
int arch_reg_from_asm(const char *name, unsigned *bytes);

#endif /* ELF_ARCH_H */
