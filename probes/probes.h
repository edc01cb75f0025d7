/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every probe family's file includes: pass 2's services
 * (semantic/elaborate.h) and the families' own struct probe_family
 * objects, which probes/registry.c lists.
 */
#ifndef PROBES_PROBES_H
#define PROBES_PROBES_H

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/elaborate.h"
#include "lib/strbuf.h"

extern const struct probe_family begin_end_family;
extern const struct probe_family timer_family;
extern const struct probe_family kernel_function_family;
extern const struct probe_family kernel_return_family;
extern const struct probe_family tracepoint_family;
extern const struct probe_family procfs_family;
extern const struct probe_family unsupported_family;

#endif /* PROBES_PROBES_H */
