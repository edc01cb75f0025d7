/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the files of elf/ share: the open file. */
#ifndef ELF_INTERNAL_H
#define ELF_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "elf/libdw.h"
#include "lib/arena.h"

struct elf_file {
	struct arena arena;
	const char *path;
	int fd;			/* -1 for a memory image */
	Elf *elf;
	/* the separate debug file, when there is one, and the DWARF: looked
	 * for on first use (need_dwarf) */
	const char *debug_root;	/* NULL for a memory image */
	bool dw_done;
	const char *debug_path;
	int debug_fd;
	Elf *debug_elf;
	Dwarf *dw;		/* from debug_elf or elf */
	Dwfl *dwfl;		/* a relocatable file's: owns dw */
	Dwfl_Module *mod;
	Dwarf_CFI *eh_cfi, *debug_cfi;
	bool cfi_done;
	const char *build_id;	/* hex; "" until read, NULL none */
	bool build_id_done;
	/* symbols, read on first use */
	struct elf_sym *syms;	/* in table order */
	int nsyms;
	int *by_addr;		/* defined FUNC/OBJECT symbols by address */
	int nby_addr;
	bool syms_done, by_addr_done;
	/* elf_file_dwarf_layout(): each section's address in the DWARF's
	 * layout, by section index (0 where the section is not loaded) */
	uint64_t *layout;
	size_t nlayout;
};

/* The section named name of elf, or NULL. */
Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *shdr);

#endif /* ELF_INTERNAL_H */
