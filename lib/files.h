/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small file-system helpers shared by the caches. */
#ifndef LIB_FILES_H
#define LIB_FILES_H

/*
 * Create dir and its missing parents (mode 0755). Returns 0 when dir
 * exists afterwards, -1 otherwise (errno set).
 */
int make_dirs(const char *dir);

#endif /* LIB_FILES_H */
