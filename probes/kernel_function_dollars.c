// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The variables of kernel.function and kernel.statement probes as pass 2
 * sees them before any is read: their types (-L's), why one is missing,
 * whether its DWARF location can be read at the probe, and the texts
 * SystemTap 4.8 makes of $$parms, $$locals, $$vars, $$return and of $x$
 * where x cannot be read ("?"). A body naming them has one derived probe
 * (kernel_function.c gives it a copy per probe), so each text is that
 * probe's own variables.
 */
#include "probes/kernel_function.h"
#include "target/moddebug.h"

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The C type of variable name in dp's function (-L's), or NULL. */
const char *kf_var_type(const struct derived_probe *dp,
			       const char *name)
{
	const struct kf_probe *kf = kf_of(dp);
	size_t len = strlen(name);

	for (int i = 0; i < kf->nvars; i++)
		if (!strncmp(kf->vars[i], name, len) &&
		    kf->vars[i][len] == ':')
			return kf->vars[i] + len + 1;
	return NULL;
}

/* The DWARF of dp's function, or NULL with *err saying why. */
struct dwloc_file *kf_dwarf(struct sema *se, const struct derived_probe *dp,
			    const char **err)
{
	if (!se->s->target) {
		*err = "no kernel debuginfo";
		return NULL;
	}
	if (dp && kf_of(dp)->module)
		return target_module_dwarf(se->s->target, kf_of(dp)->module,
					   err);
	return target_dwarf(se->s->target, err);
}

/* The symbols of a module's file, for finding a variable's anchor. */
struct mod_syms {
	struct elf_sym *v;
	int n, cap;
};

static int collect_sym(const struct elf_sym *s, void *arg)
{
	struct mod_syms *m = arg;

	if (s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE ||
	    (s->type != STT_OBJECT && s->type != STT_FUNC &&
	     s->type != STT_NOTYPE))
		return 0;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->v = realloc(m->v, (size_t)m->cap * sizeof(*m->v));
		if (!m->v)
			abort();
	}
	m->v[m->n++] = *s;
	return 0;
}

static bool unique_name(const struct mod_syms *m, const char *name)
{
	int n = 0;

	for (int i = 0; i < m->n && n < 2; i++)
		n += !strcmp(m->v[i].name, name);
	return n == 1;
}

/*
 * A module's symbol the run time finds layout address addr from (in the
 * module's kallsyms, where the module was loaded), one whose name the
 * module has once: the symbol holding addr, else the nearest below it in
 * its section (a section is loaded whole), else any there. NULL: none.
 */
static const struct elf_sym *mod_anchor(const struct mod_syms *m,
					uint64_t addr)
{
	const struct elf_sym *in = NULL, *best = NULL;

	for (int i = 0; i < m->n; i++) {
		const struct elf_sym *s = &m->v[i];
		if (addr >= s->addr && addr < s->addr + (s->size ? s->size : 1)) {
			in = s;
			if (unique_name(m, s->name))
				return s;
		}
	}
	for (int i = 0; in && i < m->n; i++) {
		const struct elf_sym *s = &m->v[i];
		if (s->shndx != in->shndx || !unique_name(m, s->name))
			continue;
		if (!best || (s->addr <= addr &&
			      (best->addr > addr || s->addr > best->addr)))
			best = s;
	}
	return best;
}

bool kf_module_anchor(struct elf_file *ef, uint64_t addr, struct elf_sym *out)
{
	struct mod_syms m = { 0 };
	const struct elf_sym *s;

	elf_file_symbols(ef, collect_sym, &m);
	s = mod_anchor(&m, addr);
	if (s)
		*out = *s;
	free(m.v);
	return s != NULL;
}

/* A module program's DW_OP_addr: by a symbol of the module (prog's
 * module, mod_sym, mod_sym_addr); NULL or why it cannot be. */
