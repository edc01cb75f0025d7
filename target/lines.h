/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A line table for the script functions that name the source file and
 * line of an address (usymfileline(), symfileline() and friends), as
 * both backends carry it (module/lines.c in the module, bpf/ustack.c in
 * the BPF program): from a file's DWARF line programs through elf/, a
 * row per change of file or line, sorted by address, line 0 a gap (a
 * sequence's end). Addresses are link-time ones less *base.
 */
#ifndef TARGET_LINES_H
#define TARGET_LINES_H

#include <stdint.h>

struct elf_file;

struct line_row {
	uint64_t addr;			/* less the table's base */
	int line, file;			/* file: an index of files[] */
};

struct line_table {
	struct line_row *rows;		/* malloc'd */
	int nrows;
	const char **files;		/* malloc'd; the names are libdw's,
					 * valid while f is open */
	int nfiles;
};

/*
 * f's table: all of it, or (cus) that of those compilation units
 * (elf_file_cu_at()'s offsets). *base UINT64_MAX: set to the lowest
 * address. Its number of rows; 0 (t empty) when f has no DWARF lines,
 * or an address below *base or too far above it for 32 bits.
 */
int line_table_build(struct elf_file *f, const uint64_t *cus, int ncus,
		     uint64_t *base, struct line_table *t);
void line_table_free(struct line_table *t);

#endif /* TARGET_LINES_H */
