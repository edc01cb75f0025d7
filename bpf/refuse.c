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

/* The builtins the kernel half translates; the tapset's time functions
 * too. */
static bool bpf_knows_call(const struct node *n)
{
	static const char *const known[] = {
		"exit", "execname", "pid", "tid", "cpu", "target", NULL,
	};
	for (int i = 0; known[i]; i++)
		if (!strcmp(n->call.name, known[i]))
			return n->sym && n->sym->kind == SYM_BUILTIN;
	return false;
}

/* The string builtins the kernel half has too (emit_sprint.c; matched()
 * and ngroups(): emit_regex.c). */
static bool bpf_kernel_string_call(const struct node *n)
{
	static const char *const known[] = {
		"strlen", "substr", "stringat", "isinstr", "strpos",
		"matched", "matched_str", "ngroups", NULL,
	};
	for (int i = 0; known[i]; i++)
		if (!strcmp(n->call.name, known[i]))
			return n->sym && n->sym->kind == SYM_BUILTIN;
	return false;
}

/* The builtins only the user half (begin, end, timers) has. */
static bool bpf_user_call(const struct node *n)
{
	static const char *const known[] = {
		"strlen", "substr", "stringat", "isinstr", "strpos",
		"str_replace", "string_quoted", "text_str", "text_strn",
		"strtol", "tokenize", "error", "print_char", "matched",
		"matched_str", "ngroups", NULL,
	};
	if (!n->sym || n->sym->kind != SYM_BUILTIN)
		return false;
	for (int i = 0; known[i]; i++)
		if (!strcmp(n->call.name, known[i]))
			return true;
	return false;
}

/*
 * A format the loader prints as the module does (format.c): all but %m
 * and %M, which read kernel memory (*bad: the conversion).
 */
static bool format_simple(const char *f, char *bad, size_t badlen)
{
	for (const char *c = f; *c; c++) {
		if (*c != '%')
			continue;
		const char *start = c++;
		if (*c == '%')
			continue;
		while (*c && strchr("-+ #0123456789.*l", *c))
			c++;
		if (*c == 'm' || *c == 'M') {
			snprintf(bad, badlen, "%.*s", (int)(c - start + 1), start);
			return false;
		}
		if (!*c)
			break;
	}
	return true;
}

struct refusal {
	bool in_kernel;
	enum bpf_place place;
	const char *why;
	const struct node *hist_ok;	/* the @hist_* a print prints */
	const struct script_func **seen;	/* functions checked */
	int nseen, seen_cap;
	const struct script_func **chain;	/* the calls being walked */
	int nchain, chain_cap;
};

static const char user_only[] = "runs only in begin, end and timer probes "
				"on this backend";