static const char *kf_module_addr(struct arena *a, struct dwloc_file *dw,
				  const char *module, struct dwloc_prog *prog)
{
	for (int i = 0; prog->loc && i < prog->loc->n; i++) {
		const struct elf_loc_op *op = &prog->loc->ops[i];
		struct elf_sym s;
		if (op->kind != ELF_LOC_ADDR)
			continue;
		if (prog->mod_sym)
			return "a location with two static addresses is not "
			       "supported yet";
		if (!kf_module_anchor(dwloc_elf(dw), op->value, &s))
			return arena_printf(a, "no symbol of module %s locates "
					    "address 0x%" PRIx64, module,
					    op->value);
		prog->module = module;
		prog->mod_sym = arena_strdup(a, s.name);
		prog->mod_sym_addr = s.addr;
	}
	return NULL;
}

/* The C type of a variable at the top of the CU of dp's function (a
 * file's static or global), or NULL. */
const char *kf_global_type(struct arena *a, struct dwloc_file *dw,
			   const struct derived_probe *dp, const char *name)
{
	struct dwloc_prog prog;
	const char *type;

	return dwloc_global(dw, a, kf_of(dp)->cu, name, &prog, &type) ?
	       NULL : type;
}

const char *kf_var_loc(struct arena *a, struct dwloc_file *dw,
		       const struct derived_probe *dp, const char *name,
		       unsigned value_size, struct dwloc_prog *prog,
		       struct dwloc_value *shape)
{
	const struct kf_probe *kf = kf_of(dp);
	const char *type;
	const char *err = kf->statement ?
			  dwloc_var_at(dw, a, kf->entry_pc, kf->cu, kf->addr,
				       name, prog) :
			  dwloc_var(dw, a, kf->addr, kf->cu, name, prog);

	/* not the function's own: a variable of its file (as SystemTap) */
	if (err && !strncmp(err, "unable to find", 14)) {
		const char *g = dwloc_global(dw, a, kf->cu, name, prog, &type);
		if (!g || strncmp(g, "unable to find", 14))
			err = g;	/* found, or only declared there */
	}
	if (err)
		return err;
	/* a module's static variable: its address is the module's, where
	 * it was loaded, which the program's link-time address is not */
	if (kf->module && (err = kf_module_addr(a, dw, kf->module, prog)))
		return err;
	return dwloc_eval(a, prog, value_size, NULL, NULL, shape);
}

/* Why dp's function has no variable name: SystemTap's two errors. */
const char *kf_missing_var(struct sema *se, struct dwloc_file *dw,
				  const struct derived_probe *dp,
				  const char *name)
{
	const struct kf_probe *kf = kf_of(dp);
	struct arena *a = &se->s->arena;
	struct dwloc_prog prog;
	struct dwloc_value shape;
	const char *msg = kf_var_loc(a, dw, dp, name, 8, &prog, &shape);

	if (!msg)
		return arena_printf(a, "the type of '$%s' is not known", name);
	if (strncmp(msg, "unable to find", 14))
		return arena_printf(a, "'$%s': %s", name, msg);
	struct strbuf sb = { 0 };
	const char *names[64];
	int n = 0;
	for (int i = 0; i < kf->nvars; i++) {
		size_t len = strcspn(kf->vars[i], ":");
		sb_printf(&sb, "%s$%.*s", i ? ", " : "", (int)len, kf->vars[i]);
		if (n < 63)
			names[n++] = arena_strndup(a, kf->vars[i], len);
	}
	if (dp->family == &kernel_return_family)
		names[n++] = "return";	/* a .return probe has $return too */
	const char *close = suggest(name, names, n);
	msg = arena_printf(a, "%s in %s (alternatives: %s)%s%s%s", msg,
			   kf->symbol, kf->nvars ? sb_str(&sb) : "none",
			   close ? " (did you mean '$" : "", close ? close : "",
			   close ? "'?)" : "");
	sb_free(&sb);
	return msg;
}

/* Why variable name of size bytes cannot be read at dp (its DWARF location
 * there), or NULL when it can. */
static const char *kf_loc_error(struct sema *se, struct dwloc_file *dw,
				const struct derived_probe *dp,
				const char *name, unsigned size)
{
	struct dwloc_prog prog;
	struct dwloc_value shape;

	return kf_var_loc(&se->s->arena, dw, dp, name, size ? size : 8, &prog,
			  &shape);
}

