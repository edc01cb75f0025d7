// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3: which globals an event probe locks, and how.
 *
 * Begin, end and error probes run one at a time in process context and
 * never while an event probe can run (events are armed after the begin
 * probes and disarmed, with a grace period, before the end probes), so
 * they take no lock. Among event probes (timers, tracepoints, kernel
 * functions), a global needs a lock only when some event probe needs it
 * exclusively: it assigns, increments or deletes it, or reads a
 * statistic (aggregating every CPU's slot). Then each event probe that
 * touches it, directly or through the functions it calls, takes its
 * rwlock: for writing when it needs it exclusively, for reading when it
 * only reads it or adds to a statistic with `<<<`. A global that event
 * probes only read takes no lock at all. Locks are taken in global index order, each by trylock
 * (runtime/probes.c), so probes never deadlock or block.
 *
 * A statistic is per CPU: `<<<` writes this CPU's part only. When an
 * event probe also reads it (aggregates every CPU's part), its lock is
 * one per CPU instead of an rwlock (DEFINE_PER_CPU): a probe that only
 * `<<<`s takes this CPU's, one that reads takes every CPU's in CPU
 * order (runtime/probes.c), for the whole hit as with an rwlock. So a
 * reader sees no `<<<` in flight and nothing changes while it runs, as
 * with SystemTap's rwlock, but writers on different CPUs never touch a
 * shared cache line. A statistic event probes only add to has no lock.
 *
 * A counter is a number that event probes only count with: `n++`, `n--`,
 * `n += e` or `n -= e` as a whole statement (the new value unused), no
 * other mention, also not in embedded C. Those statements add to this
 * CPU's slot (runtime/stat.c, stp_counters): no lock, no shared cache
 * line. Anything else that mentions it, in begin, end and error probes,
 * first folds every slot into the plain variable; no event probe runs
 * then, and folding changes nothing a script can see.
 */
#include "module/locks.h"
#include "module/emit.h"
#include "lib/hash.h"
#include "lib/hashset.h"

#include <stdlib.h>
#include <string.h>

enum {
	ACC_READ = 1,			/* reads a long, string or array */
	ACC_ADD = 2,			/* `<<<` into a statistic */
	ACC_EXCL = 4,			/* writes, or aggregates a statistic */
	ACC_COUNT = 8,			/* a counter statement (see above) */
	ACC_PRAGMA = 16,		/* named by embedded C */
};

struct access_walk {
	const struct program *prog;
	unsigned char *mask;		/* [nglobals]: scratch, zero between
					 * scopes */
	int *touched;			/* the globals mask has bits for */
	int ntouched, touched_cap;
	struct hashset adds;		/* N_VAR targets of `<<<` and of
					 * counter statements (node hashes) */
};

/* Adds access bits acc to global g of the scope being walked. */
static void touch(struct access_walk *w, int g, unsigned char acc)
{
	if (!w->mask[g])
		VEC_PUSH(w->touched, w->ntouched, w->touched_cap, g);
	w->mask[g] |= acc;
}

static uint64_t node_hash(const struct node *n)
{
	return fnv1a(FNV_OFFSET, &n, sizeof(n));
}

static const struct node *global_target(const struct node *n)
{
	if (n && n->kind == N_INDEX)
		n = n->index.array;
	if (n && n->kind == N_VAR && n->sym && n->sym->kind == SYM_GLOBAL)
		return n;
	return NULL;
}

/*
 * Embedded C's "pragma:read:NAME" / "pragma:write:NAME" comments (pass 2
 * checked that NAME is a scalar global of the file).
 */
static void note_pragmas(struct access_walk *w, const struct node *n)
{
	static const char *const kinds[] = { "pragma:read:", "pragma:write:" };
	const char *code = n->embedded.code;

	for (int k = 0; k < 2; k++)
		for (const char *p = strstr(code, kinds[k]); p;
		     p = strstr(p, kinds[k])) {
			p += strlen(kinds[k]);
			size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_");
			for (int g = 0; g < w->prog->nglobals; g++) {
				const struct symbol *sym = w->prog->globals[g];
				if (strlen(sym->name) == len &&
				    !strncmp(sym->name, p, len) &&
				    sym->decl->loc.file == n->loc.file)
					touch(w, sym->index, ACC_PRAGMA |
					      (k ? ACC_EXCL : ACC_READ));
			}
		}
}

const struct node *count_target(const struct node *stmt)
{
	const struct node *e = stmt->kind == N_EXPR_STMT ? stmt->stmt.expr :
			       NULL;
	const struct node *t = NULL;

	if (e && e->kind == N_INCDEC)
		t = e->incdec.operand;
	else if (e && e->kind == N_ASSIGN &&
		 (e->binary.op == OP_ADD || e->binary.op == OP_SUB))
		t = e->binary.lhs;
	if (!t || t->kind != N_VAR || !t->sym || t->sym->kind != SYM_GLOBAL ||
	    t->sym->type != TY_LONG || t->sym->nkeys)
		return NULL;
	return t;
}

static void note_add(struct access_walk *w, const struct node *t, int acc)
{
	hashset_add(&w->adds, node_hash(t));
	touch(w, t->sym->index, (unsigned char)acc);
}

static bool noted(const struct access_walk *w, const struct node *n)
{
	return hashset_has(&w->adds, node_hash(n));
}

/* First pass: the targets of `<<<`, counter statements, what
 * assignments write. */
static void note_writes(struct node *n, void *arg)
{
	struct access_walk *w = arg;
	const struct node *t = NULL;

	switch (n->kind) {
	case N_EMBEDDED:
		note_pragmas(w, n);
		return;
	case N_EXPR_STMT:
		t = count_target(n);
		if (t)
			note_add(w, t, ACC_COUNT);
		return;
	case N_ASSIGN:
		t = global_target(n->binary.lhs);
		if (t && noted(w, t))
			return;		/* a counter statement's */
		if (t && n->binary.op == OP_AGG) {
			note_add(w, t, ACC_ADD);
			return;
		}
		break;
	case N_INCDEC:
		t = global_target(n->incdec.operand);
		if (t && noted(w, t))
			return;
		break;
	case N_DELETE:
		t = global_target(n->stmt.expr);
		break;
	default:
		return;
	}
	if (t)
		touch(w, t->sym->index, ACC_EXCL);
}

/* Second pass: every other mention reads (a statistic: aggregates). */
static void note_reads(struct node *n, void *arg)
{
	struct access_walk *w = arg;

	if (n->kind != N_VAR || !n->sym || n->sym->kind != SYM_GLOBAL ||
	    noted(w, n))
		return;
	touch(w, n->sym->index, n->sym->type == TY_STATS ? ACC_EXCL :
	      ACC_READ);
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* What one scope's own code touches, as its list in global order (the
 * walk's scratch row is left zero again). */
static void scope_access(struct access_walk *w, struct node *body,
			 struct lock_scope *out)
{
	w->ntouched = 0;
	hashset_free(&w->adds);
	ast_visit(body, note_writes, w);
	ast_visit(body, note_reads, w);
	if (w->ntouched)	/* touched is NULL until the first */
		qsort(w->touched, (size_t)w->ntouched, sizeof(*w->touched),
		      int_cmp);
	out->n = w->ntouched;
	out->acc = xmalloc(((size_t)out->n + 1) * sizeof(*out->acc));
	for (int i = 0; i < w->ntouched; i++) {
		int g = w->touched[i];

		out->acc[i] = (struct lock_access){ g, w->mask[g] };
		w->mask[g] = 0;
	}
}

/* s |= c, both in global order; whether s changed. */
static bool merge_scope(struct lock_scope *s, const struct lock_scope *c)
{
	struct lock_access *m;
	int i = 0, j = 0, n = 0;
	bool changed = false;

	if (!c->n)
		return false;
	m = xmalloc(((size_t)s->n + c->n + 1) * sizeof(*m));
	while (i < s->n || j < c->n) {
		if (j == c->n ||
		    (i < s->n && s->acc[i].global < c->acc[j].global)) {
			m[n++] = s->acc[i++];
		} else if (i == s->n || c->acc[j].global < s->acc[i].global) {
			m[n++] = c->acc[j++];
			changed = true;
		} else {
			m[n] = s->acc[i++];
			if ((m[n].acc | c->acc[j].acc) != m[n].acc)
				changed = true;
			m[n++].acc |= c->acc[j++].acc;
		}
	}
	free(s->acc);
	s->acc = m;
	s->n = n;
	return changed;
}

/* Does dp run on kernel events (not begin, end or error)? */
static bool is_event(const struct derived_probe *dp)
{
	return emit_of(dp)->event;
}

/*
 * Each scope's accesses are a list in global order (a matrix of scopes by
 * globals was quadratic: 10,000 written-only globals are 10,000 display
 * probes), so the plan is linear in the accesses the code makes.
 */
void lock_plan_build(struct lock_plan *lp, const struct program *prog)
{
	int ng = prog->nglobals, nb = prog->nbodies, nf = prog->nfuncs;
	struct access_walk w = { .prog = prog };
	unsigned char *pragma, *counts, *other;
	bool changed = true;

	memset(lp, 0, sizeof(*lp));
	lp->prog = prog;
	lp->scope = calloc((size_t)nb + nf + 1, sizeof(*lp->scope));
	lp->locked = calloc((size_t)ng + 1, 1);
	lp->counter = calloc((size_t)ng + 1, sizeof(*lp->counter));
	lp->event_body = calloc((size_t)nb + 1, 1);
	w.mask = calloc((size_t)ng + 1, 1);
	pragma = calloc((size_t)ng + 1, 1);
	counts = calloc((size_t)ng + 1, 1);
	other = calloc((size_t)ng + 1, 1);
	if (!lp->scope || !lp->locked || !lp->counter || !lp->event_body ||
	    !w.mask || !pragma || !counts || !other)
		abort();
	for (int i = 0; i < nb; i++)
		scope_access(&w, prog->bodies[i]->probe->probe.body,
			     &lp->scope[i]);
	for (int i = 0; i < nf; i++)
		if (prog->funcs[i]->used)	/* embedded: its pragmas */
			scope_access(&w, prog->funcs[i]->decl->func.body,
				     &lp->scope[nb + i]);
	hashset_free(&w.adds);
	free(w.touched);
	free(w.mask);
	/* what the functions a scope calls touch, transitively */
	while (changed) {
		changed = false;
		for (int s = 0; s < nb + nf; s++) {
			const struct probe_body *b = s < nb ? prog->bodies[s] :
				prog->funcs[s - nb]->scope;
			for (int c = 0; c < b->ncallees; c++)
				changed |= merge_scope(&lp->scope[s],
					&lp->scope[nb + b->callees[c]->index]);
		}
	}
	for (int i = 0; i < prog->nprobes; i++)
		if (is_event(prog->probes[i]))
			lp->event_body[prog->probes[i]->body->index] = 1;
	/* counters: events only count, nothing in embedded C */
	for (int s = 0; s < nb + nf; s++)
		for (int k = 0; k < lp->scope[s].n; k++) {
			const struct lock_access *a = &lp->scope[s].acc[k];

			pragma[a->global] |= (a->acc & ACC_PRAGMA) != 0;
			if (s >= nb || !lp->event_body[s])
				continue;
			counts[a->global] |= (a->acc & ACC_COUNT) != 0;
			other[a->global] |= (a->acc & ~ACC_COUNT) != 0;
		}
	for (int g = 0; g < ng; g++)
		/* the per-CPU allocator's limit is 32 KiB a block */
		if (counts[g] && !other[g] && !pragma[g] &&
		    lp->ncounters < 1024)
			lp->counter[g] = ++lp->ncounters;
	free(pragma);
	free(counts);
	free(other);
	/* a global that is no counter: counting it writes it */
	for (int s = 0; s < nb + nf; s++)
		for (int k = 0; k < lp->scope[s].n; k++) {
			struct lock_access *a = &lp->scope[s].acc[k];

			if (!lp->counter[a->global] && (a->acc & ACC_COUNT))
				a->acc |= ACC_EXCL;
		}
	for (int b = 0; b < nb; b++)
		for (int k = 0; lp->event_body[b] && k < lp->scope[b].n; k++)
			if (lp->scope[b].acc[k].acc & ACC_EXCL)
				lp->locked[lp->scope[b].acc[k].global] = 1;
}

int lock_plan_nlocks(const struct lock_plan *lp, int b)
{
	int n = 0;

	for (int k = 0; lp->event_body[b] && k < lp->scope[b].n; k++)
		n += lp->locked[lp->scope[b].acc[k].global];
	return n;
}

int lock_plan_counter(const struct lock_plan *lp, const struct symbol *sym)
{
	if (!lp || !sym || sym->kind != SYM_GLOBAL)
		return -1;
	return lp->counter[sym->index] - 1;
}

void lock_plan_free(struct lock_plan *lp)
{
	for (int s = 0; lp->scope && s < lp->prog->nbodies + lp->prog->nfuncs;
	     s++)
		free(lp->scope[s].acc);
	free(lp->scope);
	free(lp->locked);
	free(lp->counter);
	free(lp->event_body);
	memset(lp, 0, sizeof(*lp));
}

void lock_plan_emit_locks(const struct lock_plan *lp, FILE *out)
{
	const struct program *prog = lp->prog;
	bool any = false;

	for (int g = 0; g < prog->nglobals; g++) {
		if (!lp->locked[g])
			continue;
		if (!any)
			fputs("\n/* globals that event probes share: one lock "
			      "each, taken in this order */\n", out);
		any = true;
		if (prog->globals[g]->type == TY_STATS)
			fprintf(out, "static DEFINE_PER_CPU(atomic_t, "
				"stp_gplock_%d);\t/* %s: per CPU */\n", g,
				prog->globals[g]->name);
		else
			fprintf(out, "static rwlock_t stp_glock_%d "
				"____cacheline_aligned_in_smp = "
				"__RW_LOCK_UNLOCKED(stp_glock_%d);\t/* %s */\n",
				g, g, prog->globals[g]->name);
	}
	for (int b = 0; b < prog->nbodies; b++) {
		int n = 0;
		if (!lp->event_body[b])
			continue;
		for (int k = 0; k < lp->scope[b].n; k++) {
			int g = lp->scope[b].acc[k].global;
			unsigned char m = lp->scope[b].acc[k].acc;
			if (!lp->locked[g])
				continue;
			if (!n++)
				fprintf(out, "static const struct stp_lock "
					"stp_locks_%d[] = {\n", b);
			if (prog->globals[g]->type == TY_STATS)
				fprintf(out, "\t{ .write = %s, .pcpu = "
					"&stp_gplock_%d },\n",
					m & ACC_EXCL ? "true" : "false", g);
			else
				fprintf(out, "\t{ &stp_glock_%d, %s },\n", g,
					m & ACC_EXCL ? "true" : "false");
		}
		if (n)
			fputs("};\n", out);
	}
}

void lock_plan_table_fields(const struct lock_plan *lp,
			    const struct derived_probe *dp, FILE *out)
{
	int b = dp->body->index, n;

	if (!is_event(dp))
		return;
	n = lock_plan_nlocks(lp, b);
	if (n)
		fprintf(out, ",\n\t  .locks = stp_locks_%d, .nlocks = %d", b, n);
}
