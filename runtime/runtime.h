/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one header a generated module includes: the kernel headers and the
 * runtime's interface.  The runtime's code is runtime.c, compiled once
 * and linked into every module beside the generated code.
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
#include <linux/irq_work.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <asm/irq_regs.h>
#include <asm/syscall.h>
#include <linux/hashtable.h>
#include <linux/sched/signal.h>
#include <linux/binfmts.h>

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
#include "timer.h"
#include "tracepoint.h"
#include "kfunc.h"
#include "uprobe.h"
#include "procfs.h"
#include "perf.h"
#include "hwbkpt.h"
#include "netfilter.h"
#include "process.h"
#include "tapset.h"
#include "json.h"
#include "softfloat.h"

#endif /* RUNTIME_RUNTIME_H */