/*
 * $x$ or $x$$ (base is $x) when x has no location at any probe of the
 * body (a value from the caller, DW_OP_GNU_parameter_ref; an entry value
 * at a statement; an inlined copy without it): SystemTap 4.8 prints "?" for each value it cannot
 * read, so the text is a constant ("?", "{.a=?, .b=?}"). NULL when some
 * probe can read it, or it is no variable (the usual errors follow).
 */
/* The type of variable name in another copy of dp's function, or NULL. */
static const char *kf_other_copy_type(struct sema *se,
				      const struct derived_probe *dp,
				      const char *name)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *d = se->prog->probes[i];
		const char *type;
		if (d != dp && is_kf(d) && kf_of(d)->symbol &&
		    !strcmp(kf_of(d)->symbol, kf_of(dp)->symbol) &&
		    (type = kf_var_type(d, name)))
			return type;
	}
	return NULL;
}

const char *kf_pretty_unknown(struct sema *se, const struct node *base,
				     int depth)
{
	struct btf *btf = sema_btf(se);
	const char *why = NULL, *type = NULL;
	struct dwloc_file *dw;
	const char *name = base->target.name + 1;

	if (!btf || base->kind != N_TARGET || name[0] == '$')
		return NULL;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		struct btf_info info;
		if (dp->body != sema_ctx(se) || kf_of(dp)->dropped)
			continue;
		if (!(dw = kf_dwarf(se, dp, &why)))
			return NULL;
		type = kf_var_type(dp, name);
		/* an inlined copy may keep no trace of it: its type is
		 * another copy's of the function, its value "?" */
		if (!type && kf_of(dp)->inlined) {
			type = kf_other_copy_type(se, dp, name);
			if (type)
				continue;
		}
		if (!type || !kf_of(dp)->addr)
			return NULL;
		btf_resolve(btf, btf_find_type(btf, type), &info);
		if (!kf_loc_error(se, dw, dp, name, info.size))
			return NULL;
	}
	int id = type ? btf_find_type(btf, type) : 0;
	return id ? pretty_unknown(&se->s->arena, btf, id, depth == 2) : NULL;
}

/*
 * $$parms, $$locals, $$vars, $$return of a kernel.function probe: rewritten
 * in place into the sprintf SystemTap 4.8 makes of them, "name=%#x" per
 * variable in DWARF order ("name=?" without a location at the probe, as
 * a parameter whose value only the caller knows, "name={...}" for a
 * struct), of $name (@entry($name) in .return probes);
 * with a pretty-printing suffix ($$parms$, $$vars$$) "name=%s" of $name$
 * or $name$$.
 */
