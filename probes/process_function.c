// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A user binary's places: process("PATH").function("PATTERN") (.call,
 * .return), process("PATH").plt("PATTERN") (.return), and
 * process("PATH").mark("NAME") (.note.stapsdt marks, also under
 * .provider("P")), each also under .library("LIB"). PATH and LIB are
 * found as SystemTap finds them (target/userpath.h); the places come
 * from the binary through the ELF/DWARF reader (elf/): functions from
 * its symbol table (named as the DWARF declares them when it has
 * DWARF), PLT stubs, SDT notes. Every probe is a uprobe (ATTACH_UPROBE)
 * at the place's offset in the file.
 *
 * Context values: $return in .return probes (the return register, as
 * wide as the function's DWARF return type); a mark's $arg1..$argN
 * (from the note's operands, read from the process's registers and
 * memory), $$name, $$provider and $$parms; a .plt probe's $$name; a
 * function's $$parms, $$locals, $$vars (and $$return); a function's
 * scalar parameters and variables ($a, a pointer $p, $p->f) at its entry
 * (also in a .return probe: read at the entry), from
 * its DWARF location (module/loc_c.h renders it over the user registers
 * and the process's memory).
 */
#define _GNU_SOURCE
#include "probes/probes.h"

#include <fnmatch.h>

#include "elf/arch.h"
#include "elf/elf.h"
#include "target/dwloc.h"
#include "target/functions.h"
#include "target/userpath.h"

#include "probes/process_function.h"


/* ---- the point's shape ----------------------------------------------- */

static int derive(struct sema *se, struct node *point, struct derived_probe *dp)
{
	struct up_probe *u = up_of(dp);
	struct node *proc = point->point.comps, *c = proc->next;

	if (!c || (proc->comp.arg && proc->comp.arg->kind != N_STRING))
		return -1;
	if (proc->comp.arg) {
		u->path = proc->comp.arg->str.value;
	} else if (se->s->target_cmd) {
		/* process.function(...): the -c command's program */
		const char *cmd = se->s->target_cmd + strspn(se->s->target_cmd,
							    " \t");
		u->path = arena_strndup(&se->s->arena, cmd,
					strcspn(cmd, " \t"));
	} else if (se->s->target_pid) {
		/* -x PID: the program the process runs */
		u->path = arena_printf(&se->s->arena, "/proc/%ld/exe",
				       se->s->target_pid);
	} else {
		return -1;	/* no program: unsupported.c says so */
	}
	if (comp_is(c, "library")) {
		if (!is_str_arg(c))
			return -1;
		u->library = c->comp.arg->str.value;
		c = c->next;
	}
	if (comp_is(c, "provider") && is_str_arg(c) && comp_is(c->next, "mark")) {
		u->provider = c->comp.arg->str.value;
		c = c->next;
	}
	if (c && comp_is(c, "plt") && !c->comp.arg) {
		u->what = UP_PLT;	/* .plt: every stub */
		u->pattern = "*";
		c = c->next;
		goto suffix;
	}
	if (!c || !is_str_arg(c))
		return -1;
	if (comp_is(c, "function"))
		u->what = UP_FUNCTION;
	else if (comp_is(c, "plt"))
		u->what = UP_PLT;
	else if (comp_is(c, "mark"))
		u->what = UP_MARK;
	else if (comp_is(c, "statement") && !u->provider)
		u->what = UP_STATEMENT;
	else
		return -1;
	u->pattern = c->comp.arg->str.value;
	c = c->next;
suffix:
	if (c && comp_is(c, "call") && u->what == UP_FUNCTION && !c->comp.arg) {
		u->call = true;
		c = c->next;
	} else if (c && comp_is(c, "inline") && u->what == UP_FUNCTION &&
		   !c->comp.arg) {
		u->inlined = true;
		c = c->next;
	}
	else if (c && comp_is(c, "return") && (u->what == UP_FUNCTION ||
						u->what == UP_PLT) &&
		 !c->comp.arg) {
		u->ret = true;
		c = c->next;
	}
	if (c)
		return -1;	/* .inline, .statement ...: not ours yet */
	return true;
}

/* ---- the places ------------------------------------------------------- */

/*
 * The size and signedness of a C base type or pointer as the DWARF names
 * it ("int", "long unsigned int", "char const*"): 0 (the whole register)
 * for anything else.
 */
static void ctype_size(const char *t, unsigned *size, bool *is_signed)
{
	static const struct { const char *name; unsigned size; bool sign; }
	types[] = {
		{ "char", 1, true }, { "signed char", 1, true },
		{ "unsigned char", 1, false }, { "_Bool", 1, false },
		{ "bool", 1, false },
		{ "short int", 2, true }, { "short unsigned int", 2, false },
		{ "int", 4, true }, { "unsigned int", 4, false },
		{ "long int", 8, true }, { "long unsigned int", 8, false },
		{ "long long int", 8, true },
		{ "long long unsigned int", 8, false },
	};

	*size = 0;
	*is_signed = false;
	if (!t)
		return;
	if (t[strlen(t) - 1] == '*') {
		*size = 8;
		return;
	}
	if (!strncmp(t, "enum ", 5)) {
		*size = 4;
		return;
	}
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		if (!strcmp(t, types[k].name)) {
			*size = types[k].size;
			*is_signed = types[k].sign;
		}
}

struct places {
	struct arena *a;
	struct place *v;
	int n, cap;
};

static struct place *add_place(struct places *p, const char *label,
			       uint64_t addr, const struct elf_sdt *sdt)
{
	for (int i = 0; i < p->n; i++)
		if (p->v[i].addr == addr && !strcmp(p->v[i].label, label))
			return NULL;	/* an alias of the same symbol */
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		struct place *v = arena_alloc(p->a, (size_t)cap * sizeof(*v));
		if (p->n)
			memcpy(v, p->v, (size_t)p->n * sizeof(*v));
		p->v = v;
		p->cap = cap;
	}
	/* the file's strings and notes die with it: copies */
	p->v[p->n] = (struct place){ .label = arena_strdup(p->a, label),
				     .addr = addr };
	if (sdt) {
		struct elf_sdt *c = arena_alloc(p->a, sizeof(*c));
		struct elf_sdt_arg *args = arena_alloc(p->a, (size_t)
			(sdt->nargs ? sdt->nargs : 1) * sizeof(*args));

		*c = *sdt;
		c->provider = arena_strdup(p->a, sdt->provider);
		c->name = arena_strdup(p->a, sdt->name);
		c->args = sdt->args ? arena_strdup(p->a, sdt->args) : NULL;
		c->error = sdt->error ? arena_strdup(p->a, sdt->error) : NULL;
		for (int i = 0; i < sdt->nargs; i++) {
			args[i] = sdt->arg[i];
			if (args[i].text)
				args[i].text = arena_strdup(p->a, args[i].text);
			if (args[i].symbol)
				args[i].symbol = arena_strdup(p->a,
							      args[i].symbol);
		}
		c->arg = args;
		p->v[p->n].sdt = c;
	}
	return &p->v[p->n++];
}

struct sym_match {
	struct places *out;
	const char *pattern;
};

static int match_symtab(const struct elf_sym *s, void *arg)
{
	struct sym_match *m = arg;

	if (s->type == 2 /* STT_FUNC */ && s->shndx && s->addr &&
	    !fnmatch(m->pattern, s->name, 0))
		add_place(m->out, s->name, s->addr, NULL);
	return 0;
}

static int place_cmp(const void *a, const void *b)
{
	return strcmp(((const struct place *)a)->label,
		      ((const struct place *)b)->label);
}

/*
 * The functions of pattern ("NAME[@FILE[:LINE]]") in file, through the
 * function catalog the kernel's functions use (target/functions.h: the
 * DWARF's functions with their instances and variables, and the symbol
 * table's functions without DWARF): false when the file has no DWARF.
 * ret: .return (out-of-line copies); call: .call (the same); inl:
 * .inline (inlined copies).
 */
static bool dwarf_places(struct places *p, const char *file,
			 const char *pattern, bool ret, bool call, bool inl)
{
	struct kf_catalog cat;
	struct kf_query q = { .line = -1, .guru = true };
	struct kf_point *pts;
	char *err = NULL, *pat = arena_strdup(p->a, pattern), *at;
	int n;

	if (kf_catalog_load("user", file, NULL, &cat, &err) != 0) {
		free(err);
		return false;
	}
	if ((at = strchr(pat, '@'))) {
		char *colon = strchr(at + 1, ':');
		*at = '\0';
		q.file = at + 1;
		if (colon) {
			*colon = '\0';
			q.line = atoi(colon + 1);
		}
	}
	q.func = pat;
	q.kind = ret ? KF_RETURN : call ? KF_CALL : inl ? KF_INLINE : KF_ANY;
	n = kf_catalog_match(&cat, &q, &pts);
	for (int i = 0; i < n; i++) {
		const struct kfunc *f = pts[i].f;
		const char *label = !*f->file ? arena_strdup(p->a, f->name) :
				    f->line > 0 ?
				    arena_printf(p->a, "%s@%s:%d", f->name,
						 f->file, f->line) :
				    arena_printf(p->a, "%s@%s", f->name, f->file);
		for (int k = 0; k < pts[i].ninst; k++) {
			const struct kf_inst *in = pts[i].inst[k];
			struct place *pl = add_place(p, label, in->addr, NULL);

			if (!pl)
				continue;
			pl->dwarf = !(f->flags & KF_SYMTAB);
			pl->inlined = in->flags & KF_INST_INLINE;
			pl->cu = in->cu;
			pl->ret_type = f->ret_type ?
				       arena_strdup(p->a, f->ret_type) : NULL;
			pl->nvars = pts[i].nvars;
			pl->vars = arena_alloc(p->a, (size_t)(pl->nvars + 1) *
					       sizeof(*pl->vars));
			for (int v = 0; v < pl->nvars; v++)
				pl->vars[v] = arena_strdup(p->a,
							   pts[i].vars[v]);
		}
	}
	kf_points_free(pts, n);
	kf_catalog_free(&cat);
	return true;
}

/*
 * The statements of pattern ("FUNC@FILE:LINE", LINE also N-M or "*",
 * or +N) in file, as kernel.statement finds them (target/functions.h),
 * each with its variables there.
 */
static void statement_places(struct places *p, const char *file,
			     const char *pattern)
{
	struct kf_catalog cat;
	struct kf_stmt *pts;
	char *err = NULL;
	int n;

	if (kf_catalog_load("user", file, NULL, &cat, &err) != 0) {
		free(err);
		return;
	}
	n = kf_statement_points(&cat, file, pattern, true, true, &pts, &err);
	free(err);
	for (int i = 0; i < n; i++) {
		const char *label = arena_printf(p->a, "%s@%s:%d", pts[i].func,
						 pts[i].file, pts[i].line);
		struct place *pl = add_place(p, label, pts[i].addr, NULL);

		if (!pl)
			continue;
		pl->dwarf = true;
		pl->cu = pts[i].cu;
		pl->entry = pts[i].entry;
		for (pl->nvars = 0; pts[i].vars && pts[i].vars[pl->nvars];)
			pl->nvars++;
		pl->vars = arena_alloc(p->a, (size_t)(pl->nvars + 1) *
				       sizeof(*pl->vars));
		for (int v = 0; v < pl->nvars; v++)
			pl->vars[v] = arena_strdup(p->a, pts[i].vars[v]);
	}
	if (n > 0)
		kf_stmts_free(pts, n);
	kf_catalog_free(&cat);
}

/* The places of u's pattern in one file: how many, *out in a. */
static int find_places(struct arena *a, struct elf_file *ef,
		       const struct up_probe *u, struct place **out)
{
	struct places p = { .a = a };

	if (u->what == UP_FUNCTION) {
		if (!dwarf_places(&p, elf_file_path(ef), u->pattern, u->ret,
				  u->call, u->inlined)) {
			struct sym_match m = { &p, u->pattern };
			elf_file_symbols(ef, match_symtab, &m);
		}
	} else if (u->what == UP_STATEMENT) {
		statement_places(&p, elf_file_path(ef), u->pattern);
	} else if (u->what == UP_PLT) {
		const struct elf_plt *plt;
		int n = elf_file_plt(ef, &plt);

		for (int i = 0; i < n; i++)
			if (!fnmatch(u->pattern, plt[i].name, 0))
				add_place(&p, plt[i].name, plt[i].addr, NULL);
	} else {
		const struct elf_sdt *sdt;
		int n = elf_file_sdt(ef, &sdt);

		for (int i = 0; i < n; i++)
			if (!fnmatch(u->pattern, sdt[i].name, 0) &&
			    (!u->provider ||
			     !fnmatch(u->provider, sdt[i].provider, 0)))
				add_place(&p, sdt[i].name, sdt[i].pc, &sdt[i]);
	}
	if (p.n > 1)
		qsort(p.v, (size_t)p.n, sizeof(*p.v), place_cmp);
	*out = p.v;
	return p.n;
}

static const char *const what_names[] = {
	[UP_FUNCTION] = "function", [UP_PLT] = "plt", [UP_MARK] = "mark",
	[UP_STATEMENT] = "statement",
};

/* Does a body read what each probe has its own of ($$parms, $$vars,
 * $$locals, $$return; @defined)? Then each probe gets its own body. */
static void find_own(struct node *n, void *arg)
{
	if ((n->kind == N_TARGET && !strncmp(n->target.name, "$$", 2) &&
	     strcmp(n->target.name, "$$name") &&
	     strcmp(n->target.name, "$$provider")) ||
	    (n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined")))
		*(bool *)arg = true;
}

/*
 * A point that matches nothing: its error waits until the body has been
 * checked (finish), as SystemTap checks the bodies of the points it
 * cannot resolve too, through a probe of the body that attaches
 * nothing and has no context values. An optional point is nothing.
 */
static int no_match(struct sema *se, struct node *point, struct node *at,
		    struct derived_probe *dp, struct probe_body *b,
		    const char *msg)
{
	struct derived_probe *d;

	if (point->point.optional || se->optional)
		return 0;
	d = sema_clone_derived(se, dp);
	up_of(d)->nomatch = msg;
	up_of(d)->nomatch_at = at;
	sema_add_derived(se, d, b);
	return 1;
}

/* Has the body being walked a probe that matched nothing? Its context
 * values are not checked then (its point's error says enough). */
bool up_body_nomatch(struct sema *se)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body == sema_ctx(se) &&
		    dp->family == &process_function_family &&
		    up_of(dp)->nomatch)
			return true;
	}
	return false;
}

