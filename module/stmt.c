// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: statements and handlers. Each statement charges the action
 * budget (STP_ACTION); loops, foreach over arrays and statistics, try /
 * catch (a label per try), delete; a handler is a probe body or a script
 * function (embedded C ones with SystemTap's STAP_* macros), with its
 * locals and temporaries in a frame struct in the per-CPU context.
 */
#include "module/emit.h"
#include "semantic/uses.h"

#include <ctype.h>
#include <stdlib.h>

/* ---- statements ------------------------------------------------------ */

/*
 * Charge one statement. A probe body that cannot loop or call has at most
 * cg->nactions statements: stp_free_B says at compile time whether
 * MAXACTION can run out (gen_body), and when it cannot the charge is
 * compiled out, and its hits keep no budget.
 */
static void action(struct cg *cg, struct node *n)
{
	const char *cond = "";

	cg->nactions++;
	if (!cg->scope->func)
		cond = arena_printf(&cg->s->arena, "if (!stp_free_%d) ",
				    cg->scope->index);
	if (!strcmp(cg->err, "out"))
		emit(cg, "%sSTP_ACTION(c, 1, %s);", cond, where(cg, n));
	else
		emit(cg, "%sSTP_ACTION_TO(c, 1, %s, %s);", cond, where(cg, n),
		     cg->err);
}

static void gen_block_body(struct cg *cg, struct node *n)
{
	emit(cg, "{");
	cg->depth++;
	gen_stmt(cg, n);
	cg->depth--;
	emit(cg, "}");
}


static void gen_loop(struct cg *cg, struct node *n)
{
	if (cg->nloops == (int)(sizeof(cg->loop_break) / sizeof(cg->loop_break[0]))) {
		unsupported(cg, n, "loops nested this deep");
		return;
	}
	int brk = cg->nlabels++, cont = cg->nlabels++;
	if (n->loop.init) {
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->loop.init);
		cg->depth--;
		emit(cg, "}");
	}
	cg->looped = true;
	emit(cg, "for (;;) {");
	cg->depth++;
	if (n->loop.cond) {
		const char *c = gen_expr(cg, n->loop.cond);
		emit(cg, "if (!%s)", c);
		emit(cg, "\tbreak;");
	}
	/* an empty body still pays per iteration: no loop escapes MAXACTION */
	if (!stmt_charges_action(n->loop.body))
		action(cg, n);
	cg->loop_break[cg->nloops] = brk;
	cg->loop_cont[cg->nloops] = cont;
	cg->nloops++;
	gen_block_body(cg, n->loop.body);
	cg->nloops--;
	emit(cg, "L%d: ;", cont);
	if (n->loop.step) {
		action(cg, n->loop.step);
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->loop.step);
		cg->depth--;
		emit(cg, "}");
	}
	cg->depth--;
	emit(cg, "}");
	emit(cg, "L%d: ;", brk);
}

static void gen_delete(struct cg *cg, struct node *e)
{
	const struct symbol *sym = e->sym;

	if (!sym)
		return;
	if (e->kind == N_VAR && sym->nkeys == 0 && sym->type != TY_STATS) {
		const char *ref = var_ref(cg, sym);
		emit(cg, sym->type == TY_STRING ? "%s[0] = '\\0';" : "%s = 0;",
		     ref);
		return;
	}
	if (!global_ok(cg, e, sym))
		return;
	if (e->kind == N_VAR && sym->nkeys == 0) {
		emit(cg, "stp_pstat_clear(%s);", gref(cg, sym));
		return;
	}
	const char *kind = is_stat_array(sym) ? "pmap" : "map";
	if (e->kind == N_VAR) {
		emit(cg, "stp_%s_clear(%s);", kind, gref(cg, sym));
		return;
	}
	emit(cg, "{");
	cg->depth++;
	unsigned wild;
	const char *k = gen_keys(cg, e->index.keys, sym, &wild);
	emit(cg, "stp_%s_delete_match(%s, %s, %uu);", kind, gref(cg, sym), k,
	     wild);
	cg->depth--;
	emit(cg, "}");
}

