// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Call frame information for unwinding (see elf.h): the rules at a pc,
 * from .eh_frame (the file's own, what a user program has) else from
 * .debug_frame (the DWARF's, what vmlinux has). libdw evaluates the CIE
 * and FDE programs; this file reads its answer back into rules.
 */
#define _GNU_SOURCE
#include "elf/internal.h"

#include <dwarf.h>
#include <stdlib.h>

#include "elf/arch.h"

/* CFA [+ N] [stack_value]: the offset rules libdw describes. */
static bool cfa_plus(const Dwarf_Op *ops, size_t n, struct elf_rule *r)
{
	size_t i = 1;

	if (!n || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	r->offset = 0;
	if (i < n && ops[i].atom == DW_OP_plus_uconst) {
		r->offset = (int64_t)ops[i].number;
		i++;
	} else if (i + 1 < n && (ops[i].atom == DW_OP_consts ||
				 ops[i].atom == DW_OP_constu) &&
		   ops[i + 1].atom == DW_OP_plus) {
		r->offset = (int64_t)ops[i].number;
		i += 2;
	}
	r->kind = ELF_RULE_OFFSET;
	if (i < n && ops[i].atom == DW_OP_stack_value) {
		r->kind = ELF_RULE_VAL_OFFSET;
		i++;
	}
	return i == n;
}

static void reg_rule(Dwarf_Frame *frame, unsigned regno, struct elf_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	r->kind = ELF_RULE_EXPR;
	r->reg = 0;
	r->offset = 0;
	if (dwarf_frame_register(frame, (int)regno, mem, &ops, &n) != 0)
		return;
	if (n == 0) {
		r->kind = ops ? ELF_RULE_UNDEFINED : ELF_RULE_SAME;
		return;
	}
	if (cfa_plus(ops, n, r))
		return;
	r->kind = ELF_RULE_EXPR;
	if (n == 2 && ops[0].atom == DW_OP_bregx && ops[0].number2 == 0 &&
	    ops[1].atom == DW_OP_stack_value) {
		r->kind = ELF_RULE_REGISTER;
		r->reg = (unsigned)ops[0].number;
	}
}

static int rules_at(Dwarf_CFI *cfi, uint64_t pc, struct elf_frame *out)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Addr start, end;
	bool signalp;
	int ra;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
		return -1;
	ra = dwarf_frame_info(frame, &start, &end, &signalp);
	out->start = start;
	out->end = end;
	out->signal_frame = signalp;
	out->ra_reg = ra >= 0 ? (unsigned)ra : ARCH_RA_REG;
	out->cfa.kind = ELF_RULE_EXPR;
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
	    ops[0].atom == DW_OP_bregx) {
		out->cfa.kind = ELF_RULE_REG_OFFSET;
		out->cfa.reg = (unsigned)ops[0].number;
		out->cfa.offset = (int64_t)ops[0].number2;
	}
	reg_rule(frame, out->ra_reg, &out->ra);
	reg_rule(frame, ARCH_FP_REG, &out->fp);
	free(frame);
	return 0;
}

int elf_file_cfi_at(struct elf_file *f, uint64_t pc, struct elf_frame *out,
		    const char **why)
{
	if (!f->cfi_done) {
		f->cfi_done = true;
		f->eh_cfi = dwarf_getcfi_elf(f->elf);
		if (elf_file_dwarf(f))
			f->debug_cfi = dwarf_getcfi(f->dw);
	}
	if (!f->eh_cfi && !f->debug_cfi) {
		*why = "no .eh_frame or .debug_frame";
		return -1;
	}
	if (rules_at(f->eh_cfi, pc, out) == 0 ||
	    rules_at(f->debug_cfi, pc, out) == 0)
		return 0;
	*why = "no frame description covers that address";
	return -1;
}