static void finish(struct sema *se)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		if (dp->family == &process_function_family &&
		    up_of(dp)->nomatch)
			point_error(se, dp->point, up_of(dp)->nomatch_at,
				    up_of(dp)->nomatch);
	}
}

/*
 * The files of .library(lib) in process proc: a pattern with a wildcard
 * and no '/' ("*", "libc*") is matched, as SystemTap 4.8 matches it,
 * against the libraries the program needs (ldd's list: DT_NEEDED,
 * transitively, and the interpreter), by path or file name; anything
 * else is found as userpath_resolve finds a library.
 */
static int library_files(struct arena *a, const char *proc, const char *lib,
			 const char ***out)
{
	const char **pf, **libs = NULL;
	int nlibs = 0, n = 0;

	if (!strpbrk(lib, "*?[") || strchr(lib, '/'))
		return userpath_resolve(a, lib, true, out);
	if (userpath_resolve(a, proc, false, &pf) != 1)
		return 0;
	userpath_needed(a, pf[0], &libs, &nlibs);
	*out = arena_alloc(a, (size_t)(nlibs ? nlibs : 1) * sizeof(**out));
	for (int i = 0; i < nlibs; i++) {
		const char *base = strrchr(libs[i], '/');
		if (!fnmatch(lib, libs[i], 0) ||
		    (base && !fnmatch(lib, base + 1, 0)))
			(*out)[n++] = libs[i];
	}
	free(libs);
	return n;
}