/* Does a statement write the local sym ('=', '++', delete, foreach)? */
struct writes {
	const struct symbol *sym;
	bool found;
};

static void note_write(struct node *n, void *arg)
{
	struct writes *w = arg;
	const struct node *t = NULL;

	if (n->kind == N_ASSIGN)
		t = n->binary.lhs;
	else if (n->kind == N_INCDEC)
		t = n->incdec.operand;
	else if (n->kind == N_DELETE)
		t = n->stmt.expr;
	else if (n->kind == N_FOREACH && n->foreach.value &&
		 n->foreach.value->sym == w->sym)
		w->found = true;
	else if (n->kind == N_FOREACH)
		ast_foreach(k, n->foreach.keys)
			if (k->sym == w->sym)
				w->found = true;
	if (t && t->kind == N_VAR && t->sym == w->sym)
		w->found = true;
}

/*
 * foreach (b in @hist_log(s)), as SystemTap 4.8: the limit, then the
 * statistic's aggregate, once; b (the script's variable itself) runs from
 * 0 to the last bucket number in that order whatever the sort marker,
 * v = b reads the bucket's count. A body that writes b moves the loop
 * (a v read out of range is an error here, where SystemTap reads past
 * the buckets). An element's aggregate lives in its array's scratch,
 * which the body may reuse for another element: then v's element is
 * aggregated again.
 */
static void gen_hist_foreach(struct cg *cg, struct node *n)
{
	struct node *hist = n->foreach.array, *op = hist->stat.operand;
	struct node *key = n->foreach.keys, *v = n->foreach.value;
	const struct symbol *sym = op->sym;

	if (!sym || !key || !key->sym || !global_ok(cg, op, sym))
		return;
	if (cg->nloops == (int)(sizeof(cg->loop_break) / sizeof(cg->loop_break[0])) ||
	    cg->nhist_loops == (int)(sizeof(cg->hist_loops) / sizeof(cg->hist_loops[0]))) {
		unsupported(cg, n, "loops nested this deep");
		return;
	}
	int brk = cg->nlabels++, cont = cg->nlabels++;
	const char *desc = arena_printf(&cg->s->arena, "stp_gsd_%s",
					sym->cname);
	const char *lim = NULL, *cnt = NULL, *keys, *gen = NULL;

	emit(cg, "{");
	cg->depth++;
	if (n->foreach.limit) {
		lim = gen_expr(cg, n->foreach.limit);
		cnt = tmp_long(cg);
		emit(cg, "int64_t %s = 0;", cnt);
	}
	const char *st = gen_stat_get(cg, op, &keys);
	if (keys && v && v->sym) {
		gen = arena_printf(&cg->s->arena, "g%d", cg->ntemps++);
		emit(cg, "u32 %s = stp_g_%s.scratch_gen;", gen, sym->cname);
	}
	const char *b = var_ref(cg, key->sym);
	emit(cg, "for (%s = 0; %s < %s.nbuckets; %s++) {", b, b, desc, b);
	cg->depth++;
	if (lim) {
		emit(cg, "if (%s++ >= %s)", cnt, lim);
		emit(cg, "	break;");
	}
	if (v && v->sym) {
		if (gen) {
			emit(cg, "if (unlikely(%s != stp_g_%s.scratch_gen)) {",
			     gen, sym->cname);
			emit(cg, "	%s = stp_pmap_get(%s, %s);", st,
			     gref(cg, sym), keys);
			emit(cg, "	%s = stp_g_%s.scratch_gen;", gen,
			     sym->cname);
			emit(cg, "}");
		}
		emit(cg, "if (unlikely(stp_stat_bucket(c, &%s, %s, %s, false, "
		     "&%s, %s)))", desc, st, b, var_ref(cg, v->sym),
		     where(cg, n));
		emit(cg, "	goto %s;", cg->err);
	}
	if (!stmt_charges_action(n->foreach.body))
		action(cg, n);
	struct writes w = { key->sym, false };
	ast_visit(n->foreach.body, note_write, &w);
	cg->hist_loops[cg->nhist_loops++] = (struct hist_loop){
		.stat = op->kind == N_VAR ? sym : NULL,
		.key = key->sym,
		.agg = st,
		.stable = !w.found,
	};
	cg->loop_break[cg->nloops] = brk;
	cg->loop_cont[cg->nloops] = cont;
	cg->nloops++;
	gen_block_body(cg, n->foreach.body);
	cg->nloops--;
	cg->nhist_loops--;
	emit(cg, "L%d: ;", cont);
	cg->depth--;
	emit(cg, "}");
	emit(cg, "L%d: ;", brk);
	cg->depth--;
	emit(cg, "}");
}

