/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one header a generated module includes.  The module is a single
 * translation unit: this pulls in the kernel headers, the runtime's
 * declarations and then the runtime's code (all static).
 *
 * Before including it the module defines STP_MODULE_NAME, STP_FRAME_SIZE,
 * STP_MAXNESTING and, when it has arrays or statistics, STP_ITER_SLOTS
 * and STP_HAVE_GLOBALS; limits come from defines.h or -D flags.  After its
 * probe table it invokes STP_MODULE_PROBES(table).  See README.md.
 */
#ifndef RUNTIME_RUNTIME_H
#define RUNTIME_RUNTIME_H

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/proc_fs.h>
#include <linux/namei.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/fs.h>
#include <linux/stdarg.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/sort.h>
#include <linux/ctype.h>
#include <linux/version.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <asm/irq_regs.h>

#include "abi/transport.h"
#include "defines.h"
#include "regex.h"
#include "context.h"
#include "print.h"
#include "ring.h"
#include "strings.h"
#include "stat.h"
#include "map.h"
#include "pretty.h"
#include "probes.h"

static int stp_transport_init(void);
static void stp_transport_exit(void);
static int stp_session_start(void);
static int stp_session_stop(void);
static void stp_session_set_target(int64_t pid);
static int stp_status_line(char *buf, size_t size);
#ifdef STP_HAVE_GLOBALS
/* defined by the generated module: allocate / free its arrays and stats */
static int stp_globals_init(void);
static void stp_globals_free(void);
#endif

#include "context.c"
#include "ring.c"
#include "print.c"
#include "stat.c"
#include "json.c"
#include "map.c"
#include "tapset.c"
#include "regex.c"
#include "probes.c"
#include "timer.c"
#include "tracepoint.c"
#include "pretty.c"
#include "kfunc.c"
#include "procfs.c"
#include "transport.c"

#endif /* RUNTIME_RUNTIME_H */