static int expand(struct sema *se, struct node *point,
		  struct derived_probe *dp, struct probe_body *b)
{
	bool own = false, used = false;

	sema_visit_reached(se, b->probe->probe.body, find_own, &own);
	for (int i = 0; own && i < se->prog->nprobes; i++)
		used |= se->prog->probes[i]->body == b;
	struct up_probe *u = up_of(dp);
	struct arena *a = &se->s->arena;
	const char **files;
	int nfiles, derived = 0;
	struct node *at = point->point.comps;

	nfiles = u->library ? library_files(a, u->path, u->library, &files) :
			      userpath_resolve(a, u->path, false, &files);
	if (!nfiles)
		return no_match(se, point, at, dp, b, arena_printf(a, "no match "
				"for probe point '%s': cannot find %s '%s'",
				dp->pp, u->library ? "library" : "executable",
				u->library ? u->library : u->path));
	/* the process the library is in, as the point names it */
	const char *proc = u->path;
	if (u->library) {
		const char **pf;
		if (userpath_resolve(a, u->path, false, &pf) == 1)
			proc = pf[0];
	}
	for (int f = 0; f < nfiles; f++) {
		char *err = NULL;
		struct elf_file *ef = elf_file_open(files[f], NULL, &err);
		struct place *pl;

		if (!ef) {
			const char *msg = arena_printf(a, "cannot read '%s': %s",
						       files[f],
						       err ? err : "not ELF");
			free(err);
			if (derived)
				return point_error(se, point, at, msg), derived;
			return no_match(se, point, at, dp, b, msg);
		}
		int n = find_places(a, ef, u, &pl);
		for (int i = 0; i < n; i++) {
			uint64_t off, pc = pl[i].addr;
			/* a function's entry probe in code built without
			 * optimisation: after the prologue, as 4.8 */
			if (u->what == UP_FUNCTION && !u->ret && pl[i].dwarf &&
			    !pl[i].inlined)
				pc = elf_file_after_prologue(ef, pl[i].addr);
			if (!elf_file_addr_offset(ef, pc, &off))
				continue;
			struct derived_probe *d = sema_clone_derived(se, dp);
			struct up_probe *du = up_of(d);
			du->file = files[f];
			du->addr = pc;
			du->offset = off;
			du->sdt = pl[i].sdt;
			if (pl[i].sdt && pl[i].sdt->semaphore &&
			    !elf_file_addr_offset(ef, pl[i].sdt->semaphore,
						  &du->semaphore_offset))
				du->semaphore_offset = 0;
			if (u->ret)
				ctype_size(pl[i].ret_type, &du->ret_size,
					   &du->ret_signed);
			du->place = pl[i];
			if (pc != pl[i].addr) {
				/* the variables as at a statement there */
				du->place.entry = pl[i].addr;
				du->after_prologue = true;
			}
			if (u->library)
				d->pp = arena_printf(a, "process(\"%s\").library"
					"(\"%s\").%s(\"%s\")%s", proc, files[f],
					what_names[u->what], pl[i].label,
					u->ret ? ".return" : u->call ? ".call" :
					u->inlined ? ".inline" : "");
			else
				d->pp = arena_printf(a, "process(\"%s\").%s"
					"(\"%s\")%s", files[f],
					what_names[u->what], pl[i].label,
					u->ret ? ".return" : u->call ? ".call" :
					u->inlined ? ".inline" : "");
			sema_add_derived(se, d, own && (derived || used) ?
					 sema_own_body(se, b) : b);
			derived++;
		}
		elf_file_close(ef);
	}
	if (!derived)
		return no_match(se, point, at, dp, b, arena_printf(a, "no match "
				"for probe point '%s'", point_string(se, point)));
	return derived;
}