/*
 * foreach: the entries are snapshot into this CPU's iteration slots
 * (c->iter), sorted there, and visited; the slots are released when the
 * loop ends (on an error, by the probe, function or catch that handles it).
 */
static void gen_foreach(struct cg *cg, struct node *n)
{
	struct node *arr = n->foreach.array;
	const struct symbol *sym = arr->sym;

	cg->looped = true;
	if (arr->kind == N_HIST) {
		gen_hist_foreach(cg, n);
		return;
	}
	if (arr->kind != N_VAR || !sym || !global_ok(cg, arr, sym))
		return;
	if (cg->nloops == (int)(sizeof(cg->loop_break) / sizeof(cg->loop_break[0]))) {
		unsupported(cg, n, "loops nested this deep");
		return;
	}
	int brk = cg->nlabels++, cont = cg->nlabels++;
	bool stats = is_stat_array(sym);
	const char *base = tmp_long(cg), *cnt = tmp_long(cg), *i = tmp_long(cg);
	const char *map = stats ? arena_printf(&cg->s->arena, "&stp_g_%s.agg",
					       sym->cname) : gref(cg, sym);
	const char *lim = NULL;

	emit(cg, "{");
	cg->depth++;
	if (n->foreach.limit)
		lim = gen_expr(cg, n->foreach.limit);
	if (stats) {
		emit(cg, "if (unlikely(stp_pmap_aggregate(%s))) {", gref(cg, sym));
		overflow_error(cg, arr, sym);
		emit(cg, "}");
	}
	const char *slice = "NULL";
	unsigned wild = 0;
	if (n->foreach.slice)
		slice = gen_keys(cg, n->foreach.slice, sym, &wild);
	emit(cg, "u32 %s = c->iter_top;", base);
	emit(cg, "u32 %s = stp_map_collect(%s, c->iter + %s, STP_ITER_SLOTS - %s, "
	     "%s, %uu);", cnt, map, base, base, slice, wild);
	emit(cg, "u32 %s;", i);
	emit(cg, "c->iter_top = %s + %s;", base, cnt);
	if (n->foreach.sort_column) {
		emit(cg, "{");
		const char *agg;
		switch (n->foreach.sort_agg) {
		case STAT_SUM: agg = "STP_STAT_SUM"; break;
		case STAT_MIN: agg = "STP_STAT_MIN"; break;
		case STAT_MAX: agg = "STP_STAT_MAX"; break;
		case STAT_AVG: agg = "STP_STAT_AVG"; break;
		default: agg = "STP_STAT_COUNT"; break;
		}
		emit(cg, "\tconst struct stp_sort how = { %s, %d, %d, %s };",
		     map, n->foreach.sort_column, n->foreach.sort_dir, agg);
		emit(cg, "\tstp_map_sort(c->iter + %s, %s, &how);", base, cnt);
		emit(cg, "}");
	}
	emit(cg, "for (%s = 0; %s < %s; %s++) {", i, i, cnt, i);
	cg->depth++;
	if (lim) {
		emit(cg, "if ((int64_t)%s >= %s)", i, lim);
		emit(cg, "\tbreak;");
	}
	const char *e = arena_printf(&cg->s->arena, "e%d", cg->ntemps++);
	emit(cg, "struct stp_map_entry *%s = c->iter[%s + %s];", e, base, i);
	int k = 0;
	ast_foreach(key, n->foreach.keys) {
		if (!key->sym)
			continue;
		const char *ref = var_ref(cg, key->sym);
		if (sym->key_types[k] == TY_STRING)
			emit(cg, "stp_strcpy(%s, stp_map_key_str(%s, %s, %d));",
			     ref, map, e, k);
		else
			emit(cg, "%s = stp_map_key_long(%s, %s, %d);", ref, map,
			     e, k);
		k++;
	}
	struct node *v = n->foreach.value;
	if (v && v->sym) {
		const char *ref = var_ref(cg, v->sym);
		if (stats)
			unsupported(cg, v, "the value of a statistics array in foreach");
		else if (sym->type == TY_STRING)
			emit(cg, "stp_strcpy(%s, (const char *)stp_map_val(%s, %s));",
			     ref, map, e);
		else
			emit(cg, "%s = *(int64_t *)stp_map_val(%s, %s);", ref,
			     map, e);
	}
	if (!stmt_charges_action(n->foreach.body))
		action(cg, n);
	cg->loop_break[cg->nloops] = brk;
	cg->loop_cont[cg->nloops] = cont;
	cg->nloops++;
	gen_block_body(cg, n->foreach.body);
	cg->nloops--;
	emit(cg, "L%d: ;", cont);
	cg->depth--;
	emit(cg, "}");
	emit(cg, "L%d:", brk);
	emit(cg, "c->iter_top = %s;", base);
	cg->depth--;
	emit(cg, "}");
}

