/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An executable's path as SystemTap's process("NAME") resolves it: a
 * name without '/' is looked up in $PATH (the first regular, executable
 * file), then every path is made absolute with its symbolic links
 * resolved. A name that resolves to nothing is kept as written (SystemTap
 * keeps it too: the probe then matches no process).
 */
#ifndef TARGET_EXE_PATH_H
#define TARGET_EXE_PATH_H

#include "lib/arena.h"

/* name's resolved path, in a (or name itself when nothing is found). */
const char *exe_path_resolve(struct arena *a, const char *name);

/*
 * --ldd: the shared libraries path needs, as ldd lists them (DT_NEEDED,
 * transitively, and the program interpreter), found in the system's
 * library directories and resolved; appended to *libs (a malloc'd
 * array of *n, strings in a), each once and none of the names already
 * there.
 */
void exe_path_needed(struct arena *a, const char *path, const char ***libs,
		     int *n);

#endif /* TARGET_EXE_PATH_H */
