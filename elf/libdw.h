/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The libelf and libdw handles of an elf_file, for readers in target/
 * that walk the DWARF themselves (the kernel's function catalog reads
 * millions of DIEs with its own shortcuts). Everything else should use
 * elf/elf.h.
 */
#ifndef ELF_LIBDW_H
#define ELF_LIBDW_H

#include <elfutils/libdw.h>
#include <libelf.h>

#include "elf/elf.h"

/* The file's own ELF handle. */
Elf *elf_file_elf(struct elf_file *f);
/* The ELF the DWARF comes from (the debug file, or the file). */
Elf *elf_file_dwarf_elf(struct elf_file *f);
/* Its DWARF, or NULL. */
Dwarf *elf_file_dwarf(struct elf_file *f);

/*
 * The program of location ops (len of them, from attr's list at pc) of a
 * variable of func (for DW_OP_fbreg's frame base and DW_OP_entry_value's
 * block), in the arena.
 */
const struct elf_loc *elf_loc_from_ops(struct elf_file *f,
				       Dwarf_Attribute *attr, Dwarf_Die *func,
				       uint64_t pc, const Dwarf_Op *ops,
				       size_t len);

/* The bytes of section want of elf when they can be read as they are
 * (present, not compressed); else *p is NULL. */
void elf_raw_section(Elf *elf, const char *want, const unsigned char **p,
		     size_t *n);

#endif /* ELF_LIBDW_H */