/*
 * try/catch: errors in the body jump to the catch label, which restores
 * the iteration slots, hands the message to the catch variable and clears
 * the error.
 */
static void gen_try(struct cg *cg, struct node *n)
{
	int lcatch = cg->nlabels++, lend = cg->nlabels++;
	int slot = cg->ntemps++;
	const char *outer = cg->err;

	sb_printf(&cg->frame, "\tu32 it%d;\n", slot);
	emit(cg, "l->it%d = c->iter_top;", slot);
	cg->err = arena_printf(&cg->s->arena, "L%d", lcatch);
	gen_block_body(cg, n->try.body);
	cg->err = outer;
	emit(cg, "goto L%d;", lend);
	emit(cg, "L%d:", lcatch);
	emit(cg, "c->iter_top = l->it%d;", slot);
	if (n->try.catch_var) {
		const struct symbol *cv = NULL;
		for (int i = 0; i < cg->scope->nlocals; i++)
			if (!strcmp(cg->scope->locals[i]->name, n->try.catch_var))
				cv = cg->scope->locals[i];
		if (cv)
			emit(cg, "stp_strcpy(%s, c->last_error ? c->last_error : \"\");",
			     var_ref(cg, cv));
	}
	emit(cg, "c->last_error = NULL;");
	emit(cg, "c->last_where = NULL;");
	gen_block_body(cg, n->try.handler);
	emit(cg, "L%d: ;", lend);
}

/* A counter statement: add to this CPU's slot (locks.c). */
static bool gen_count(struct cg *cg, struct node *n)
{
	const struct node *t = count_target(n);
	struct node *e = n->stmt.expr;
	int slot = t ? lock_plan_counter(cg->locks, t->sym) : -1;

	if (slot < 0)
		return false;
	emit(cg, "{");
	cg->depth++;
	if (e->kind == N_INCDEC)
		emit(cg, "this_cpu_%s(stp_counters[%d]);",
		     e->incdec.increment ? "inc" : "dec", slot);
	else
		emit(cg, "this_cpu_%s(stp_counters[%d], (u64)%s);",
		     e->binary.op == OP_ADD ? "add" : "sub", slot,
		     gen_expr(cg, e->binary.rhs));
	cg->depth--;
	emit(cg, "}");
	return true;
}