/* ---- context values --------------------------------------------------- */

/* Are all probes of the body being walked of this shape? */
bool up_body_all(struct sema *se, enum up_what what, bool ret)
{
	const struct probe_body *b = sema_ctx(se);
	bool any = false;

	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (dp->family != &process_function_family ||
		    up_of(dp)->what != what || up_of(dp)->ret != ret)
			return false;
		any = true;
	}
	return any;
}

/* $argN of a mark: N, or 0 when name is none. */
int up_mark_arg(const char *name)
{
	char *end;
	long k;

	if (strncmp(name, "$arg", 4) || !name[4])
		return 0;
	k = strtol(name + 4, &end, 10);
	return *end || k < 1 || k > 12 ? 0 : (int)k;
}

/* Does every probe of the body being walked have mark argument k? */
bool up_marks_have(struct sema *se, int k)
{
	const struct probe_body *b = sema_ctx(se);

	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body == b && (!up_of(dp)->sdt ||
				      up_of(dp)->sdt->nargs < k))
			return false;
	}
	return true;
}


/* @entry(expr) in a .return probe: of the variables, which are read at
 * the entry already; anything that would run at the entry is refused. */
static bool at_func(struct sema *se, struct node *n, enum type want,
		    enum type *type)
{
	struct node *arg = n->call.args;
	const struct node *bad;

