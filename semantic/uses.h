/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a body's code uses at run time, found on the elaborated program
 * (uses.c), for any backend: whether it may raise an error, prints,
 * calls script functions, iterates, matches regular expressions, reads
 * context values (and which sort), or has embedded C. A backend maps
 * these facts to what its handlers must set up (the module backend: the
 * STP_USE_* bits of runtime/probes.h, module/stmt.c).
 *
 * Each body has its own facts (probe_body.uses: its own code, the calls
 * it makes but not what the callees do) and those of everything it runs
 * (probe_body.uses_reached: its own and, transitively, its callees'),
 * so a backend can choose either.
 */
#ifndef SEMANTIC_USES_H
#define SEMANTIC_USES_H

struct program;

enum body_use {
	USES_FAIL	= 1u << 0,	/* may raise a run-time error itself:
					 * division, an array's overflow, an
					 * empty aggregate, error() */
	USES_LIBRARY	= 1u << 1,	/* calls a library function given the
					 * context, which may raise an error
					 * (tokenize, kernel_string, a
					 * histogram's bucket, %m) */
	USES_FAULT	= 1u << 2,	/* reads memory that may fault: a
					 * context value's or a typed value's
					 * member chain */
	USES_LEAVE	= 1u << 3,	/* next, return, break or continue */
	USES_CALL	= 1u << 4,	/* calls a script function */
	USES_EMBEDDED	= 1u << 5,	/* embedded C: anything at all */
	USES_PRINT	= 1u << 6,	/* prints to the output */
	USES_FOREACH	= 1u << 7,	/* iterates over an array's elements
					 * (not a histogram's buckets) */
	USES_TRY	= 1u << 8,	/* try/catch */
	USES_MATCH	= 1u << 9,	/* =~, !~, matched(), ngroups() */
	USES_EXIT	= 1u << 10,	/* exit() */
	USES_VALUES	= 1u << 11,	/* context values the probe's
					 * callback computes ($x, $x->f) */
	USES_RETURN	= 1u << 12,	/* the probed function's return value
					 * ($return, read or written) */
	USES_ENTRY	= 1u << 13,	/* values saved at the function's entry
					 * (@entry) */
	USES_POINT	= 1u << 14,	/* the probe point's names: pp(), pn() */
	USES_KIND	= 1u << 15,	/* another value the attach kind
					 * provides ($$parms, $$name, procfs's
					 * $value), read or written */
	USES_WRITE	= 1u << 16,	/* writes a context value (-g) */
};

/*
 * Fills every body's uses and uses_reached (probe bodies and the bodies
 * of script functions), after pass 2 (and its optimiser): only the code
 * that is left counts.
 */
void sema_find_uses(struct program *prog);

/*
 * Body b's own uses (as probe_body.uses) but for statement skip's: for
 * a backend that runs that statement elsewhere (the module checks a
 * syscall alias's filter, its first statement, in the tracepoint's
 * callback).
 */
struct probe_body;
struct node;
unsigned sema_uses_without(const struct probe_body *b, const struct node *skip);

#endif /* SEMANTIC_USES_H */