void gen_stmt(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		ast_foreach(st, n->block.stmts)
			gen_stmt(cg, st);
		return;
	case N_NULL_STMT:
		return;		/* also what the optimiser left of a statement */
	default:
		break;
	}
	action(cg, n);
	if (n == cg->skip)
		return;		/* the callback checked it */
	switch (n->kind) {
	case N_EXPR_STMT:
		if (gen_count(cg, n))
			break;
		if (n->stmt.expr->kind == N_EMBEDDED) {
			cg->embedded = true;
			gen_embedded_stmt(cg, n->stmt.expr);
			break;
		}
		emit(cg, "{");
		cg->depth++;
		gen_expr(cg, n->stmt.expr);
		cg->depth--;
		emit(cg, "}");
		break;
	case N_IF: {
		int64_t live;
		if (sema_folded_defined(n->cond.cond, &live)) {
			if (live)
				gen_stmt(cg, n->cond.then);
			else if (n->cond.els)
				gen_stmt(cg, n->cond.els);
			break;
		}
		emit(cg, "{");
		cg->depth++;
		const char *c = gen_expr(cg, n->cond.cond);
		emit(cg, "if (%s) {", c);
		cg->depth++;
		gen_stmt(cg, n->cond.then);
		cg->depth--;
		if (n->cond.els) {
			emit(cg, "} else {");
			cg->depth++;
			gen_stmt(cg, n->cond.els);
			cg->depth--;
		}
		emit(cg, "}");
		cg->depth--;
		emit(cg, "}");
		break;
	}
	case N_WHILE:
	case N_FOR:
		gen_loop(cg, n);
		break;
	case N_BREAK:
		emit(cg, "goto L%d;", cg->loop_break[cg->nloops - 1]);
		break;
	case N_CONTINUE:
		emit(cg, "goto L%d;", cg->loop_cont[cg->nloops - 1]);
		break;
	case N_NEXT:
		if (cg->scope->func)
			emit(cg, "c->next = true;");
		emit(cg, "goto out;");
		break;
	case N_RETURN:
		if (n->stmt.expr) {
			const char *v = gen_expr(cg, n->stmt.expr);
			if (cg->scope->func->sym->type == TY_STRING)
				emit(cg, "stp_strcpy(l->ret, %s);", v);
			else
				emit(cg, "l->ret = %s;", v);
		}
		emit(cg, "goto out;");
		break;
	case N_DELETE:
		gen_delete(cg, n->stmt.expr);
		break;
	case N_FOREACH:
		gen_foreach(cg, n);
		break;
	case N_TRY:
		gen_try(cg, n);
		break;
	case N_EMBEDDED:
		cg->embedded = true;
		gen_embedded_stmt(cg, n);
		break;
	default:
		unsupported(cg, n, ast_kind_name(n->kind));
		break;
	}
}

/* Can an unmangled parameter alias `name` sit beside the frame's members? */
static bool alias_ok(const char *name)
{
	return strncmp(name, "l_", 2) && strcmp(name, "ret") &&
	       strcmp(name, "__retvalue") && strcmp(name, "stp_unused");
}

/*
 * An embedded-C function, in the calling convention of script functions
 * (the caller fills the frame at c->nesting + 1, bumps c->nesting, reads
 * `ret` and checks c->last_error and c->next after), with SystemTap's
 * macros defined around the code and undefined after it:
 *   STAP_ARG_x, THIS->l_x   parameter x (int64_t, or a char array)
 *   THIS->x                 the same, with the marker unmangled
 *   STAP_RETVALUE, THIS->__retvalue   the result: int64_t, or a char
 *                           array of MAXSTRINGLEN (write it with strlcpy)
 *   STAP_RETURN(v)          set the result and leave (no argument when the
 *                           function returns nothing)
 *   STAP_ERROR(fmt, ...)    raise a runtime error and leave
 *   STAP_PRINTF(fmt, ...)   print (the kernel's printf conventions)
 *   STAP_NEXT               leave the probe, as `next`
 *   CONTEXT, THIS           the struct stp_context and the frame
 * `return` leaves through `out` as in SystemTap 4.8, so an error the code
 * set by hand (CONTEXT->last_error) still gets its location there.
 * Other markers are ignored for now: pure, stable, unprivileged,
 * myproc-unprivileged and guru (this compiler drops no call and takes
 * embedded C only where it is privileged anyway), pragma:read/write:VAR
 * (globals touched from C are not in the probe's lock mode).
 */