	if (strcmp(n->call.name, "@entry"))
		return false;
	*type = TY_UNKNOWN;
	if (!up_body_all(se, UP_FUNCTION, true)) {
		if (se->report)
			diag_error(se->s, n->loc, "@entry is only valid in "
				   ".return probes");
		return true;
	}
	if (!arg || arg->next) {
		if (se->report)
			diag_error(se->s, n->loc, "@entry takes one expression");
		return true;
	}
	bad = entry_not_constant(arg);
	if (bad) {
		if (se->report)
			diag_error(se->s, bad->loc, bad->kind == N_TARGET ?
				   "'$return' has no value at the entry" :
				   "@entry(...) of anything but context "
				   "variables, constants and operators is not "
				   "supported yet in user-space probes");
		return true;
	}
	*type = n->type = infer(se, arg, want);
	return true;
}

/* ---- the attach description ------------------------------------------ */

/* An SDT operand as a recipe's (registers by pt_regs member). */
static void sdt_operand(const struct elf_sdt_arg *arg, struct value_recipe *r)
{
	r->size = (unsigned)arg->size;
	r->is_signed = arg->is_signed;
	r->space = SPACE_USER;
	if (arg->kind == ELF_SDT_CONST) {
		r->root = ROOT_CONST;
		r->constant = arg->value;
		return;
	}
	r->root = ROOT_OPERAND;
	r->operand.memory = arg->kind == ELF_SDT_MEM;
	r->operand.offset = arg->offset;
	r->operand.scale = arg->scale;
	if (arg->reg >= 0 && arg->reg != 16) {	/* %rip: refused in pass 2 */
		r->operand.reg = arch_reg_pt_regs((unsigned)arg->reg);
	}
	if (arg->index_reg >= 0)
		r->operand.index = arch_reg_pt_regs((unsigned)arg->index_reg);
}

