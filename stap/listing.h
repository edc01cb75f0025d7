/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -l / -L listings in SystemTap's format. For now: kernel.trace, one line
 * per matching tracepoint, sorted by SYSTEM:NAME:
 *   kernel.trace("sched:sched_switch") $preempt:bool $prev:struct ...
 */
#ifndef STAP_LISTING_H
#define STAP_LISTING_H

#include <stdbool.h>
#include <stdio.h>

#include "semantic/tracepoints.h"

/*
 * Print the tracepoints matching PATTERN ("SYSTEM:NAME" or "NAME", fnmatch
 * wildcards); with_vars (-L) adds " $arg:TYPE" per argument. Returns the
 * number of lines printed: the driver exits 1 when it is 0.
 */
int list_tracepoints(const struct tp_catalog *c, const char *pattern,
		     bool with_vars, FILE *out);

#endif /* STAP_LISTING_H */