static void gen_embedded_fn(struct cg *cg, FILE *structs, FILE *bodies,
			    const struct probe_body *b)
{
	const struct script_func *fn = b->func;
	const char *code = fn->decl->func.body->embedded.code;
	bool unmangled = strstr(code, "/* unmangled */") != NULL;
	bool str = fn->sym->type == TY_STRING;
	bool value = str || fn->sym->type == TY_LONG;
	const struct srcfile *f = session_file(cg->s, b->probe->loc.file);
	int i;

	fprintf(structs, "struct stp_locals_fn_%d {\n", b->index);
	for (i = 0; i < fn->nparams; i++) {
		const struct symbol *p = b->locals[i];
		const char *ct = p->type == TY_STRING ? "char" : "int64_t";
		const char *dim = p->type == TY_STRING ? "[MAXSTRINGLEN]" : "";
		if (unmangled && alias_ok(p->name))
			fprintf(structs, "\tunion { %s l_%s%s; %s %s%s; };\n",
				ct, p->name, dim, ct, p->name, dim);
		else
			fprintf(structs, "\t%s l_%s%s;\n", ct, p->name, dim);
	}
	fputs(str ? "\tunion { char ret[MAXSTRINGLEN]; "
		    "char __retvalue[MAXSTRINGLEN]; };\n"
		  : "\tunion { int64_t ret; int64_t __retvalue; };\n", structs);
	fputs("\tchar stp_unused;\n};\n", structs);

	fprintf(bodies, "\n/* function %s at %s:%d:%d (embedded C) */\n",
		fn->sym->name, c_comment(cg, f ? f->name : "?"), b->probe->loc.line,
		b->probe->loc.col);
	fprintf(bodies, "%svoid stp_fn_%d(struct stp_context *c)\n{\n"
		"\tstruct stp_locals_fn_%d *l = stp_frame(c, c->nesting);\n\n",
		cg->split ? "" : "static ", b->index, b->index);
	fputs(str ? "\tl->ret[0] = '\\0';\n" : "\tl->ret = 0;\n", bodies);
	fputs("#define CONTEXT c\n#define THIS l\n", bodies);
	for (i = 0; i < fn->nparams; i++)
		fprintf(bodies, "#define STAP_ARG_%s THIS->l_%s\n",
			b->locals[i]->name, b->locals[i]->name);
	if (value)
		fputs("#define STAP_RETVALUE THIS->ret\n", bodies);
	if (str)
		fputs("#define STAP_RETURN(v) do { strlcpy(STAP_RETVALUE, (v), "
		      "MAXSTRINGLEN); goto out; } while (0)\n", bodies);
	else if (value)
		fputs("#define STAP_RETURN(v) do { STAP_RETVALUE = (int64_t)(v); "
		      "goto out; } while (0)\n", bodies);
	else
		fputs("#define STAP_RETURN() do { goto out; } while (0)\n",
		      bodies);
	fputs("#define STAP_ERROR(...) do { stp_errorf(c, __VA_ARGS__); "
	      "goto out; } while (0)\n"
	      "#define STAP_PRINTF(...) do { stp_printf(c, __VA_ARGS__); "
	      "} while (0)\n"
	      "#define STAP_NEXT do { c->next = true; goto out; } while (0)\n"
	      "#define return goto out\n", bodies);
	fprintf(bodies, "\t{\n%s\n\t}\n#undef return\nout:\n", code);
	/* as SystemTap 4.8, an error of the code is "near" the function */
	fprintf(bodies, "\tif (unlikely(c->last_error && !c->last_where))\n"
		"\t\tc->last_where = %s;\n", where(cg, fn->decl));
	fputs("#undef CONTEXT\n#undef THIS\n", bodies);
	for (i = 0; i < fn->nparams; i++)
		fprintf(bodies, "#undef STAP_ARG_%s\n", b->locals[i]->name);
	if (value)
		fputs("#undef STAP_RETVALUE\n", bodies);
	fputs("#undef STAP_RETURN\n#undef STAP_ERROR\n#undef STAP_PRINTF\n"
	      "#undef STAP_NEXT\n}\n", bodies);
}

