// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobe.function("NAME")[.call|.return[.maxactive(N)]],
 * kprobe.module("M").function("NAME")[...], and in guru mode
 * kprobe.statement(ADDRESS).absolute and kernel.statement(ADDRESS)
 * .absolute: SystemTap's probes without debuginfo. A function is named by
 * its symbol (no DWARF: no $variables; the argument functions int_arg(),
 * pointer_arg()... and returnval() read the registers), so these are
 * kernel function entries and returns (ATTACH_KFUNC_ENTRY/RETURN): a
 * kernel function by its symbol and its link-time address with the KASLR
 * anchor, as kernel.function (the backend moves the address when it arms
 * the probe: no lookup per symbol); a module's by "M:NAME", resolved
 * while M is loaded (the kind's module field). A function the kernel
 * refuses is a warning when armed, as for kernel.function.
 *
 * Wildcards, as SystemTap 4.8 takes them: a pattern in kprobe.function
 * is matched against the kernel's function symbols (the symbol table of
 * its vmlinux: 4.8 reads System.map's t and T lines), one probe per
 * name; a name nothing matches is an error. In kprobe.module("M") the function pattern is
 * matched against the module file's symbols when M names a module file
 * of the release; a module without a file (built in, or not installed)
 * takes one literal name, resolved when armed ("M:NAME"), as 4.8 does.
 */
#include <elf.h>
#include <fnmatch.h>

#include "probes/probes.h"
#include "elf/elf.h"
#include "target/tp_syms.h"

extern const struct probe_family kprobe_family;

struct kprobe_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	const char *module;		/* kprobe.module("M"), or NULL */
	const char *symbol;		/* the function, or NULL (absolute) */
	uint64_t addr;			/* the kernel's function: its
					 * link-time address, or 0 */
	const char *suffix;		/* "", ".call", ".return",
					 * ".return.maxactive(N)" */
	bool ret;			/* .return */
	int64_t maxactive;		/* .maxactive(N), or 0 */
	uint64_t address;		/* .statement(ADDRESS).absolute */
};

static struct kprobe_probe *kp_of(const struct derived_probe *dp)
{
	return (struct kprobe_probe *)dp;
}

/* ---- symbol tables ------------------------------------------------------ */

/* A function symbol: its name and link-time address. */
struct fn_sym {
	const char *name;
	uint64_t addr;
};

/* The function symbols of one ELF file, sorted by name, one per name
 * (the lowest address of a name several static functions have). */
struct fn_names {
	struct fn_sym *v;
	int n, cap;
	/* the kernel's: an exported function the runtime finds the KASLR
	 * offset with, or NULL */
	const struct fn_sym *anchor;
	struct sema *se;
	bool *exec;		/* [section index]: holds code */
	int nsec, sec_cap;
};

static int note_section(const struct elf_section *sec, void *arg)
{
	struct fn_names *names = arg;

	/* the walk starts at section 1 */
	GROW(names->se, names->exec, names->nsec, names->sec_cap);
	if (!names->nsec)
		names->exec[names->nsec++] = false;
	GROW(names->se, names->exec, names->nsec, names->sec_cap);
	names->exec[names->nsec++] = sec->flags & SHF_EXECINSTR;
	return 0;
}

/*
 * The symbols System.map shows as t or T, which SystemTap 4.8 takes as
 * the kernel's functions: local or global (not weak) symbols in a
 * section of code, labels of assembly code included.
 */
