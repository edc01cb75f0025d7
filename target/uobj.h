/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A user object's tables for user stacks and symbols, as both backends
 * carry them (module/unwind.c in the module, bpf/ustack.c in the BPF
 * program): its function symbols sorted by address, each with its extent
 * as SystemTap's tables give it (up to the next symbol), and its unwind
 * rows from the CFI (.eh_frame, else .debug_frame), one per change of
 * rules inside each function: the CFA as rsp or rbp plus an offset and
 * where the return address and the caller's rbp are saved, or a row
 * where no rule is known (a gap between functions, an expression rule).
 * No frame pointer is needed. Addresses are link-time ones.
 */
#ifndef TARGET_UOBJ_H
#define TARGET_UOBJ_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/arena.h"

struct elf_file;

struct uobj_sym {
	uint64_t addr, size;
	const char *name;		/* without its version (@GLIBC_2.34) */
};

/* Rules from pc on; cfa_reg 0 rsp, 1 rbp, 255 unknown (then the other
 * members are 0). */
struct uobj_row {
	uint64_t pc;
	int cfa_off;
	int cfa_reg;
	int ra_off, fp_off;
};

struct uobj {
	const char *path;		/* as given */
	const char *base;		/* its last component */
	uint64_t ino;			/* the file's identity at run time: */
	int64_t size;			/* inode number and size */
	uint64_t span;			/* the extent the dynamic loader
					 * reserves for it */
	bool dyn;			/* ET_DYN: mapped at a bias */
	struct uobj_sym *syms;		/* malloc'd, unique addresses */
	int nsyms;
	struct uobj_row *rows;		/* malloc'd, sorted by pc */
	int nrows;
	struct elf_file *f;		/* open until uobj_close */
};

/* Path's tables (names in a); false with *err (malloc'd, or NULL) when
 * the file cannot be read. */
bool uobj_load(struct arena *a, const char *path, struct uobj *o, char **err);
void uobj_close(struct uobj *o);

/* -c CMD's program when the loader runs CMD without a shell (its first
 * word, found as userpath_program finds it), or NULL. */
const char *uobj_command_program(struct arena *a, const char *cmd);

#endif /* TARGET_UOBJ_H */