/*
 * What probe body b's hits must set up of a context (STP_USE_*, see
 * runtime/probes.h), from what its code uses (b->uses: semantic/uses.h,
 * found on the elaborated program, its calls as the optimiser left
 * them): a body that calls a script function or has embedded C uses
 * everything; a runtime call given the context (printing, a library
 * function, a fault's message, a kind's value) may raise an error and
 * reads the context; so does a value from the registers. A body without
 * loops or calls runs at most cg->nactions statements: stp_free_B, after
 * its frame struct (with the types, which every unit of a split module
 * has), is whether MAXACTION (and MAXACTION_INTERRUPTIBLE, for begin and
 * end probes) can run out.
 */
static void body_use(struct cg *cg, const struct probe_body *b, FILE *out)
{
	/* a filter the callbacks check is not the handler's (cg->skip) */
	unsigned f = cg->skip ? sema_uses_without(b, cg->skip) : b->uses;
	unsigned u = 0;
	bool ctx_call = f & (USES_LIBRARY | USES_FAULT | USES_PRINT |
			     USES_MATCH | USES_EXIT | USES_KIND | USES_WRITE);

	if (f & (USES_CALL | USES_EMBEDDED))
		u = USE_ERROR | USE_PRINT | USE_CALL | USE_ITER | USE_MATCH |
		    USE_REGS | USE_CTX;
	if (ctx_call || (f & (USES_FAIL | USES_LEAVE | USES_TRY | USES_ENTRY)))
		u |= USE_ERROR;
	if (f & USES_PRINT)
		u |= USE_PRINT;
	if (f & (USES_FOREACH | USES_TRY))	/* try restores iter_top */
		u |= USE_ITER;
	if (f & USES_MATCH)
		u |= USE_MATCH;
	if (f & (USES_VALUES | USES_RETURN))
		u |= USE_REGS;
	if (ctx_call || (u & (USE_PRINT | USE_REGS)) ||
	    (f & (USES_POINT | USES_ENTRY | USES_KIND)))
		u |= USE_CTX;
	cg->use[b->index] = u;
	if (cg->looped || cg->calls)
		fprintf(out, "enum { stp_free_%d = 0 };\n", b->index);
	else
		fprintf(out, "enum { stp_free_%d = MAXACTION > %d && "
			"MAXACTION_INTERRUPTIBLE > %d };\n", b->index,
			cg->nactions, cg->nactions);
}

const char *use_expr(struct cg *cg, int b)
{
	static const char *const names[] = {
		"STP_USE_ERROR", "STP_USE_ACTION", "STP_USE_PRINT",
		"STP_USE_CALL", "STP_USE_ITER", "STP_USE_MATCH",
		"STP_USE_REGS", "STP_USE_CTX",
	};
	struct strbuf sb = { 0 };
	char *r;

	sb_puts(&sb, "(0");
	for (int i = 0; i < 8; i++)
		if (cg->use[b] & (1u << i))
			sb_printf(&sb, " | %s", names[i]);
	sb_printf(&sb, " | (stp_free_%d ? 0 : STP_USE_ACTION | "
		  "STP_USE_ERROR))", b);
	r = arena_printf(&cg->s->arena, "%s", sb_str(&sb));
	sb_free(&sb);
	return r;
}

/*
 * Writes the frame struct of a probe handler or script function to
 * structs and its C function to bodies.
 */
