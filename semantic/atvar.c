// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * @var("name[@file]"[, "module"]): a global variable of the kernel, typed
 * by its DWARF and read at its address, in any probe (SystemTap's @var).
 * It is a typed value as a @cast is: its symbol's base is the variable's
 * address (a number the backend relocates by the kernel's load offset),
 * and its chain reads the variable first (PATH_VAR), then ->member and
 * [index] as a @cast's, & taking an address.
 *
 * In a probe whose family reads the kernel's DWARF (kernel.function), a
 * plain @var("name") is $name, as in SystemTap: the function's scope
 * first. A user program's and a kernel module's variables are not here
 * yet.
 */
#include "semantic/elaborate.h"

#include <string.h>

#include "elf/elf.h"
#include "target/btf.h"
#include "target/dwloc.h"
#include "target/target.h"

bool is_typed_root(const struct node *n)
{
	return n->kind == N_ATFUNC && (!strcmp(n->call.name, "@cast") ||
				       !strcmp(n->call.name, "@var"));
}

/* The module argument: given, else the body's program, else "". */
static const char *atvar_module(struct sema *se, const struct node *n)
{
	const struct node *mn = n->call.args ? n->call.args->next : NULL;

	if (mn)
		return mn->str.value;
	const char *user = body_user_program(se);
	return user ? user : "";
}

static bool atvar_args_ok(const struct node *n)
{
	const struct node *spec = n->call.args;
	const struct node *mn = spec ? spec->next : NULL;

	return spec && spec->kind == N_STRING &&
	       (!mn || (mn->kind == N_STRING && !mn->next));
}

bool atvar_is_context(struct sema *se, struct node *n)
{
	const struct probe_family *f = body_family(se, se->body);
	const struct node *spec = n->call.args;

	if (!atvar_args_ok(n) || spec->next || strchr(spec->str.value, '@') ||
	    !f || !f->var_ctype || body_user_program(se))
		return false;
	/* $name: the node becomes the context variable */
	const char *name = arena_printf(&se->s->arena, "$%s",
					spec->str.value);
	n->kind = N_TARGET;
	memset(&n->target, 0, sizeof(n->target));
	n->target.name = name;
	return true;
}

struct symbol *atvar_resolve(struct sema *se, struct node *n, bool report)
{
	struct arena *a = &se->s->arena;
	const char *err = NULL, *c_type = NULL, *file, *name, *mod;
	struct dwloc_prog prog;
	struct dwloc_file *dw;
	struct elf_sym anchor;
	struct btf *btf;
	int type;

	if (n->sym && n->sym->kind == SYM_TYPED)
		return n->sym;
	if (!atvar_args_ok(n)) {
		if (report)
			diag_error(se->s, n->loc, "@var takes a variable's name "
			   "(\"name\" or \"name@file.c\") and optionally a "
			   "module, both string literals");
		return NULL;
	}
	name = n->call.args->str.value;
	file = strchr(name, '@');
	if (file) {
		name = arena_strndup(a, name, (size_t)(file - name));
		file++;
	}
	mod = atvar_module(se, n);
	if (*mod && strcmp(mod, "kernel")) {
		if (report)
			diag_error(se->s, n->loc, "@var of %s's variables is not "
			   "supported yet (only the kernel's: \"kernel\")",
			   mod);
		return NULL;
	}
	btf = sema_btf(se);
	dw = se->s->target ? target_dwarf(se->s->target, &err) : NULL;
	if (!btf || !dw) {
		if (report)
			diag_error(se->s, n->loc, "cannot resolve @var: %s",
			   !btf ? se->btf_err : err ? err :
			   "no kernel debug information");
		return NULL;
	}
	err = dwloc_global_named(dw, a, file, name, &prog, &c_type);
	if (!err && (!prog.loc || prog.loc->n != 1 ||
		     prog.loc->ops[0].kind != ELF_LOC_ADDR))
		err = arena_printf(a, "global '%s' has no static address",
				   name);
	if (!err && !(type = btf_find_type(btf, c_type)))
		err = arena_printf(a, "the kernel's BTF has no type '%s'",
				   c_type);
	if (!err && !elf_file_symbol(dwloc_elf(dw), TARGET_KERNEL_ANCHOR,
				     &anchor))
		err = "no anchor for the kernel's load offset ("
		      TARGET_KERNEL_ANCHOR ")";
	if (err) {
		if (report)
			diag_error(se->s, n->loc, "%s", err);
		return NULL;
	}
	struct node *base = arena_alloc(a, sizeof(*base));
	base->kind = N_NUMBER;
	base->loc = n->loc;
	base->type = TY_LONG;
	base->num.value = (int64_t)prog.loc->ops[0].value;
	base->num.anchor = TARGET_KERNEL_ANCHOR;
	base->num.anchor_link = anchor.addr;
	n->sym = typed_symbol(se, n, base, TY_LONG);
	n->sym->btf_type = type;
	return n->sym;
}