enum type infer_kf_dollars(struct sema *se, struct node *n,
				  const char *name)
{
	struct arena *a = &se->s->arena;
	const struct derived_probe *dp = NULL;
	int nprobes = 0;

	for (int i = 0; i < se->prog->nprobes; i++)
		if (se->prog->probes[i]->body == sema_ctx(se)) {
			dp = se->prog->probes[i];
			nprobes++;
		}
	bool ret = dp && dp->family == &kernel_return_family;
	const char *full = name;
	/* $$parms$, $$vars$$: each variable's $name$ (or $name$$) */
	int depth = pretty_suffix(a, full, &name);
	int want = !strcmp(name, "$$parms") ? 1 : !strcmp(name, "$$locals") ?
		   2 : !strcmp(name, "$$vars") ? 3 : 0;
	if (!dp || (!want && (strcmp(name, "$$return") || !ret || depth))) {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' of kernel.function probes "
				   "is not supported yet", full);
		return n->type = TY_STRING;
	}
	struct strbuf fmt = { 0 };
	struct node *args = NULL;
	if (want) {
		const char *why = NULL;
		struct dwloc_file *dw = sema_btf(se) ? kf_dwarf(se, dp, &why) :
					NULL;
		struct dwloc_name *vars;
		/* a function only in the symbol table has no variables */
		/* a statement's: its lexical blocks' too, innermost first */
		const struct kf_probe *kf = kf_of(dp);
		int nv = !kf->addr ? 0 : !dw ? -1 : kf->statement ?
			 dwloc_names_at(dw, a, kf->entry_pc, kf->cu, kf->addr,
					&vars) :
			 dwloc_names(dw, a, kf->addr, kf->cu, &vars);
		if (nv < 0 || nprobes > 1) {
			if (se->report)
				diag_error(se->s, n->loc, nv < 0 ? "cannot list "
					   "the variables of %s" : "'%s' of "
					   "several functions in one body is not "
					   "supported yet", nv < 0 ? dp->pp :
					   name);
			return n->type = TY_STRING;
		}
		for (int i = 0; i < nv; i++) {
			if (!(want & (vars[i].is_param ? 1 : 2)))
				continue;
			const char *type = kf_var_type(dp, vars[i].name);
			struct btf_info info = { .cls = BTF_CLASS_OTHER };
			if (type)
				btf_resolve(sema_btf(se), btf_find_type(sema_btf(se), type),
					    &info);
			sb_printf(&fmt, "%s%s=", fmt.len ? " " : "", vars[i].name);
			int tag_id = !type && depth && vars[i].tag ?
				     btf_find_type(sema_btf(se), vars[i].tag) : 0;
			if (tag_id) {
				/* a struct with no location here: as 4.8,
				 * each member "?" */
				sb_puts(&fmt, pretty_unknown(a, sema_btf(se),
							     tag_id,
							     depth == 2));
				continue;
			}
			if (depth && type) {
				/* as SystemTap 4.8: "name=%s" of $name$ */
				struct node *v = ast_new(se->s, N_TARGET, n->loc);
				v->target.name = arena_printf(a, "$%s%s",
							      vars[i].name,
							      depth == 2 ?
							      "$$" : "$");
				sb_puts(&fmt, "%s");
				args = ast_append(args, v);
				continue;
			}
			if (!type) {
				/* no location here: as 4.8, a struct still
				 * shows "{...}", an array "[...]" */
				sb_puts(&fmt, vars[i].shape == '{' ? "{...}" :
					vars[i].shape == '[' ? "[...]" : "?");
				continue;
			}
			/* as 4.8: arrays "[...]", structs "{...}" (also
			 * an anonymous one, which BTF cannot name) */
			if (info.cls == BTF_CLASS_ARRAY || strchr(type, '[')) {
				sb_puts(&fmt, "[...]");
				continue;
			}
			if (info.cls == BTF_CLASS_STRUCT ||
			    info.cls == BTF_CLASS_UNION ||
			    (info.cls == BTF_CLASS_OTHER && !strchr(type, '*') &&
			     (!strncmp(type, "struct ", 7) ||
			      !strncmp(type, "union ", 6)))) {
				sb_puts(&fmt, "{...}");
				continue;
			}
			if (kf_loc_error(se, dw, dp, vars[i].name, info.size)) {
				sb_putc(&fmt, '?');
				continue;
			}
			sb_puts(&fmt, "%#x");
			struct node *v = ast_new(se->s, N_TARGET, n->loc);
			v->target.name = arena_printf(a, "$%s", vars[i].name);
			if (ret) {
				struct node *e = ast_new(se->s, N_ATFUNC, n->loc);
				e->call.name = "@entry";
				e->call.args = v;
				v = e;
			}
			args = ast_append(args, v);
		}
	} else {
		struct node *v = ast_new(se->s, N_TARGET, n->loc);
		v->target.name = "$return";
		sb_puts(&fmt, "return=%#x");
		args = v;
	}
	struct node *f = ast_new(se->s, N_STRING, n->loc);
	f->str.value = arena_strdup(a, sb_str(&fmt));
	f->str.len = fmt.len;
	sb_free(&fmt);
	n->kind = N_PRINT;
	n->print.kind = PRINT_SPRINTF;
	n->print.args = ast_append(f, args);
	n->sym = NULL;
	return infer(se, n, TY_STRING);
}