static void describe(const struct program *prog, struct derived_probe *dp)
{
	const struct up_probe *u = up_of(dp);
	const struct probe_body *b = dp->body;
	struct attach *at = &dp->attach;
	struct arena *a = &prog->s->arena;

	at->kind = ATTACH_UPROBE;
	at->uprobe.path = u->file;
	at->uprobe.offset = u->offset;
	at->uprobe.addr = u->addr;
	at->uprobe.ret = u->ret;
	at->uprobe.semaphore_offset = u->semaphore_offset;
	at->uprobe.ret_size = u->ret_size;
	at->uprobe.ret_signed = u->ret_signed;
	if (u->sdt) {
		at->uprobe.provider = u->sdt->provider;
		at->uprobe.name = u->sdt->name;
	} else if (u->what == UP_PLT) {
		at->uprobe.name = u->place.label;	/* $$name */
	}
	if (!b->nctxvars || (!u->sdt && !u->locs))
		return;
	const struct value_recipe **values = arena_alloc(a, (size_t)
		b->nctxvars * sizeof(*values));
	for (int k = 0; k < b->nctxvars; k++) {
		int n = up_mark_arg(b->ctxvars[k]->name);
		struct value_recipe *r;

		if (u->locs && k < 64 && u->locs[k]) {
			r = arena_alloc(a, sizeof(*r));
			r->root = ROOT_DWARF;
			r->dwarf = u->locs[k];
			r->dwarf_size = u->sizes[k];
			r->size = u->sizes[k];
			r->is_signed = u->signs[k];
			r->address = u->objects[k];
			r->reg_address = u->reg_slots[k];
			r->write_target = b->ctxvars[k]->write_size != 0;
			r->steps = b->ctxvars[k]->member_path;
			r->space = SPACE_USER;
			values[k] = r;
			continue;
		}
		if (!u->sdt || !n || n > u->sdt->nargs)
			continue;
		r = arena_alloc(a, sizeof(*r));
		sdt_operand(&u->sdt->arg[n - 1], r);
		values[k] = r;
	}
	at->values = values;
	at->nvalues = b->nctxvars;
}