static const char *refuse_node(const struct node *n, struct refusal *r)
{
	/* the message, read by backend_check before the next refusal */
	static char why[256];
	bool in_kernel = r->in_kernel;

	switch (n->kind) {
	case N_EMBEDDED:
		return "embedded C";
	case N_UNARY:
		/* &@cast(p, "T")->f of the kernel's types */
		if (!bpf_kernel_typed(n))
			return NULL;
		return in_kernel ? bpf_kernel_cast_refuses(n) :
		       "context variables ($name, @cast, @defined) are not "
		       "read on this backend yet";
	case N_CALL:
		if (!strcmp(n->call.name, "HZ") && bpf_tapset_known(n) &&
		    !bpf_kernel_hz())
			return "it calls HZ(), which needs the kernel's HZ: "
			       "neither /boot/config-RELEASE nor "
			       "/proc/config.gz gives it";
		if (bpf_knows_call(n))
			return NULL;
		if (bpf_probe_constant_fn(n->call.name) && r->nchain &&
		    bpf_tapset_known(n)) {
			snprintf(why, sizeof(why), "it calls %s() in a "
				 "function, which this backend does not have "
				 "yet", n->call.name);
			return why;
		}
		if (bpf_tapset_call(n, in_kernel))
			return NULL;
		if (bpf_tapset_known(n)) {
			snprintf(why, sizeof(why), "it calls %s(), which %s",
				 n->call.name, in_kernel ? user_only :
				 "runs only in kernel probes on this backend");
			return why;
		}
		if (n->sym && n->sym->kind == SYM_FUNCTION && n->sym->func &&
		    !bpf_func_native(n->sym->func))
			return NULL;
		if (!in_kernel && bpf_user_call(n))
			return NULL;
		if (bpf_kernel_string_call(n))
			return NULL;
		if (!strcmp(n->call.name, "error") && n->sym &&
		    n->sym->kind == SYM_BUILTIN)
			return NULL;	/* ERROR_MSG in the kernel half */
		if (in_kernel && bpf_user_call(n)) {
			snprintf(why, sizeof(why), "it calls %s(), which %s",
				 n->call.name, user_only);
			return why;
		}
		snprintf(why, sizeof(why), n->sym && n->sym->kind ==
			 SYM_FUNCTION ? "it calls %s(), a function in embedded "
			 "C" : "it calls %s(), which this backend does not "
			 "have yet", n->call.name);
		return why;
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
	case N_ATFUNC:
		/* a @cast of kernel memory: read in any kernel probe (and
		 * its functions); the context values: checked by attach.c */
		if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@perf"))
			return "@perf (a perf counter) is not on this backend "
			       "yet";
		if (in_kernel && bpf_kernel_typed(n))
			return bpf_kernel_cast_refuses(n);
		return in_kernel ? NULL : "context variables ($name, @cast, "
		       "@defined) are not read on this backend yet";
	case N_STAT:
		/* merged over the CPUs in the kernel (emit_stat.c) */
		return NULL;
	case N_HIST:
		if (n == r->hist_ok)
			return NULL;
		return "histograms are printed only by print() and println() "
		       "on this backend";
	case N_PRINT: {
		enum print_kind k = n->print.kind;
		const struct node *first = n->print.args;
		if (k >= PRINT_SPRINT && in_kernel) {
			/* bpf_snprintf formats it (emit_sprint.c) */
			const char *bad = NULL;
			if (k == PRINT_SPRINTF && first &&
			    first->kind == N_STRING)
				bad = bpf_kernel_format(first->str.value,
							first->str.len, NULL);
			else if (k != PRINT_SPRINTF &&
				 ast_list_length(first) > 12)
				bad = "which formats 12 values at most";
			int nstr = 0;
			for (const struct node *a = first; a; a = a->next)
				nstr += a->type == TY_STRING;
			if (!bad && k != PRINT_SPRINTF && (k == PRINT_SPRINTD ||
			    k == PRINT_SPRINTDLN ? nstr - 1 : nstr) > 3)
				bad = "which formats 3 strings at most";
			if (bad) {
				snprintf(why, sizeof(why), "sprint and sprintf "
					 "in a kernel probe are the kernel's "
					 "bpf_snprintf, %s", bad);
				return why;
			}
		}
		if ((k == PRINT_PRINT || k == PRINT_PRINTLN) && first &&
		    !first->next && first->kind == N_HIST) {
			r->hist_ok = first;
			return NULL;
		}
		if ((k == PRINT_PRINTF || k == PRINT_SPRINTF ||
		     k == PRINT_PRINTD || k == PRINT_PRINTDLN ||
		     k == PRINT_SPRINTD || k == PRINT_SPRINTDLN) &&
		    (!first || first->kind != N_STRING))
			return k == PRINT_PRINTF || k == PRINT_SPRINTF ?
			       "printf needs a literal format on this backend" :
			       "printd needs a literal delimiter on this backend";
		if (k == PRINT_PRINTF || k == PRINT_SPRINTF) {
			char bad[32];
			if (!format_simple(first->str.value, bad, sizeof(bad))) {
				snprintf(why, sizeof(why), "the printf "
					 "conversion %s reads kernel memory, "
					 "which this backend does not", bad);
				return why;
			}
		}
		return NULL;
	}
	case N_FOREACH: {
		const struct node *arr = n->foreach.array;
		if (in_kernel && n->foreach.sort_column &&
		    (!n->foreach.limit || n->foreach.limit->kind != N_NUMBER ||
		     n->foreach.limit->num.value > 32))
			return "a sorted foreach in a kernel probe needs limit N, "
			       "a number up to 32, on this backend (without "
			       "it, it runs in begin, end and timer probes)";
		if (arr->kind != N_VAR)
			return "foreach over a histogram is not on this "
			       "backend yet";
		if (arr->sym && arr->sym->type == TY_STATS && n->foreach.value)
			return "foreach with a value over statistics is not on "
			       "this backend yet";
		return NULL;
	}
	default:
		return NULL;
	}
}

static void refuse_visit(struct node *n, void *arg)
{
	struct refusal *r = arg;

	if (!r->why)
		r->why = refuse_node(n, r);
}

/* body and the functions it calls, each once */
static void refuse_walk(struct refusal *r, struct node *body,
			const struct probe_body *scope)
{
	ast_visit(body, refuse_visit, r);
	for (int i = 0; scope && i < scope->ncallees && !r->why; i++) {
		const struct script_func *f = scope->callees[i];
		bool seen = false;
		for (int j = 0; j < r->nchain; j++)
			if (r->chain[j] == f && r->in_kernel) {
				static char why[160];
				snprintf(why, sizeof(why), "%s() is recursive: "
					 "recursion %s", f->sym->name, user_only);
				r->why = why;
				return;
			}
		for (int j = 0; j < r->nseen; j++)
			seen |= r->seen[j] == f;
		if (bpf_func_native(f) || (seen && !r->in_kernel))
			continue;
		if (!seen)
			VEC_PUSH(r->seen, r->nseen, r->seen_cap, f);
		VEC_PUSH(r->chain, r->nchain, r->chain_cap, f);
		refuse_walk(r, f->scope->probe->func.body, f->scope);
		r->nchain--;
	}
}

const char *bpf_refuses(const struct derived_probe *dp)
{
	enum bpf_place place = bpf_place_of(dp, NULL, NULL);

	const char *why = bpf_refuses_attach(dp);

	if (why)
		return why;
	if (place == BPF_PLACE_NONE)
		return "this kind of probe point is not on this backend yet "
		       "(it has begin, end, never, timer.s/ms/us/ns/hz/jiffies(N), "
		       "timer.profile, perf.* sampled, "
		       "kernel.trace, kernel.function, "
		       "process(\"PATH\").function and .mark, "
		       "process.begin/.end/.thread.*/.syscall*)";
	if (place == BPF_PLACE_NEVER || !dp->body)
		return NULL;
	struct refusal r = { .in_kernel = bpf_place_in_kernel(place),
			     .place = place };
	refuse_walk(&r, dp->body->probe->probe.body, dp->body);
	free(r.seen);
	free(r.chain);
	return r.why;
}
