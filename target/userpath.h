/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a user binary named in a probe point is, as SystemTap finds it
 * (process("PATH"), .library("LIB"), process("PATH").begin ..., -d):
 * a name with a '/' is a path from the current directory; a bare name
 * is looked up on $PATH as an executable, then in the current directory
 * (as SystemTap 4.8 finds process("prog"); it finds no program by
 * soname), and a library's (.library("LIB")) as a shared library by
 * soname on $LD_LIBRARY_PATH and the system's library directories, then
 * on $PATH; shell wildcards (/lib*\/libc.so.*)
 * match every file. Each result is absolute with symbolic links
 * resolved (the file the kernel maps), regular and readable, once.
 */
#ifndef TARGET_USERPATH_H
#define TARGET_USERPATH_H

#include <stdbool.h>

#include "lib/arena.h"

/*
 * The files spec names: the count (0: none), *out in a. library: spec
 * names a shared library (.library("LIB")), so a bare name is looked up
 * in the library directories first.
 */
int userpath_resolve(struct arena *a, const char *spec, bool library,
		     const char ***out);

/* The program name names (process("NAME"), -d, -c's command): the first
 * file userpath_resolve finds, or name as written when there is none
 * (SystemTap keeps it too: the probe then matches no process). */
const char *userpath_program(struct arena *a, const char *name);

/*
 * --ldd: the shared libraries path needs, as ldd lists them (DT_NEEDED,
 * transitively, and the program interpreter), found in the system's
 * library directories and resolved; appended to *libs (a malloc'd
 * array of *n, strings in a), each once.
 */
void userpath_needed(struct arena *a, const char *path, const char ***libs,
		     int *n);

#endif /* TARGET_USERPATH_H */
