// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The -p2 listing, in SystemTap's layout:
 *   # global embedded code   top-level %{ %} blocks
 *   # globals            name:type [keytypes]
 *   # functions          name:type (argtypes), a copy made for a probe
 *                        (copies.c) with that probe
 *   # probes             derived point, the user's points, then locals
 */
#include "semantic/semantic.h"

#include <inttypes.h>

#include "lib/deep.h"
#include "lib/strbuf.h"

static void dump_keys(FILE *out, const struct symbol *sym)
{
	if (!sym->nkeys)
		return;
	fputs(" [", out);
	for (int k = 0; k < sym->nkeys; k++)
		fprintf(out, "%s%s", k ? ", " : "", type_name(sym->key_types[k]));
	fputc(']', out);
}

const char *sema_signature(struct session *s, const struct script_func *f)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s:%s (", f->sym->name, type_name(f->sym->type));
	for (int a = 0; a < f->nparams; a++)
		sb_printf(&sb, "%s%s:%s", a ? ", " : "",
			  f->scope->locals[a]->name,
			  type_name(f->scope->locals[a]->type));
	sb_putc(&sb, ')');
	const char *r = arena_strdup(&s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

const char *sema_probe_name(const struct program *prog,
			    const struct probe_body *b)
{
	const struct derived_probe *first = body_first_probe(prog, b);
	struct arena *a = &prog->s->arena;
	int more = -1;

	if (!first)
		return "(elided)";
	for (int i = 0; i < prog->nprobes; i++)
		more += prog->probes[i]->body == b;
	if (!b->list_name && !more)
		return first->pp;
	if (!b->list_name)
		return arena_printf(a, "%s (and %d more point%s)", first->pp,
				    more, more == 1 ? "" : "s");
	if (!more)
		return arena_printf(a, "%s (%s)", b->list_name, first->pp);
	return arena_printf(a, "%s (%s and %d more point%s)", b->list_name,
			    first->pp, more, more == 1 ? "" : "s");
}

struct dump_job {
	FILE *out;
	const struct program *prog;
};

static void dump_deep(void *arg);

void sema_dump(FILE *out, const struct program *prog)
{
	struct dump_job job = { out, prog };

	deep_call(dump_deep, &job);	/* expressions print recursively */
}

static void dump_deep(void *arg)
{
	const struct dump_job *job = arg;
	FILE *out = job->out;
	const struct program *prog = job->prog;

	if (prog->nembeds)
		fputs("# global embedded code\n", out);
	for (int i = 0; i < prog->nembeds; i++)
		fprintf(out, "%%{%s%%}\n", prog->embeds[i]->embedded.code);
	if (prog->nglobals)
		fputs("# globals\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const struct node *d = g->decl;
		fputs(g->name, out);
		if (d && d->global.wrap)
			fputc('%', out);
		if (d && d->global.max_entries)
			fprintf(out, "[%" PRId64 "]", d->global.max_entries);
		fprintf(out, ":%s", type_name(g->type));
		dump_keys(out, g);
		fputc('\n', out);
	}
	bool any_func = prog->nbuiltins_used > 0;
	for (int i = 0; i < prog->nfuncs; i++)
		any_func |= prog->funcs[i]->used;
	if (any_func)
		fputs("# functions\n", out);
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!f->used)
			continue;
		fputs(sema_signature(prog->s, f), out);
		if (f->copy_of)
			fprintf(out, " /* for probe %s */",
				sema_probe_name(prog, f->ctx));
		fputc('\n', out);
		if (f->scope->nlocals > f->nparams)
			fputs("  # locals\n", out);
		for (int l = f->nparams; l < f->scope->nlocals; l++)
			fprintf(out, "  %s:%s\n", f->scope->locals[l]->name,
				type_name(f->scope->locals[l]->type));
	}
	for (int i = 0; i < prog->nbuiltins_used; i++) {
		const struct symbol *f = prog->builtins_used[i];
		fprintf(out, "%s:%s (", f->name, type_name(f->type));
		for (int a = 0; a < f->nargs; a++)
			fprintf(out, "%s%s", a ? ", " : "",
				type_name(f->arg_types[a]));
		fputs(")\n", out);
	}
	fputs("# probes\n", out);
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct node *probe = dp->body->user_probe;
		/* as SystemTap, the point keeps its '?' or '!' mark */
		fprintf(out, "%s%s", dp->pp, dp->point->point.sufficient ?
			"!" : dp->point->point.optional ? "?" : "");
		if (dp->body->cond)
			fprintf(out, " if (%s)", dp->body->cond);
		if (dp->pp_from) {
			fprintf(out, " /* <- %s */\n", dp->pp_from);
			goto locals;
		}
		fprintf(out, " /* <- %s", dp->body->via);
		ast_foreach(p, probe->probe.points) {
			if (p != probe->probe.points)
				fputc(',', out);
			fputs(sema_point_text(job->prog, p), out);
		}
		fputs(" */\n", out);
locals:
		if (dp->body->nlocals)
			fputs("  # locals\n", out);
		for (int l = 0; l < dp->body->nlocals; l++) {
			const struct symbol *sym = dp->body->locals[l];
			fprintf(out, "  %s:%s\n", sym->name, type_name(sym->type));
		}
	}
}