void gen_body(struct cg *cg, FILE *structs, FILE *bodies,
		     const struct probe_body *b)
{
	const struct script_func *fn = b->func;
	const char *kind = fn ? "fn" : "probe";
	const struct node *body = fn ? fn->decl->func.body : b->probe->probe.body;

	if (fn && fn->embedded) {
		gen_embedded_fn(cg, structs, bodies, b);
		return;
	}
	sb_reset(&cg->code);
	sb_reset(&cg->frame);
	cg->ntemps = 0;
	cg->nlabels = 0;
	cg->nloops = 0;
	cg->depth = 1;
	cg->err = "out";
	cg->scope = b;
	cg->nactions = 0;
	cg->looped = false;
	cg->embedded = false;
	cg->calls = false;
	cg->skip = !fn && cg->prefiltered && cg->prefiltered[b->index] ?
		   first_stmt(body) : NULL;

	if (fn) {
		sb_puts(&cg->frame, "\tu32 iter_base;\n");
		emit(cg, "l->iter_base = c->iter_top;");
		if (fn->sym->type == TY_STRING) {
			sb_puts(&cg->frame, "\tchar ret[MAXSTRINGLEN];\n");
			emit(cg, "l->ret[0] = '\\0';");
		} else {
			sb_puts(&cg->frame, "\tint64_t ret;\n");
			emit(cg, "l->ret = 0;");
		}
	}
	for (int i = 0; i < b->nlocals; i++) {
		const struct symbol *l = b->locals[i];
		bool param = fn && i < fn->nparams;
		if (l->type == TY_STRING) {
			sb_printf(&cg->frame, "\tchar l_%s[MAXSTRINGLEN];\n", l->name);
			if (!param)
				emit(cg, "l->l_%s[0] = '\\0';", l->name);
		} else {
			sb_printf(&cg->frame, "\tint64_t l_%s;\n", l->name);
			if (!param)
				emit(cg, "l->l_%s = 0;", l->name);
		}
	}
	if (!fn) {
		/* the body's kind: values it computes at a function's
		 * entry, first (a .return probe's @entry(...)) */
		const struct kind_emit *e = scope_emit(cg);
		if (e && e->prologue)
			e->prologue(cg, b);
	}
	gen_stmt(cg, (struct node *)body);

	const struct srcfile *f = session_file(cg->s, b->probe->loc.file);
	fprintf(structs, "struct stp_locals_%s_%d {\n%s\tchar stp_unused;\n};\n",
		kind, b->index, sb_str(&cg->frame));
	if (!fn && cg->bare)
		cg->bare[b->index] = cg->frame.len == 0;
	if (fn && fn->copy_of)
		fprintf(bodies, "\n/* function %s at %s:%d:%d, for probe %s */\n",
			fn->sym->name, c_comment(cg, f ? f->name : "?"),
			b->probe->loc.line, b->probe->loc.col,
			c_comment(cg, sema_probe_name(cg->prog, fn->ctx)));
	else if (fn)
		fprintf(bodies, "\n/* function %s at %s:%d:%d */\n",
			fn->sym->name, c_comment(cg, f ? f->name : "?"),
			b->probe->loc.line, b->probe->loc.col);
	else
		fprintf(bodies, "\n/* probe at %s:%d:%d */\n",
			c_comment(cg, f ? f->name : "?"),
			b->probe->loc.line, b->probe->loc.col);
	if (!fn)
		body_use(cg, b, structs);
	/* a body only "never" probes derive from has no table entry */
	bool listed = fn != NULL;
	int nprobes;
	const struct derived_probe *const *probes =
		body_probes(cg->prog, b, &nprobes);
	for (int i = 0; !listed && i < nprobes; i++)
		listed = emit_of(probes[i])->probe_type(probes[i]);
	/* a handler is inline: its one callback (tracepoint, ftrace) may
	 * take it in, as it did when the runtime's stp_hit_B called it too
	 * (a handler called through the table, or from another unit, is a
	 * function all the same) */
	fprintf(bodies, "%svoid %sstp_%s_%d(struct stp_context *c)\n{\n",
		cg->split ? "" : fn ? "static " : "static inline ",
		listed ? "" : "__maybe_unused ", kind, b->index);
	fprintf(bodies, "\tstruct stp_locals_%s_%d *l = stp_frame(c, %s);\n\n",
		kind, b->index, fn ? "c->nesting" : "0");
	fputs(sb_str(&cg->code), bodies);
	if (fn)
		fputs("out:\n\tc->iter_top = l->iter_base;\n}\n", bodies);
	else
		fputs("out:\n\treturn;\n}\n", bodies);
}
