/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel function catalog for kernel.function("PATTERN[@FILE[:LINE]]").
 *
 * Built from the DWARF of the kernel's debug vmlinux (Debian:
 * linux-image-RELEASE-dbg, /usr/lib/debug/boot/vmlinux-RELEASE) plus its
 * ELF symbol table. A function is what SystemTap prints as one probe point,
 * "NAME@DECL_FILE:DECL_LINE"; each has instances, the places a probe would
 * go: out-of-line copies (entry pc) and inlined copies (entry pc of the
 * DW_TAG_inlined_subroutine). Each instance carries the variables
 * SystemTap's -L would show for it: the instance DIE's own parameters and
 * variables that have a name, a C type name and a location at the entry pc
 * (or a constant value). Functions found only in the symbol table (assembly,
 * no DWARF) are kept apart, as SystemTap lists them without @FILE.
 *
 * The catalog is cached in cache_dir as a text file keyed by the release
 * and the vmlinux path, size and mtime; a cold build reads the whole
 * .debug_info (seconds), a warm load only the cache file.
 *
 * Memory: everything lives in c->arena; kf_catalog_free() releases it.
 * Arrays returned by kf_catalog_match() are malloc'ed (kf_points_free()).
 */
#ifndef TARGET_FUNCTIONS_H
#define TARGET_FUNCTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/arena.h"

/* kf_inst.flags */
#define KF_INST_INLINE	0x01	/* an inlined copy */
#define KF_INST_REFUSED	0x02	/* in .init.* / .exit.* / kprobes text */
#define KF_INST_PART	0x04	/* a ".part.N" piece of a partial inline */
#define KF_INST_RANGES	0x08	/* entry from DW_AT_ranges, no low_pc */

struct kf_inst {
	uint64_t addr;		/* entry pc, link-time address */
	uint32_t cu;		/* CU number, in .debug_info order; for a
				 * symbol-table function its symbol's index */
	uint32_t vars;		/* index into kf_catalog.lists */
	uint32_t flags;
};

/* kfunc.flags */
#define KF_EXTERNAL	0x01	/* DW_AT_external */
#define KF_EXPORTED	0x02	/* the symbol of that name is a global FUNC */
#define KF_SYMTAB	0x04	/* only in the symbol table: no file, line, vars */

struct kfunc {
	const char *name;
	const char *file;	/* decl file as SystemTap prints it; "" if none */
	int line;		/* decl line; 0 if none */
	uint32_t flags;
	const char *ret_type;	/* C type of the return value; NULL: none */
	struct kf_inst *inst;	/* by CU, out-of-line copies first in a CU */
	int ninst;
	/* Other symbols at an out-of-line copy's address (memcpy for
	 * __memcpy): a pattern matching one of them finds this function,
	 * which is still listed under its own name. */
	const char **aliases;
	int naliases;
};

struct kf_catalog {
	struct kfunc *funcs;	/* sorted by name, file, line */
	int n;
	/* Variable lists: lists[i] points at a count followed by that many
	 * indexes into vars[] ("name:type" strings). */
	const uint32_t **lists;
	int nlists;
	const char **vars;
	int nvars;
	int ncus;
	int ninst, ninline;	/* instances in all, inlined ones */
	int from_cache;		/* loaded from the cache file */
	const char *vmlinux;	/* the file the catalog describes */
	struct arena arena;
};

/* The suffix after kernel.function("..."), which picks instances. */
enum kf_kind {
	KF_ANY,			/* kernel.function("f") */
	KF_CALL,		/* .call: out-of-line copies only */
	KF_INLINE,		/* .inline: inlined copies only */
	KF_RETURN,		/* .return: out-of-line copies, plus $return */
	KF_EXPORTED_ONLY,	/* .exported: global FUNC symbols only */
};

struct kf_query {
	const char *func;	/* fnmatch pattern on the name */
	const char *file;	/* NULL, or a pattern on the decl file */
	/* -1, or a line after the file: SystemTap 4.8 probes the function
	 * itself anyway (warning that .statement is meant for lines), so
	 * it only rules the symbol table out, like a file does */
	int line;
	enum kf_kind kind;
	bool guru;		/* -g: the name/file/section blocklist is off */
};

/* One probe point of a query: a function and its instances kept. */
struct kf_point {
	const struct kfunc *f;
	const struct kf_inst **inst;	/* in SystemTap's discovery order */
	int ninst;
	/* -L's variables: those every instance has, "$name:type" (and
	 * "$return:type" first for .return), in the first instance's order */
	const char **vars;
	int nvars;
};

/*
 * Where the debug vmlinux of RELEASE is, or NULL; *tried gets the first
 * path looked at (for the error message), in a.
 */
const char *kf_find_vmlinux(const char *release, struct arena *a,
			    const char **tried);

/*
 * Load the catalog of VMLINUX (the kernel RELEASE's debug image). cache_dir
 * NULL disables the cache (one that cannot be written is skipped). Returns
 * 0, or -1 with a malloc'ed message in *err.
 */
int kf_catalog_load(const char *release, const char *vmlinux,
		    const char *cache_dir, struct kf_catalog *out, char **err);

/*
 * The probe points of a query, as SystemTap resolves them: fnmatch on the
 * name (and on the decl file, also as "* / FILE"), instances picked by the
 * kind, blocklisted functions and sections left out unless q->guru,
 * out-of-line copies at an address already taken dropped, symbol-table
 * functions added when no file is given. *out gets a malloc'ed array
 * sorted by function (name, file, line); returns its length.
 */
int kf_catalog_match(const struct kf_catalog *c, const struct kf_query *q,
		     struct kf_point **out);
void kf_points_free(struct kf_point *p, int n);

/* SystemTap's kernel blocklist (function names, files); see functions.c. */
bool kf_blocklisted(const char *name, const char *file, bool ret);

void kf_catalog_free(struct kf_catalog *c);

/*
 * kernel.statement("FUNC[@FILE[:LINES|+N]]"): one point per line of each
 * copy (out of line or inlined) of each function FUNC matches (fnmatch
 * patterns in FUNC and FILE), at the lowest address of that line inside
 * the copy (any line record of FILE:LINE whose address the copy covers,
 * as SystemTap takes them, is_stmt or not; a line starting at the address
 * of a lower one is left out). LINES is N, N-M or "*" (from the line of
 * the copy's first line record, each line of the file upwards while it
 * has a record inside the copy); +N is the declaration line plus N; no
 * line: the copy's entry, at the declaration line.
 */
struct kf_stmt {
	const char *func, *file;	/* the catalog's strings */
	int line;
	uint64_t addr;			/* link-time address of the probe */
	uint64_t entry;			/* the copy's entry pc */
	uint32_t cu;			/* the copy's kf_inst.cu */
	const char **vars;		/* -L's "$name:type", NULL-terminated;
					 * only with want_vars */
};

/*
 * Returns how many points (*out malloc'ed, sorted by function, file, line,
 * address; when none, why in a malloc'ed *err), -1 with a malloc'ed
 * message in *err (a file it cannot read), -2 when arg is not one of the
 * forms above.
 */
int kf_statement_points(const struct kf_catalog *c, const char *vmlinux,
			const char *arg, bool guru, bool want_vars,
			struct kf_stmt **out, char **err);
void kf_stmts_free(struct kf_stmt *p, int n);

#endif /* TARGET_FUNCTIONS_H */
