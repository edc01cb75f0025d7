// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86-64 registers (see arch.h). The DWARF numbering is the psABI's:
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then 16 the return address.
 */
#include "elf/arch.h"

#include <string.h>

struct reg {
	const char *q, *d, *w, *b;	/* 64, 32, 16, 8-bit names */
	const char *pt_regs;
};

static const struct reg regs[] = {
	{ "rax", "eax", "ax", "al", "ax" },
	{ "rdx", "edx", "dx", "dl", "dx" },
	{ "rcx", "ecx", "cx", "cl", "cx" },
	{ "rbx", "ebx", "bx", "bl", "bx" },
	{ "rsi", "esi", "si", "sil", "si" },
	{ "rdi", "edi", "di", "dil", "di" },
	{ "rbp", "ebp", "bp", "bpl", "bp" },
	{ "rsp", "esp", "sp", "spl", "sp" },
	{ "r8", "r8d", "r8w", "r8b", "r8" },
	{ "r9", "r9d", "r9w", "r9b", "r9" },
	{ "r10", "r10d", "r10w", "r10b", "r10" },
	{ "r11", "r11d", "r11w", "r11b", "r11" },
	{ "r12", "r12d", "r12w", "r12b", "r12" },
	{ "r13", "r13d", "r13w", "r13b", "r13" },
	{ "r14", "r14d", "r14w", "r14b", "r14" },
	{ "r15", "r15d", "r15w", "r15b", "r15" },
	{ "rip", "eip", "ip", NULL, "ip" },
};

#define NREGS (sizeof(regs) / sizeof(regs[0]))

const char *arch_reg_name(unsigned regno)
{
	return regno < NREGS ? regs[regno].q : NULL;
}

const char *arch_reg_pt_regs(unsigned regno)
{
	return regno < NREGS ? regs[regno].pt_regs : NULL;
}

int arch_reg_from_asm(const char *name, unsigned *bytes)
{
	if (*name == '%')
		name++;
	for (unsigned i = 0; i < NREGS; i++) {
		const struct reg *r = &regs[i];

		if (!strcmp(name, r->q))
			*bytes = 8;
		else if (!strcmp(name, r->d))
			*bytes = 4;
		else if (!strcmp(name, r->w))
			*bytes = 2;
		else if (r->b && !strcmp(name, r->b))
			*bytes = 1;
		/* the old 8-bit high halves read bits 8..15: not a plain
		 * register value, so not offered */
		else
			continue;
		return (int)i;
	}
	return -1;
}
