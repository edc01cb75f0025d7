// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2 on the BPF backend: where each derived probe runs (a raw
 * tracepoint in the kernel, or the loader for begin, end and timers) and
 * what of its body this first slice cannot translate. Whatever is refused
 * here is an error at the probe point naming the module backend, never a
 * wrong result later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "semantic/semantic.h"
#include "semantic/family.h"

/* The builtins this slice translates; the tapset's time functions too. */
static bool bpf_knows_call(const struct node *n)
{
	static const char *const known[] = {
		"exit", "execname", "pid", "tid", "cpu", "gettimeofday_ns",
		"gettimeofday_us", "gettimeofday_ms", "gettimeofday_s", NULL,
	};
	for (int i = 0; known[i]; i++)
		if (!strcmp(n->call.name, known[i]))
			return n->sym && (n->sym->kind == SYM_BUILTIN ||
					  !strncmp(known[i], "gettimeofday", 12));
	return false;
}

/*
 * A format the loader prints as the module does: %d %i %u %x %X %o %s %c
 * with the flags '-' and '0' and a width; '+', ' ', '#', precisions,
 * stars, %p, %b and %m differ in corner cases from C's printf, so they
 * are refused (*bad: the conversion) until the loader has them.
 */
static bool format_simple(const char *f, char *bad, size_t badlen)
{
	for (const char *c = f; *c; c++) {
		if (*c != '%')
			continue;
		const char *start = c++;
		if (*c == '%')
			continue;
		while (*c == '-' || *c == '0')
			c++;
		while (*c >= '0' && *c <= '9')
			c++;
		if (!*c || !strchr("diuxXosc", *c)) {
			snprintf(bad, badlen, "%.*s", (int)(c - start + (*c ? 1 : 0)),
				 start);
			return false;
		}
	}
	return true;
}

struct refusal {
	bool in_kernel;
	const char *why;
	struct session *s;
};

static const char *refuse_node(const struct node *n, bool in_kernel)
{
	/* the message, read by backend_check before the next refusal */
	static char why[256];

	switch (n->kind) {
	case N_EMBEDDED:
		return "embedded C";
	case N_CALL:
		if (bpf_knows_call(n))
			return NULL;
		snprintf(why, sizeof(why), n->sym && n->sym->kind ==
			 SYM_FUNCTION ? "it calls %s(), a script or tapset "
			 "function, which this backend does not translate yet" :
			 "it calls %s(), which this backend does not have yet",
			 n->call.name);
		return why;
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
	case N_ATFUNC:
		/* the kernel's context values: checked by attach.c */
		return in_kernel ? NULL : "context variables ($name, @cast, "
		       "@defined) are not read on this backend yet";
	case N_STAT:
	case N_HIST:
		return "statistics are not on this backend yet";
	case N_TRY:
		return "try/catch is not on this backend yet";
	case N_PRINT:
		if (n->print.kind >= PRINT_SPRINT)
			return "sprint and sprintf are not on this backend yet";
		if (n->print.kind == PRINT_PRINTD ||
		    n->print.kind == PRINT_PRINTDLN)
			return "printd is not on this backend yet";
		if (n->print.kind == PRINT_PRINTF &&
		    n->print.args->kind != N_STRING)
			return "printf needs a literal format on this backend";
		if (n->print.kind == PRINT_PRINTF) {
			char bad[32];
			if (!format_simple(n->print.args->str.value, bad,
					   sizeof(bad))) {
				snprintf(why, sizeof(why), "the printf "
					 "conversion %s is not on this backend "
					 "yet", bad);
				return why;
			}
		}
		if (n->print.kind != PRINT_PRINTF &&
		    ast_list_length(n->print.args) != 1)
			return "print and println take one value on this "
			       "backend yet";
		return NULL;
	case N_FOREACH:
		if (in_kernel)
			return "foreach runs only in begin, end and timer "
			       "probes on this backend";
		if (n->foreach.array->kind != N_VAR || n->foreach.slice ||
		    n->foreach.sort_agg != STAT_NONE)
			return "this form of foreach is not on this backend yet";
		return NULL;
	case N_BINARY:
		if (n->binary.op == OP_MATCH || n->binary.op == OP_NMATCH)
			return "regular expressions are not on this backend yet";
		if (n->binary.op == OP_AGG)
			return "statistics are not on this backend yet";
		if (in_kernel && (n->binary.op == OP_CONCAT ||
				  n->binary.lhs->type == TY_STRING))
			return "string operators run only in begin, end and "
			       "timer probes on this backend";
		return NULL;
	case N_ASSIGN:
		if (n->binary.op == OP_AGG)
			return "statistics are not on this backend yet";
		if (n->binary.op == OP_CONCAT && in_kernel)
			return "string operators run only in begin, end and "
			       "timer probes on this backend";
		return NULL;
	case N_DELETE:
		if (in_kernel && n->stmt.expr->kind == N_VAR &&
		    n->stmt.expr->sym && n->stmt.expr->sym->nkeys > 0)
			return "deleting a whole array runs only in begin, end "
			       "and timer probes on this backend";
		return NULL;
	case N_INDEX:
		ast_foreach(k, n->index.keys)
			if (k->kind == N_WILDCARD)
				return "array slices are not on this backend yet";
		return NULL;
	case N_VAR:
		if (n->sym && n->sym->type == TY_STATS)
			return "statistics are not on this backend yet";
		return NULL;
	default:
		return NULL;
	}
}

static void refuse_visit(struct node *n, void *arg)
{
	struct refusal *r = arg;

	if (!r->why)
		r->why = refuse_node(n, r->in_kernel);
}

const char *bpf_refuses(const struct derived_probe *dp)
{
	enum bpf_place place = bpf_place_of(dp, NULL, NULL);

	const char *why = bpf_refuses_attach(dp);

	if (why)
		return why;
	if (place == BPF_PLACE_NONE)
		return "this kind of probe point is not on this backend yet "
		       "(it has begin, end, never, timer.s/ms/us/ns/hz(N), "
		       "timer.profile, "
		       "kernel.trace and kernel.function)";
	if (place == BPF_PLACE_NEVER || !dp->body)
		return NULL;
	struct refusal r = { .in_kernel = bpf_place_in_kernel(place) };
	ast_visit(dp->body->probe->probe.body, refuse_visit, &r);
	return r.why;
}
