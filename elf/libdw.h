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
#include "lib/strbuf.h"

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

/*
 * Shortcuts for a reader of every DIE of a vmlinux (the function
 * catalog): the same answers as libdw's, without what libdw keeps per CU
 * that such a reader never uses again.
 */
/* Whether location attribute a covers pc. */
bool elf_located_at(Dwarf_Attribute *a, uint64_t pc);

/* The function fn, then its lexical blocks around pc, inwards, into sc
 * (at most max): how many. */
int elf_scopes_at(Dwarf_Die *fn, uint64_t pc, Dwarf_Die *sc, int max);

/* The parameter or variable name declared directly in scope, in *out. */
bool elf_find_var_child(Dwarf_Die *scope, const char *name, Dwarf_Die *out);

/* elf_located_at() without libdw's cache of parsed expressions, for
 * readers of every variable (loc_cover.c): the same answers. */
struct elf_loc_cover {
	const unsigned char *info, *lists;	/* NULL: libdw reads */
	size_t ninfo, nlists;
	/* the CU asked about last */
	Dwarf_CU *cu;
	bool fast;		/* read here, not by libdw */
	int asz, osz;
	uint64_t base;
};

void elf_loc_cover_init(struct elf_loc_cover *l, Elf *elf);
bool elf_loc_cover_at(struct elf_loc_cover *l, Dwarf_Attribute *a, uint64_t pc);

/* Declaration files read from the line program's header only (decl_files.c):
 * dwarf_decl_file() without the CU's decoded line table. */
struct elf_decl_file_name {
	const char *name;
	uint64_t dir;		/* index into dirs */
};

struct elf_decl_files {
	const unsigned char *line, *line_str, *str;	/* NULL: libdw reads */
	size_t nline, nline_str, nstr;
	/* the table read last: the CU DIE's offset, whether it was read */
	Dwarf_Off cu_off;
	bool ok;
	int version;
	const char **dirs;	/* DWARF 2-4: [0] is DW_AT_comp_dir or NULL */
	int ndirs, capdirs;
	struct elf_decl_file_name *files;
	int nfiles, capfiles;
	struct strbuf name;	/* the name returned last */
};

void elf_decl_files_init(struct elf_decl_files *ff, Elf *elf);
void elf_decl_files_free(struct elf_decl_files *ff);
/* dwarf_decl_file(die), the same string; valid until the next call. */
const char *elf_decl_file(struct elf_decl_files *ff, Dwarf_Die *die);

#endif /* ELF_LIBDW_H */
