/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one reader of ELF files and their DWARF: vmlinux, a kernel module,
 * a user program or a shared library. Nothing here knows a kernel
 * release's policy (which vmlinux, blocklists, caches: target/ decides);
 * this folder includes only lib/ and system headers.
 *
 * A struct elf_file is opened once. Its DWARF and CFI may come from a
 * separate debug file, found by build-id
 * (DEBUG_ROOT/.build-id/xx/rest.debug) and then by .gnu_debuglink (next
 * to the file, in its .debug/ directory, and under DEBUG_ROOT plus the
 * file's directory), each checked against the build-id or CRC. Symbols
 * and notes are read from the file itself (its .symtab, else the debug
 * file's, else .dynsym).
 *
 * Addresses are link-time addresses (st_value, DW_AT_low_pc), as the
 * file has them; a caller adds a load bias itself. A relocatable file's
 * (a .ko's) sections all start at 0 in the file: its DWARF is read with
 * the sections laid out one after another (libdwfl's offline layout),
 * and elf_file_section_offset() turns such an address into the section
 * and offset a kernel module's probe is placed by.
 *
 * Memory: every string and array returned lives in the file's arena and
 * stays valid until elf_file_close(). Errors are malloc'ed strings the
 * caller frees.
 */
#ifndef ELF_ELF_H
#define ELF_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/arena.h"

struct elf_file;

/* The debug root when the caller gives none. */
#define ELF_DEBUG_ROOT "/usr/lib/debug"

/*
 * Open path. debug_root NULL means ELF_DEBUG_ROOT. NULL and *err when
 * the file cannot be read as ELF; a missing debug file is no error
 * (elf_file_has_dwarf() says so).
 */
struct elf_file *elf_file_open(const char *path, const char *debug_root,
			       char **err);
/* An image already in memory (a decompressed kernel): no debug file is
 * looked for; img must outlive the elf_file. */
struct elf_file *elf_file_open_memory(const void *img, size_t len,
				      char **err);
void elf_file_close(struct elf_file *f);

struct arena *elf_file_arena(struct elf_file *f);
const char *elf_file_path(const struct elf_file *f);
/* ET_EXEC, ET_DYN, ET_REL */
unsigned elf_file_type(const struct elf_file *f);
/* ELFCLASS64, ELFCLASS32 */
unsigned elf_file_class(const struct elf_file *f);
/* The build-id as lower-case hex, or NULL. */
const char *elf_file_build_id(struct elf_file *f);
/* The .gnu_debuglink name, or NULL. */
const char *elf_file_debuglink(struct elf_file *f);
/* The file the DWARF is read from (the file itself or its debug file),
 * or NULL when there is none. */
const char *elf_file_debug_path(struct elf_file *f);
bool elf_file_has_dwarf(struct elf_file *f);

/*
 * Section name of the file itself: its bytes (decompressed when
 * SHF_COMPRESSED), size and link-time address. 0; -1 when there is no
 * such section; -2 when its bytes are not in the file (SHT_NOBITS, past
 * the end, not decompressible). *why (static) says which.
 */
int elf_file_section(struct elf_file *f, const char *name,
		     const void **data, size_t *size, uint64_t *addr,
		     const char **why);

/*
 * A relocatable file (a .ko with its DWARF): report its sections and its
 * symbols at the addresses of the DWARF's layout from here on, so that a
 * symbol's address and a DW_AT_low_pc compare. Call it before the first
 * elf_file_symbols()/elf_file_symbol_at(); false (nothing changes) for
 * another kind of file or one without DWARF.
 */
bool elf_file_dwarf_layout(struct elf_file *f);

/* The section an address of the DWARF lies in, and its offset there
 * (see above): true and *name, *offset. */
bool elf_file_section_offset(struct elf_file *f, uint64_t addr,
			     const char **name, uint64_t *offset);

/* The offset in the file of link-time address addr, through the
 * loadable segment (PT_LOAD) that maps it: true and *offset (what the
 * kernel's uprobes take for a place in a program or library). */
bool elf_file_addr_offset(struct elf_file *f, uint64_t addr,
			  uint64_t *offset);

struct elf_section {
	const char *name;
	unsigned type;		/* SHT_PROGBITS, ... */
	uint64_t flags;		/* SHF_ALLOC, ... */
	uint64_t addr, size;
};

/* Call fn for each section of the file, in header order (fn returning
 * nonzero stops the walk with that value). Returns it, 0, or -1 when the
 * section headers cannot be read. */
int elf_file_sections(struct elf_file *f,
		      int (*fn)(const struct elf_section *s, void *arg),
		      void *arg);

/* ------------------------------------------------------------------ */
/* Symbols and the PLT */

struct elf_sym {
	const char *name;
	uint64_t addr;		/* st_value */
	uint64_t size;
	unsigned char type;	/* STT_FUNC, STT_OBJECT, ... */
	unsigned char bind;	/* STB_GLOBAL, STB_LOCAL, STB_WEAK */
	uint16_t shndx;		/* SHN_UNDEF for an import */
	uint32_t index;		/* in its symbol table */
};

/*
 * Call fn for each named symbol of the symbol table (.symtab of the file,
 * else of its debug file, else .dynsym), in table order; fn returning
 * nonzero stops the walk with that value. Returns it, or 0, or -1 when
 * there is no symbol table.
 */
int elf_file_symbols(struct elf_file *f,
		     int (*fn)(const struct elf_sym *s, void *arg), void *arg);

/* The defined function or object symbol containing addr (the nearest
 * below it when sizes are 0): true and *out. */
bool elf_file_symbol_at(struct elf_file *f, uint64_t addr,
			struct elf_sym *out);

/* The defined symbol called name: true and *out. */
bool elf_file_symbol(struct elf_file *f, const char *name,
		     struct elf_sym *out);

struct elf_plt {
	const char *name;	/* the imported function: "puts" */
	uint64_t addr;		/* its stub in .plt.sec or .plt */
};

/* The PLT stubs of a program or shared library, by their GOT slot
 * (.rela.plt's R_X86_64_JUMP_SLOT entries; the stubs of .plt.sec when
 * the file has one, else of .plt after its first): the count (0 when
 * there is no PLT), *out in the arena. .plt.got stubs are not listed. */
int elf_file_plt(struct elf_file *f, const struct elf_plt **out);

/* ------------------------------------------------------------------ */
/* Functions, inlined instances, line tables (from the DWARF) */

struct elf_range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct elf_func {
	const char *name;
	bool inlined;		/* a DW_TAG_inlined_subroutine */
	uint64_t entry_pc;
	const struct elf_range *ranges;
	int nranges;
	const char *decl_file;	/* NULL when unknown */
	int decl_line;
	/* an inlined instance: where it was inlined, the function whose
	 * body it is in */
	const char *call_file;
	int call_line;
	const char *caller;
	/* where the DIE is, for elf_var_location() and friends */
	uint64_t die;
};

/*
 * Call fn for each function with code: every out-of-line
 * DW_TAG_subprogram and every inlined instance in it, in DWARF order.
 * fn returning nonzero stops the walk with that value. Returns it, 0, or
 * -1 without DWARF. The elf_func and its arrays are valid during the
 * call only; copy what is kept.
 */
int elf_file_functions(struct elf_file *f,
		       int (*fn)(const struct elf_func *fn, void *arg),
		       void *arg);

struct elf_line {
	uint64_t addr;
	const char *file;	/* as the line table names it: a full path */
	int line, column;
	bool is_stmt;
};

/* The line table row covering addr: true and *out (file in the arena). */
bool elf_file_line_at(struct elf_file *f, uint64_t addr,
		      struct elf_line *out);

/*
 * Every row of every line table, CU by CU in the file's order, each
 * sequence's rows by address and its end_sequence row last (with
 * end set). fn's row, its file name too, is valid during the call
 * only (the names are libdw's, one per file of the CU); fn
 * returning nonzero stops the walk with that value. Returns it, 0, or
 * -1 without DWARF.
 */
int elf_file_line_rows(struct elf_file *f,
		       int (*fn)(const struct elf_line *row, bool end,
				 void *arg),
		       void *arg);

/*
 * Where SystemTap 4.8 puts a probe on the function whose out-of-line
 * copy starts at entry: after its prologue when its compilation unit was
 * built without optimisation (its producer names no -O above -O0; the
 * parameters are in their stack slots only from there), at the first
 * line-table row after entry inside the function; else entry.
 */
uint64_t elf_file_after_prologue(struct elf_file *f, uint64_t entry);

/* The compilation unit covering addr (its DIE's offset), or 0. */
uint64_t elf_file_cu_at(struct elf_file *f, uint64_t addr);

/* elf_file_line_rows() for one compilation unit (elf_file_cu_at()'s). */
int elf_file_cu_line_rows(struct elf_file *f, uint64_t cu_off,
			  int (*fn)(const struct elf_line *row, bool end,
				    void *arg),
			  void *arg);

/*
 * The addresses of file:line, where file is a path or a suffix of one
 * ("prog.c" matches "/tmp/x/prog.c") and the rows are statements: the
 * count, *out in the arena (lowest address of each block first).
 */
int elf_file_lines_of(struct elf_file *f, const char *file, int line,
		      const struct elf_line **out);

/* ------------------------------------------------------------------ */
/* Location expressions, as programs */

enum elf_loc_kind {
	ELF_LOC_REG,		/* the value is in register reg: the end */
	ELF_LOC_BREG,		/* push reg + offset */
	ELF_LOC_FBREG,		/* push frame base + offset (frame_base) */
	ELF_LOC_CFA,		/* push the canonical frame address */
	ELF_LOC_ADDR,		/* push a link-time address (value) */
	ELF_LOC_CONST,		/* push value (is_signed: a signed one) */
	ELF_LOC_DEREF,		/* pop an address, push size bytes there */
	ELF_LOC_STACK,		/* a stack or arithmetic op: atom, value
				 * (DW_OP_dup, DW_OP_plus_uconst, ...) */
	ELF_LOC_STACK_VALUE,	/* the value is the top of the stack */
	ELF_LOC_PIECE,		/* the piece so far is size bytes */
	ELF_LOC_ENTRY_VALUE,	/* push the value sub had at the entry */
	ELF_LOC_IMPLICIT,	/* an implicit value or pointer */
	ELF_LOC_PARAM_REF,	/* a caller's argument (DW_OP_GNU_parameter_ref) */
	ELF_LOC_OTHER,		/* an op this reader does not model: atom */
};

struct elf_loc;

struct elf_loc_op {
	enum elf_loc_kind kind;
	unsigned atom;		/* the DWARF op it came from */
	unsigned reg;		/* REG, BREG: DWARF register number */
	int64_t offset;		/* BREG, FBREG */
	uint64_t value;		/* ADDR, CONST, STACK's operand */
	bool is_signed;		/* CONST */
	uint64_t size;		/* DEREF, PIECE */
	const struct elf_loc *sub;	/* ENTRY_VALUE: its block, or NULL
					 * when it could not be read */
};

struct elf_loc {
	const struct elf_loc_op *ops;
	int n;
	uint64_t pc;		/* where it holds */
	/* the function's DW_AT_frame_base at pc, for FBREG; NULL when it
	 * has none there */
	const struct elf_loc *frame_base;
};

/* The location of variable or parameter name of the function (or
 * inlined instance) whose DIE is func, at pc: the innermost lexical
 * block around pc that declares it. */
enum elf_var_result {
	ELF_VAR_LOCATION,	/* *loc holds the program */
	ELF_VAR_CONST,		/* DW_AT_const_value: *value */
	ELF_VAR_NONE,		/* no such variable */
	ELF_VAR_NO_LOCATION,	/* declared, but no location at pc */
};

enum elf_var_result elf_var_location(struct elf_file *f, uint64_t func,
				     const char *name, uint64_t pc,
				     const struct elf_loc **loc,
				     int64_t *value);

/* A program as text, one op per word ("breg7 +8 deref8"), for tests and
 * debugging; in the arena. */
const char *elf_loc_text(struct elf_file *f, const struct elf_loc *loc);

/* ------------------------------------------------------------------ */
/* Types */

/*
 * The DWARF types of f as BTF records (the format of the kernel's type
 * table, which target/btf.h reads): split BTF on a base of base_types
 * types and base_strs bytes of strings, as a kernel module's .BTF is on
 * vmlinux's, so that btf_add_module() takes a program's types as a scope
 * of their own. A malloc'ed *blob of *len bytes; -1 and *err without
 * DWARF.
 */
int elf_file_btf(struct elf_file *f, uint32_t base_types, uint32_t base_strs,
		 uint8_t **blob, size_t *len, char **err);

/* ------------------------------------------------------------------ */
/* SystemTap SDT notes (.note.stapsdt, from sys/sdt.h) */

enum elf_sdt_kind {
	ELF_SDT_REG,		/* the register reg */
	ELF_SDT_MEM,		/* memory at reg + offset (+ index * scale),
				 * or at symbol + offset when reg < 0 */
	ELF_SDT_CONST,		/* the constant value */
};

struct elf_sdt_arg {
	const char *text;	/* as written: "-4@%eax" */
	int size;		/* bytes: 1, 2, 4, 8 */
	bool is_signed;
	enum elf_sdt_kind kind;
	int reg;		/* DWARF number; -1 none; 16 is %rip */
	int index_reg;		/* -1 none */
	int scale;
	int64_t offset;		/* MEM */
	const char *symbol;	/* MEM: "sym(%rip)", or NULL */
	int64_t value;		/* CONST */
};

struct elf_sdt {
	const char *provider, *name;
	uint64_t pc;		/* the probe's nop, adjusted for prelink */
	uint64_t base;		/* .stapsdt.base as the note says */
	uint64_t semaphore;	/* 0: none */
	const char *args;	/* the spec as written */
	const struct elf_sdt_arg *arg;
	int nargs;
	const char *error;	/* an argument that could not be parsed */
};

/* The file's SDT notes: the count, *out in the arena. */
int elf_file_sdt(struct elf_file *f, const struct elf_sdt **out);

/* Parse one argument spec ("8@-16(%rbp)") into *out: 0, or -1. */
int elf_sdt_parse_arg(struct arena *a, const char *text,
		      struct elf_sdt_arg *out);

/* ------------------------------------------------------------------ */
/* Call frame information (.eh_frame, else .debug_frame) */

enum elf_rule_kind {
	ELF_RULE_UNDEFINED,	/* not recoverable */
	ELF_RULE_SAME,		/* unchanged by this frame */
	ELF_RULE_OFFSET,	/* saved at CFA + offset */
	ELF_RULE_VAL_OFFSET,	/* is CFA + offset */
	ELF_RULE_REGISTER,	/* in register reg */
	ELF_RULE_REG_OFFSET,	/* the CFA only: reg + offset */
	ELF_RULE_EXPR,		/* a DWARF expression (not modelled) */
};

struct elf_rule {
	enum elf_rule_kind kind;
	unsigned reg;
	int64_t offset;
};

struct elf_frame {
	uint64_t start, end;	/* the pcs these rules hold for */
	unsigned ra_reg;	/* the return address column */
	struct elf_rule cfa;
	struct elf_rule ra;	/* the return address */
	struct elf_rule fp;	/* the frame pointer (ARCH_FP_REG) */
	bool signal_frame;
};

/* The unwinding rules at pc: 0, or -1 with *why (static). */
int elf_file_cfi_at(struct elf_file *f, uint64_t pc, struct elf_frame *out,
		    const char **why);

#endif /* ELF_ELF_H */