static int add_function(const struct elf_sym *sym, void *arg)
{
	struct fn_names *names = arg;

	if (!*sym->name || sym->bind == STB_WEAK ||
	    sym->type == STT_SECTION || sym->type == STT_FILE ||
	    sym->shndx == SHN_UNDEF || sym->shndx >= names->nsec ||
	    !names->exec[sym->shndx])
		return 0;
	GROW(names->se, names->v, names->n, names->cap);
	names->v[names->n].name = arena_strdup(&names->se->s->arena,
					       sym->name);
	names->v[names->n++].addr = sym->addr;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct fn_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

static const struct fn_sym *find_sym(const struct fn_names *names,
				     const char *name)
{
	struct fn_sym key = { .name = name };
	int lo = 0, hi = names->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strcmp(names->v[mid].name, key.name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < names->n && !strcmp(names->v[lo].name, name) ?
	       &names->v[lo] : NULL;
}

/* The function names of an ELF image (a path, or bytes in memory). */
static struct fn_names *read_functions(struct sema *se, const char *path,
				       const void *img, size_t len)
{
	struct fn_names *names = arena_alloc(&se->s->arena, sizeof(*names));
	char *err = NULL;
	struct elf_file *f = img ? elf_file_open_memory(img, len, &err) :
			     elf_file_open(path, NULL, &err);
	int kept = 0;

	names->se = se;
	free(err);
	if (!f)
		return names;
	elf_file_sections(f, note_section, names);
	elf_file_symbols(f, add_function, names);
	elf_file_close(f);
	if (names->n)
		qsort(names->v, (size_t)names->n, sizeof(names->v[0]),
		      sym_cmp);
	for (int i = 0; i < names->n; i++)
		if (!kept || strcmp(names->v[i].name, names->v[kept - 1].name))
			names->v[kept++] = names->v[i];
	names->n = kept;
	return names;
}

/* The kernel's function symbols (read once a compilation), or NULL with
 * *why. */
static const struct fn_names *kernel_functions(struct sema *se,
					       const char **why)
{
	void **slot = program_family_data(se->prog, &kprobe_family);
	const struct target *t = se->s->target;
	const char *vmlinux = t ? (t->debug_vmlinux ? t->debug_vmlinux :
				   t->build_vmlinux) : NULL;

	if (*slot)
		return *slot;
	if (!vmlinux) {
		*why = t ? arena_printf(&se->s->arena, "no symbol table of "
					"the kernel (install linux-image-%s-dbg)",
					t->release) :
			   "no target kernel release";
		return NULL;
	}
	struct fn_names *names = read_functions(se, vmlinux, NULL, 0);
	if (!names->n) {
		*why = arena_printf(&se->s->arena, "no function symbols in %s",
				    vmlinux);
		return NULL;
	}
	/* exported functions every kernel has: _printk since 5.15 */
	names->anchor = find_sym(names, "_printk");
	if (!names->anchor)
		names->anchor = find_sym(names, "printk");
	*slot = names;
	return names;
}

/* The function symbols of module file name, or NULL (no such file). */
static const struct fn_names *module_functions(struct sema *se,
					       const char *name)
{
	const char *path = se->s->target ?
			   target_module_file(se->s->target, name) : NULL;
	size_t len;
	char *why = NULL;

	if (!path)
		return NULL;
	char *img = tp_syms_read_module(path, &len, &why);
	free(why);
	if (!img)
		return NULL;
	struct fn_names *names = read_functions(se, NULL, img, len);
	free(img);
	return names;
}

/* " (similar functions: a, b)" for a typo (semantic: struct similar). */
static const char *similar(struct sema *se, const struct fn_names *names,
			  const char *name)
{
	struct similar sm;

	similar_init(&sm, name);
	for (int i = 0; i < names->n; i++)
		similar_add(&sm, names->v[i].name);
	return similar_text(se, &sm);
}

/* ---- points ------------------------------------------------------------ */

static bool has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* .call, .return, .return.maxactive(N) after c (the function): true, or
 * false after an error; -1 when the shape is not SystemTap's. */
static int function_suffix(struct sema *se, struct node *point,
			   struct node *c, struct kprobe_probe *kp)
{
	kp->suffix = "";
	if (!c)
		return true;
	if (comp_is(c, "call") && !c->comp.arg && !c->next) {
		kp->suffix = ".call";
		return true;
	}
	if (!comp_is(c, "return") || c->comp.arg)
		return -1;
	kp->ret = true;
	kp->suffix = ".return";
	c = c->next;
	if (!c)
		return true;
	if (!comp_is(c, "maxactive") || !is_num_arg(c) || c->next)
		return -1;
	if (c->comp.arg->num.value < 0 || c->comp.arg->num.value > 32767)
		return point_error(se, point, c, "maxactive value out of "
				   "range (0 to 32767)");
	kp->maxactive = c->comp.arg->num.value;
	kp->suffix = arena_printf(&se->s->arena, ".return.maxactive(%lld)",
				  (long long)kp->maxactive);
	return true;
}

static int derive(struct sema *se, struct node *point,
		  struct derived_probe *dp)
{
	struct kprobe_probe *kp = kp_of(dp);
	struct node *c0 = point->point.comps, *c = c0->next;

	if (!strcmp(c0->comp.name, "kernel")) {
		/* kernel.statement(ADDRESS).absolute: as kprobe.statement */
		if (!comp_is(c, "statement") || !is_num_arg(c) ||
		    !comp_is(c->next, "absolute") || c->next->comp.arg ||
		    c->next->next)
			return -1;
		if (!se->s->guru)
			return point_error(se, point, c0, "absolute statement "
					   "probe in unprivileged script; need "
					   "stap -g");
		kp->address = (uint64_t)c->comp.arg->num.value;
		return true;
	}
	if (comp_is(c, "statement")) {
		if (!is_num_arg(c) || !comp_is(c->next, "absolute") ||
		    c->next->comp.arg || c->next->next)
			return -1;
		if (!se->s->guru)
			return point_error(se, point, c0, "absolute statement "
					   "probe in unprivileged script; need "
					   "stap -g");
		kp->address = (uint64_t)c->comp.arg->num.value;
		return true;
	}
	if (comp_is(c, "module")) {
		if (!is_str_arg(c))
			return -1;
		kp->module = c->comp.arg->str.value;
		if (!*kp->module || has_wildcard(kp->module))
			return point_error(se, point, c, arena_printf(
				&se->s->arena, "kprobe.module needs a module's "
				"name, without wildcards: '%s' (the kernel "
				"resolves the symbol in that module when the "
				"probe is armed)", kp->module));
		c = c->next;
	}
	if (!comp_is(c, "function") || !is_str_arg(c))
		return -1;
	kp->symbol = c->comp.arg->str.value;
	if (!*kp->symbol)
		return point_error(se, point, c, "kprobe.function needs a "
				   "function's name: kprobe.function("
				   "\"vfs_read\")");
	return function_suffix(se, point, c->next, kp);
}

/* The canonical point of one function. */
static const char *point_of(struct sema *se, const struct kprobe_probe *kp,
			    const char *name)
{
	if (kp->module)
		return arena_printf(&se->s->arena, "kprobe.module(\"%s\")."
				    "function(\"%s\")%s", kp->module, name,
				    kp->suffix);
	return arena_printf(&se->s->arena, "kprobe.function(\"%s\")%s", name,
			    kp->suffix);
}

/*
 * One derived probe per function the pattern matches: the kernel's
 * symbols, or the module file's; a module without a file takes the
 * name as it is (no wildcards).
 */
static int expand(struct sema *se, struct node *point,
		  struct derived_probe *dp, struct probe_body *b)
{
	struct kprobe_probe *kp = kp_of(dp);
	struct node *fn = point->point.comps->next;
	const struct fn_names *names;
	const char *why = NULL;
	int derived = 0;

	if (!kp->symbol) {			/* .absolute */
		sema_add_derived(se, sema_clone_derived(se, dp), b);
		return 1;
	}
	if (kp->module) {
		fn = fn->next;
		names = module_functions(se, kp->module);
		if (!names && has_wildcard(kp->symbol)) {
			point_error(se, point, fn, arena_printf(&se->s->arena,
				    "no match for probe point '%s': module '%s' "
				    "has no file under /lib/modules to match "
				    "'%s' against", point_string(se, point),
				    kp->module, kp->symbol));
			return 0;
		}
	} else {
		names = kernel_functions(se, &why);
		if (!names) {
			point_error(se, point, fn, arena_printf(&se->s->arena,
				    "cannot resolve kprobe.function: %s", why));
			return 0;
		}
	}
	if (!names) {
		struct derived_probe *d = sema_clone_derived(se, dp);
		d->pp = point_of(se, kp, kp->symbol);
		sema_add_derived(se, d, b);
		return 1;
	}
	for (int i = 0; i < names->n; i++) {
		const struct fn_sym *f = &names->v[i];
		if (fnmatch(kp->symbol, f->name, 0))
			continue;
		struct derived_probe *d = sema_clone_derived(se, dp);
		kp_of(d)->symbol = f->name;
		/* the kernel's functions by address, moved by the KASLR
		 * offset when armed: no lookup per function then */
		if (!kp->module && names->anchor)
			kp_of(d)->addr = f->addr;
		d->pp = point_of(se, kp, f->name);
		sema_add_derived(se, d, b);
		derived++;
	}
	if (!derived)
		point_error(se, point, fn, arena_printf(&se->s->arena,
			    "no match for probe point '%s': no function "
			    "symbol of %s matches%s", point_string(se, point),
			    kp->module ? kp->module : "the kernel",
			    similar(se, names, kp->symbol)));
	return derived;
}

/* ---- @entry ------------------------------------------------------------ */

/* Are all probes of body b kprobe .return probes? */
static bool body_returns(struct sema *se, const struct probe_body *b)
{
	if (!body_all_of(se, b, &kprobe_family))
		return false;
	for (int i = 0; i < se->prog->nprobes; i++)
		if (se->prog->probes[i]->body == b &&
		    !kp_of(se->prog->probes[i])->ret)
			return false;
	return true;
}

/*
 * @entry(expr) in a .return probe: the handler computes expr at the
 * function's entry (these probes have no context variables to take
 * there), and the value is kept until the return.
 */
static bool at_func(struct sema *se, struct node *n, enum type want,
		    enum type *type)
{
	struct node *arg = n->call.args;

	if (strcmp(n->call.name, "@entry"))
		return false;
	*type = TY_UNKNOWN;
	if (!body_returns(se, sema_ctx(se))) {
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
	if (arg->kind == N_NUMBER || arg->kind == N_STRING) {
		*type = n->type = infer(se, arg, want);
		return true;
	}
	if (se->body->func) {
		if (se->report)
			diag_error(se->s, arg->loc, "@entry(...) of anything "
				   "but constants is not supported in a "
				   "function yet");
		return true;
	}
	se->in_entry++;
	n->type = infer(se, arg, TY_LONG);
	se->in_entry--;
	if (n->type == TY_STRING) {
		if (se->report)
			diag_error(se->s, n->loc, "a string @entry(...) that "
				   "calls functions is not supported yet");
		*type = TY_STRING;
		return true;
	}
	if (!n->sym) {
		struct probe_body *b = se->body;
		n->sym = arena_alloc(&se->s->arena, sizeof(*n->sym));
		n->sym->name = "@entry";
		n->sym->kind = SYM_CONTEXT;
		n->sym->type = TY_LONG;
		n->sym->loc = n->loc;
		n->sym->index = b->nentry_values;
		GROW(se, b->entry_values, b->nentry_values,
		     b->entry_values_cap);
		b->entry_values[b->nentry_values++] = n;
	}
	*type = n->type = TY_LONG;
	return true;
}

/* ---- the attach description ------------------------------------------ */

/* A kernel function's entry or return by symbol ("M:NAME" in a module),
 * or a kprobe at a run-time address. */
static void describe(const struct program *prog, struct derived_probe *dp)
{
	const struct kprobe_probe *kp = kp_of(dp);
	struct attach_kfunc *k = &dp->attach.kfunc;

	dp->attach.kind = kp->ret ? ATTACH_KFUNC_RETURN : ATTACH_KFUNC_ENTRY;
	if (!kp->symbol) {
		k->addr = kp->address;
		k->statement = true;
		k->absolute = true;
		return;
	}
	k->symbol = kp->module ? arena_printf(&prog->s->arena, "%s:%s",
					      kp->module, kp->symbol) :
				 kp->symbol;
	k->module = kp->module;
	k->maxactive = kp->maxactive;
	const struct fn_names *kernel = program_family_get(prog,
							   &kprobe_family);
	if (kp->addr && kernel && kernel->anchor) {
		k->addr = kp->addr;
		k->anchor_sym = kernel->anchor->name;
		k->anchor_addr = kernel->anchor->addr;
	}
}

static const char *const roots[] = { "kprobe", "kernel", NULL };
static const char *const probe_types[] = {
	"kernel.statement(number).absolute",
	"kprobe.function(string)",
	"kprobe.function(string).call",
	"kprobe.function(string).return",
	"kprobe.function(string).return.maxactive(number)",
	"kprobe.module(string).function(string)",
	"kprobe.module(string).function(string).call",
	"kprobe.module(string).function(string).return",
	"kprobe.module(string).function(string).return.maxactive(number)",
	"kprobe.statement(number).absolute",
	NULL,
};

const struct probe_family kprobe_family = {
	.point_size = sizeof(struct kprobe_probe),
	.name = "kprobe",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
	.expand = expand,
	.at_func = at_func,
	.describe = describe,
};
