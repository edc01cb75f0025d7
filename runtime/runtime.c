// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The runtime object: every runtime file in one translation unit,
 * compiled once per kernel and set of -D options (module/build.c caches it)
 * and linked into each module beside the generated code. What differs
 * between modules reaches it through stp_module (probes.h).
 */
#define STP_RUNTIME_OBJECT 1
#include "runtime.h"
#include "internal.h"

#include "context.c"
#include "ring.c"
#include "print.c"
#include "stat.c"
#include "json.c"
#include "map.c"
#include "tapset.c"
#include "regex.c"
#include "softfloat.c"
#include "probes.c"
#include "timer.c"
#include "tracepoint.c"
#include "pretty.c"
#include "kfunc.c"
#include "uprobe.c"
#include "procfs.c"
#include "perf.c"
#include "hwbkpt.c"
#include "netfilter.c"
#include "process.c"
#include "transport.c"
