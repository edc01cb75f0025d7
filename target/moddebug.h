/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DWARF of the target release's modules, for module("NAME").function
 * and .statement: which modules the release has, where a module's debug
 * file is, and its function catalog and location reader, each built on
 * first use and remembered (failure included).
 *
 * A module's debug file is Debian's linux-image-RELEASE-dbg's
 * usr/lib/debug/lib/modules/RELEASE/PATH.ko (PATH: the module's place
 * under /lib/modules/RELEASE, compression suffix dropped), where
 * SystemTap 4.8 reads it too. The package unpacks to 1.2 GB of module
 * debug files a kernel, so scripts/setup.sh keeps the package itself
 * (TARGET_DEB_DIR/linux-image-RELEASE-dbg.deb, about 280 MB) and a
 * module's file is extracted from it on its first use, with every other
 * one the same query needs in the same pass over the archive (tens of
 * seconds): into /usr/lib/debug when stap may write there (root), else
 * into the cache (CACHE/RELEASE/moddebug/PATH.ko).
 */
#ifndef TARGET_MODDEBUG_H
#define TARGET_MODDEBUG_H

#include <stdbool.h>

struct target;
struct kf_catalog;
struct dwloc_file;

/* Where scripts/setup.sh keeps each release's -dbg package. */
#define TARGET_DEB_DIR "/var/cache/stap"

/*
 * The names of the release's modules that PATTERN (fnmatch; '-' and '_'
 * alike) matches, sorted, as the kernel spells them ('_' for '-'): the
 * count, *out in the target's arena.
 */
int target_modules_matching(struct target *t, const char *pattern,
			    const char ***out);

/*
 * Make sure the debug files of modules NAMES[0..n) are there, extracting
 * those missing from the kept -dbg package in one pass. 0, or -1 and
 * *err (the target's) when the package is absent or tar failed.
 */
int target_modules_debug_fetch(struct target *t, const char *const *names,
			       int n, const char **err);

/* Module NAME's debug file (fetched as above), or NULL and *err (the
 * target's, naming the package to install). */
const char *target_module_debug(struct target *t, const char *name,
				const char **err);

/* Module NAME's function catalog (functions.h, from its debug file; its
 * addresses those of the file's DWARF layout), or NULL and *err. */
const struct kf_catalog *target_module_functions(struct target *t,
						 const char *name,
						 const char **err);

/* Module NAME's DWARF locations (dwloc.h), or NULL and *err. */
struct dwloc_file *target_module_dwarf(struct target *t, const char *name,
				       const char **err);

/* Free what the functions above keep (target_free calls it). */
void target_moddebug_free(struct target *t);

#endif /* TARGET_MODDEBUG_H */
