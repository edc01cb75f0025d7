/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -l / -L listings in SystemTap's format, one line per probe point, sorted
 * as strings:
 *   kernel.trace("sched:sched_switch") $preempt:bool $prev:struct ...
 *   kernel.function("vfs_read@fs/read_write.c:450") $file:struct file* ...
 */
#ifndef PROBES_LISTING_H
#define PROBES_LISTING_H

#include <stdbool.h>
#include <stdio.h>

#include "target/functions.h"
#include "target/tracepoints.h"
#include "target/target.h"

struct session;

/*
 * Print the tracepoints matching PATTERN ("SYSTEM:NAME" or "NAME", fnmatch
 * wildcards); with_vars (-L) adds " $arg:TYPE" per argument. Returns the
 * number of lines printed: the driver exits 1 when it is 0.
 */
int list_tracepoints(const struct tp_catalog *c, const char *pattern,
		     bool with_vars, FILE *out);

/*
 * Parse 'kernel.function("PATTERN[@FILE[:LINE]]")' with an optional
 * .call, .inline, .return, .return.maxactive(N) or .exported into q (its
 * strings point into a malloc'ed copy returned in *mem) and *suffix (the
 * part after the closing parenthesis). Returns false when spec is not
 * such a probe point.
 */
bool parse_kfunc_spec(const char *spec, struct kf_query *q,
		      const char **suffix, char **mem);

/*
 * Print the probe points of spec (a kernel.function point, see
 * parse_kfunc_spec) from the catalog, sorted; with_vars adds the
 * variables. Returns the number of lines printed, -1 if spec is not a
 * kernel.function point.
 */
int list_kernel_functions(const struct kf_catalog *c, const char *spec,
			  bool with_vars, bool guru, FILE *out);

/*
 * The driver's -l/-L for a kernel.function point: the target's function
 * catalog (t NULL: no release known), listed. Errors go
 * to stderr; returns the number of lines printed, or -1 (nothing done)
 * when spec is not a kernel.function point handled here.
 */
int list_kfuncs(struct target *t, const char *spec, bool with_vars,
		bool guru);

/* -l/-L kernel.statement("..."): the count of lines printed, or -1 when
 * spec is not a kernel.statement point. */
int list_kstmts(struct target *t, const char *spec, bool with_vars,
		bool guru);

/* The kernel function family's list hook (family.h). */
int kernel_function_list(struct session *s, const char *spec, bool with_vars);

#endif /* PROBES_LISTING_H */
