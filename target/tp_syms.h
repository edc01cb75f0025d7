/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which tracepoints a kernel defines: the names NAME of its defined
 * __tracepoint_NAME (or __traceiter_NAME) symbols, in the vmlinux's
 * symbol table and in every module's under /lib/modules/RELEASE (.ko,
 * .ko.xz, .ko.gz, .ko.zst, decompressed in memory). The tracepoint
 * catalog, read from the headers, drops every tracepoint not named here:
 * a header describes the tracepoints of a subsystem whether or not the
 * kernel was built with it.
 *
 * Reading every module takes seconds (6.12's 1,138 .ko.xz decompress to
 * 116 MB), so the set is cached as a text file (CACHE/RELEASE/
 * tracepoint-symbols-v3.txt) keyed by the vmlinux's and each module's path,
 * size and mtime: a warm load stats the files and reads one file. It
 * names the module file of each module's tracepoints, whose BTF types
 * their arguments (target_module_btf).
 *
 * Memory: a set owns its strings (s->arena); tp_syms_free() releases them.
 */
#ifndef TARGET_TP_SYMS_H
#define TARGET_TP_SYMS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/arena.h"
#include "lib/intern.h"

struct tp_syms {
	struct intern names;	/* NAME of each defined __tracepoint_NAME */
	int n_core;		/* names[0..n_core) are the vmlinux's */
	const char **module;	/* [id - n_core]: the module file defining
				 * names.s[id] (the first, in path order) */
	int n_module, cap_module;
	int n_modules;		/* module files read (or when cached: listed) */
	int from_cache;		/* 1 when loaded from the cache file */
	struct arena arena;
};

/*
 * The set for the kernel whose symbol table is in VMLINUX (an ELF file:
 * the debug vmlinux) and whose modules are under MODULES_DIR (its build
 * and source links are not followed; no such directory: no modules).
 * CACHE_PATH NULL: no cache; else the file to read and write (its
 * directory is made). Returns 0; or -1 when the kernel's tracepoints
 * cannot be told (a file that cannot be read): *why (malloc'ed) says why,
 * and the caller must not judge by the set.
 */
int tp_syms_load(const char *vmlinux, const char *modules_dir,
		 const char *cache_path, struct tp_syms *out, char **why);

bool tp_syms_has(const struct tp_syms *s, const char *name);

/* Whether NAME is defined by a module only, not by the vmlinux. */
bool tp_syms_in_module(const struct tp_syms *s, const char *name);

/* The module file defining NAME ("/lib/modules/R/kernel/drivers/
 * watchdog/watchdog.ko.xz"), NULL when the vmlinux does or none. */
const char *tp_syms_module(const struct tp_syms *s, const char *name);

void tp_syms_free(struct tp_syms *s);

/*
 * The bytes of a module file, decompressed when it is xz, gzip or zstd
 * data (recognised by its magic number, not its name): malloc'ed, its
 * length in *len; NULL with *why (malloc'ed) when it cannot be read or
 * decompressed, or is larger than 1 GiB decompressed.
 */
char *tp_syms_read_module(const char *path, size_t *len, char **why);

#endif /* TARGET_TP_SYMS_H */