/* ---- listing --------------------------------------------------------- */

/* "NAME" of spec at *p ('"NAME")'), advanced past it: NULL if none. */
static char *spec_arg(const char **p, const char *comp)
{
	size_t n = strlen(comp);
	const char *s = *p, *close;
	char *r;

	if (strncmp(s, comp, n) || strncmp(s + n, "(\"", 2))
		return NULL;
	s += n + 2;
	close = strstr(s, "\")");
	if (!close || memchr(s, '"', (size_t)(close - s)))
		return NULL;
	r = strndup(s, (size_t)(close - s));
	*p = close + 2;
	return r;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * -l/-L of process("PATH")[.library("LIB")].function("F")[.call|.return],
 * .plt("P") and [.provider("P")].mark("M"): sorted and unique as
 * SystemTap's set of printed points; -L adds the variables ($a:int, a
 * mark's $arg1:long ...).
 */
static int list(struct session *s, const char *spec, bool with_vars)
{
	const char *p = spec, **files;
	char *path = spec_arg(&p, "process"), *lib = NULL, *prov = NULL;
	struct up_probe u = { .what = UP_FUNCTION };
	struct arena *a = &s->arena;
	char **lines = NULL;
	int nlines = 0, nfiles, shown = 0;

	if (!path)
		return -1;
	if (*p == '.' && (lib = spec_arg(&(const char *){ p + 1 }, "library")))
		p = strstr(p, "\")") + 2;
	if (*p == '.' && (prov = spec_arg(&(const char *){ p + 1 }, "provider")))
		p = strstr(p, "\")") + 2;
	if (*p == '.' && (u.pattern = spec_arg(&(const char *){ p + 1 },
					       "function")))
		u.what = UP_FUNCTION;
	else if (*p == '.' && !prov &&
		 (u.pattern = spec_arg(&(const char *){ p + 1 }, "plt")))
		u.what = UP_PLT;
	else if (*p == '.' && (u.pattern = spec_arg(&(const char *){ p + 1 },
						    "mark")))
		u.what = UP_MARK;
	else if (*p == '.' && !prov &&
		 (u.pattern = spec_arg(&(const char *){ p + 1 }, "statement")))
		u.what = UP_STATEMENT;
	if (u.pattern)
		p = strstr(p, "\")") + 2;
	if (!strcmp(p, ".return") && (u.what == UP_FUNCTION ||
				       u.what == UP_PLT))
		u.ret = true;
	else if (!strcmp(p, ".call") && u.what == UP_FUNCTION)
		u.call = true;
	else if (!strcmp(p, ".inline") && u.what == UP_FUNCTION)
		u.inlined = true;
	else if (*p)
		u.pattern = NULL;
	if (!u.pattern || (prov && u.what != UP_MARK)) {
		free(path);
		free(lib);
		free(prov);
		free((char *)u.pattern);
		return -1;
	}
	u.provider = prov;
	nfiles = lib ? library_files(a, path, lib, &files) :
		       userpath_resolve(a, path, false, &files);
	const char *proc = path;
	if (lib) {
		const char **pf;
		if (userpath_resolve(a, path, false, &pf) == 1)
			proc = pf[0];
	}
	for (int f = 0; f < nfiles; f++) {
		char *err = NULL;
		struct elf_file *ef = elf_file_open(files[f], NULL, &err);
		struct place *pl;

		free(err);
		if (!ef)
			continue;
		int n = find_places(a, ef, &u, &pl);
		lines = realloc(lines, (size_t)(nlines + n + 1) * sizeof(*lines));
		if (!lines)
			fatal("out of memory");
		for (int i = 0; i < n; i++) {
			struct strbuf sb = { 0 };

			if (lib)
				sb_printf(&sb, "process(\"%s\").library(\"%s\")",
					  proc, files[f]);
			else
				sb_printf(&sb, "process(\"%s\")", files[f]);
			if (prov)
				sb_printf(&sb, ".provider(\"%s\")", prov);
			sb_printf(&sb, ".%s(\"%s\")%s", what_names[u.what],
				  pl[i].label, u.ret ? ".return" :
				  u.call ? ".call" : u.inlined ? ".inline" : "");
			for (int v = 0; with_vars && v < pl[i].nvars; v++)
				sb_printf(&sb, " %s", pl[i].vars[v]);
			for (int k = 0; with_vars && pl[i].sdt &&
			     k < pl[i].sdt->nargs; k++)
				sb_printf(&sb, " $arg%d:long", k + 1);
			lines[nlines++] = strdup(sb_str(&sb));
			sb_free(&sb);
		}
		elf_file_close(ef);
	}
	if (nlines > 1)
		qsort(lines, (size_t)nlines, sizeof(*lines), line_cmp);
	for (int i = 0; i < nlines; i++) {
		if (!i || strcmp(lines[i], lines[i - 1])) {
			puts(lines[i]);
			shown++;
		}
	}
	for (int i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	free(path);
	free(lib);
	free(prov);
	free((char *)u.pattern);
	return shown;
}

static const char *const roots[] = { "process", NULL };
static const char *const probe_types[] = {
	"process(string).function(string)",
	"process(string).function(string).call",
	"process(string).function(string).inline",
	"process(string).function(string).return",
	"process(string).library(string).function(string)",
	"process(string).library(string).function(string).call",
	"process(string).library(string).function(string).inline",
	"process(string).library(string).function(string).return",
	"process(string).library(string).mark(string)",
	"process(string).library(string).plt",
	"process(string).library(string).plt.return",
	"process(string).library(string).plt(string)",
	"process(string).library(string).plt(string).return",
	"process(string).library(string).provider(string).mark(string)",
	"process(string).library(string).statement(string)",
	"process(string).mark(string)",
	"process(string).plt",
	"process(string).plt.return",
	"process(string).plt(string)",
	"process(string).plt(string).return",
	"process(string).provider(string).mark(string)",
	"process(string).statement(string)",
	NULL,
};

const struct probe_family process_function_family = {
	.point_size = sizeof(struct up_probe),
	.name = "process(\"PATH\").function",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
	.expand = expand,
	.context = up_context,
	.defined = up_defined,
	.context_assign = up_context_assign,
	.writable = true,
	.var_ctype = up_var_ctype,
	.var_user = up_var_user,
	.has_return = true,
	.at_func = at_func,
	.finish = finish,
	.list = list,
	.describe = describe,
};
