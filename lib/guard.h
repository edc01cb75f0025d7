/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-run directory is removed by a watchdog process when stap ends,
 * however it ends (SIGKILL included): lib/guard.c.
 */
#ifndef LIB_GUARD_H
#define LIB_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts the watchdog of dir (0, or -1 when it cannot fork); keep (-k):
 * the directory stays. */
int tmpdir_guard(const char *dir, bool keep);
/* Ends it and returns once it is done. */
void tmpdir_guard_end(void);
/* A command working in the directory runs in process group pgid, which
 * the watchdog kills if stap dies meanwhile; 0: it has ended. */
void tmpdir_guard_group(pid_t pgid);

#endif /* LIB_GUARD_H */
