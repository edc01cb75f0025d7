/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The leading filter of a probe body, for any backend: the syscall
 * tapset's aliases all start with `if ($id != N) next` (or with
 * `|| __sysc_compat()` / `|| !__sysc_compat()`), so the probes of one
 * tracepoint that filter on one argument can share one callback or one
 * program that switches on it (module/emit_tracepoint.c,
 * bpf/attach_dispatch.c) instead of running each alias at every event.
 */
#ifndef SEMANTIC_FILTER_H
#define SEMANTIC_FILTER_H

#include <stdbool.h>
#include <stdint.h>

struct node;
struct symbol;
struct derived_probe;

/* The first statement a body runs (through leading blocks), or NULL. */
const struct node *first_stmt(const struct node *n);

/*
 * Does dp's body start with `if ($ARG != N) next`, or `if ($ARG != N ||
 * C) next` where C is `__sysc_compat()` (the probe takes a 64-bit task's
 * calls) or `!__sysc_compat()` (a 32-bit task's)? Then *arg is the
 * context value ($id, or a chain like $regs->orig_ax), *value N, and
 * *compat 0 (64-bit tasks), 1 (32-bit) or -1 (either).
 */
bool probe_number_filter(const struct derived_probe *dp,
			 const struct symbol **arg, int64_t *value,
			 int *compat);

#endif /* SEMANTIC_FILTER_H */
