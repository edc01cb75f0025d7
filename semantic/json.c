// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * JSON lines: a script's globals as JSON objects, one a line, for jq and
 * the like. Two users: `@json_print(G)` in a probe (lowered by sema.c,
 * after type inference, into a call of a synthetic function whose body
 * is written here), and `stap --format=json`, under which SystemTap's
 * end-of-run display of written-only globals (display.c) prints these
 * lines instead of `name=value`. The text is script source, parsed and
 * typed as the user's own code; strings go through json_string()
 * (tapsets/linux/json_lines.stp), histograms through print() of an
 * N_HIST marked stat.json (runtime/json.c). One object per element:
 *
 *   {"name":"x","value":5}                      a long
 *   {"name":"s","value":"text"}                 a string
 *   {"name":"a","key":["bash",3],"value":12}    an array element
 *   {"name":"st","count":3,"sum":9,"min":1,"max":5,"avg":3}
 *                                               a statistic (min, max
 *                                               and avg left out when
 *                                               the count is 0)
 *   {"name":"st","key":[...],"hist":"log","buckets":[{"lo":1,"hi":1,
 *    "count":2},...]}                           @json_print(@hist_log(st))
 *                                               (or "linear"; see
 *                                               runtime/json.c)
 *
 * An array's elements come sorted by value, descending (the display's
 * order); an empty array prints nothing.
 */
#include "semantic/elaborate.h"

#include <inttypes.h>
#include <stdlib.h>

#include "lib/strbuf.h"

/* raw as the body of a script string literal */
static void put_literal(struct strbuf *sb, const char *raw)
{
	sb_putc(sb, '"');
	for (const char *p = raw; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_putc(sb, '\\');
		if (*p == '\n')
			sb_puts(sb, "\\n");
		else
			sb_putc(sb, *p);
	}
	sb_putc(sb, '"');
}

/* printf("FMT", ARGS) with FMT raw text */
static void put_printf(struct strbuf *sb, const char *fmt, const char *args)
{
	sb_puts(sb, "printf(");
	put_literal(sb, fmt);
	if (args && *args)
		sb_printf(sb, ", %s", args);
	sb_puts(sb, ")\n");
}

void sema_json_lines(struct strbuf *sb, const struct symbol *g,
		     const struct node *hist)
{
	static const char *const aggs[] = {
		"count", "sum", "min", "max", "avg"
	};
	struct strbuf head = { 0 }, args = { 0 }, ref = { 0 }, fmt = { 0 };
	const char *name = g->name;

	/* head: {"name":"G"[,"key":[...]]; args: its printf arguments;
	 * ref: G or G[__k0,...] */
	sb_printf(&head, "{\"name\":\"%s\"", name);
	sb_puts(&ref, name);
	if (g->nkeys) {
		sb_puts(sb, "foreach ([");
		sb_puts(&head, ",\"key\":[");
		sb_putc(&ref, '[');
		for (int k = 0; k < g->nkeys; k++) {
			const char *sep = k ? "," : "";
			sb_printf(sb, "%s__k%d", sep, k);
			sb_printf(&ref, "%s__k%d", sep, k);
			if (g->key_types[k] == TY_STRING) {
				sb_printf(&head, "%s%%s", sep);
				sb_printf(&args, "%sjson_string(__k%d)",
					  k ? ", " : "", k);
			} else {
				sb_printf(&head, "%s%%d", sep);
				sb_printf(&args, "%s__k%d", k ? ", " : "", k);
			}
		}
		sb_putc(&head, ']');
		sb_putc(&ref, ']');
		sb_printf(sb, "] in %s-) {\n", name);
	}
	if (hist) {
		sb_printf(&fmt, "%s,\"hist\":\"%s\",\"buckets\":", sb_str(&head),
			  hist->stat.op == HIST_LOG ? "log" : "linear");
		put_printf(sb, sb_str(&fmt), sb_str(&args));
		if (hist->stat.op == HIST_LOG) {
			sb_printf(sb, "print(@hist_log(%s))\n", sb_str(&ref));
		} else {
			sb_printf(sb, "print(@hist_linear(%s", sb_str(&ref));
			ast_foreach(a, hist->stat.args)
				sb_printf(sb, ", %" PRId64,
					  a->kind == N_NUMBER ? a->num.value : 0);
			sb_puts(sb, "))\n");
		}
		put_printf(sb, "}\n", NULL);
	} else if (g->type == TY_STATS) {
		struct strbuf all = { 0 };
		if (!g->nkeys) {
			sb_printf(sb, "if (@count(%s) == 0)\n", name);
			sb_printf(&fmt, "%s,\"count\":0,\"sum\":0}\n",
				  sb_str(&head));
			put_printf(sb, sb_str(&fmt), NULL);
			sb_puts(sb, "else\n");
			sb_reset(&fmt);
		}
		sb_puts(&fmt, sb_str(&head));
		sb_puts(&all, sb_str(&args));
		for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++) {
			sb_printf(&fmt, ",\"%s\":%%d", aggs[i]);
			sb_printf(&all, "%s@%s(%s)", all.len ? ", " : "",
				  aggs[i], sb_str(&ref));
		}
		sb_puts(&fmt, "}\n");
		put_printf(sb, sb_str(&fmt), sb_str(&all));
		sb_free(&all);
	} else {
		sb_printf(&fmt, "%s,\"value\":%s}\n", sb_str(&head),
			  g->type == TY_STRING ? "%s" : "%d");
		if (args.len)
			sb_puts(&args, ", ");
		if (g->type == TY_STRING)
			sb_printf(&args, "json_string(%s)", sb_str(&ref));
		else
			sb_puts(&args, sb_str(&ref));
		put_printf(sb, sb_str(&fmt), sb_str(&args));
	}
	if (g->nkeys)
		sb_puts(sb, "}\n");
	sb_free(&head);
	sb_free(&args);
	sb_free(&ref);
	sb_free(&fmt);
}

enum type infer_json_print(struct sema *se, struct node *n)
{
	struct node *a = n->call.args;
	struct node *v = a && a->kind == N_HIST ? a->stat.operand : a;

	if (v && v->kind == N_VAR && !v->sym)
		v->sym = find_global(se->prog, v->var.name, v->loc.file);
	return n->type = TY_UNKNOWN;
}

char *json_print_function(struct sema *se, const struct node *n,
			  const char *fname)
{
	const struct node *a = n->call.args;
	const struct node *hist = a && a->kind == N_HIST ? a : NULL;
	const struct node *v = hist ? hist->stat.operand : a;
	const struct symbol *g = v && v->kind == N_VAR ? v->sym : NULL;
	struct strbuf sb = { 0 };
	char *text;

	if (!a || a->next || !g) {
		diag_error(se->s, n->loc, "@json_print takes one global "
			   "variable, or @hist_log or @hist_linear of a "
			   "global statistic");
		return NULL;
	}
	if (g->type == TY_UNKNOWN) {
		diag_error(se->s, v->loc, "unresolved type for global '%s' "
			   "(nothing assigns it a value)", g->name);
		return NULL;
	}
	if (hist && g->type != TY_STATS) {
		diag_error(se->s, v->loc, "'%s' is not a statistic (it is a "
			   "%s)", g->name, type_name(g->type));
		return NULL;
	}
	sb_printf(&sb, "function %s() {\n", fname);
	sema_json_lines(&sb, g, hist);
	sb_puts(&sb, "}\n");
	text = strdup(sb_str(&sb));
	sb_free(&sb);
	return text;
}
