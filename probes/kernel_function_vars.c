// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Context variables of kernel.function probes ($count, $file->f_path,
 * &$var): the root variable's DWARF location at the function's entry
 * (dwloc.c) and its C type through the kernel's BTF (the type name is the
 * one -L prints, from the catalog), then any member chain through the same
 * BTF walker as tracepoint arguments (members.c). The generated code
 * reads everything fault-safely; a fault is a catchable runtime error.
 */
#include "probes/kernel_function.h"

#include <stdlib.h>
#include <string.h>

/*
 * `$x = v`, `$x->f = v` (guru mode): the value computed at the entry is
 * the address to write (a register's is its pt_regs slot, which the
 * ftrace and kprobe handlers load back into the register), and
 * loc->write_size the bytes written there.
 */
static const char *write_target(struct arena *a, struct btf *btf,
				const char *c_type, const struct node *n,
				struct kf_loc *loc, struct member_path *path,
				const struct node **at)
{
	const char *root = context_root(n);
	const char *msg;

	if (n->kind == N_TARGET) {
		if (loc->address)
			return arena_printf(a, "cannot write to '%s', a '%s'",
					    root, c_type);
		if (loc->shape.kind == DWL_VALUE ||
		    (loc->shape.kind == DWL_REGISTER && loc->shape.reg < 0))
			return arena_printf(a, "cannot write to '%s': its value "
					    "is computed, it has no location",
					    root);
		loc->reg_address = loc->shape.kind == DWL_REGISTER;
		loc->address = true;
		loc->write_size = loc->size;
		*at = NULL;
		return NULL;
	}
	if (loc->spill)
		return arena_printf(a, "cannot write to a member of '%s': it is "
				    "held in a register", root);
	msg = context_member_path(a, btf, c_type, n, path, at);
	if (msg)
		return msg;
	struct member_step *last = &path->steps[path->nsteps - 1];
	if (last->result != STEP_READ) {
		*at = n;
		return last->result == STEP_BITS ?
		       "writing to a bitfield is not supported yet" :
		       "cannot write to a struct, union or array";
	}
	last->result = STEP_ADDR;	/* stop at the member's address */
	loc->write_size = last->size;
	return NULL;
}

const char *kf_var_resolve(struct arena *a, struct btf *btf,
			   struct dwloc_file *dw,
			   const struct derived_probe *dp, const char *c_type,
			   const struct node *n, bool addr_of, bool write,
			   bool whole, struct kf_loc *loc, struct member_path *path,
			   const struct node **at)
{
	const char *root = context_root(n);
	struct btf_info info;
	const char *msg;

	/* a va_list parameter is a pointer to the __va_list_tag array (-L
	 * spells it va_list, as SystemTap does) */
	if (!strcmp(c_type, "va_list"))
		c_type = "struct __va_list_tag *";
	/* a module's function: its own types too (struct veth_priv) */
	int scope = kf_of(dp)->btf_scope > 0 ? kf_of(dp)->btf_scope : 0;
	int type = btf_find_type_in(btf, c_type, scope);

	*at = n;
	path->steps = NULL;
	path->nsteps = 0;
	if (!type)
		return arena_printf(a, "the kernel's BTF has no type '%s'",
				    c_type);
	btf_resolve(btf, type, &info);
	loc->prog_size = info.size ? info.size : 8;
	msg = kf_var_loc(a, dw, dp, root + 1, loc->prog_size, &loc->prog,
			 &loc->shape);
	if (msg)
		return arena_printf(a, "'%s': %s", root, msg);
	switch (info.cls) {
	case BTF_CLASS_INT:
	case BTF_CLASS_ENUM:
	case BTF_CLASS_PTR:
	case BTF_CLASS_FUNC_PTR:
		loc->size = info.size;
		loc->is_signed = info.is_signed;
		if (loc->size != 1 && loc->size != 2 && loc->size != 4 &&
		    loc->size != 8)
			return arena_printf(a, "'%s' is a '%s' of %u bytes, which "
					    "cannot be read", root, c_type,
					    loc->size);
		break;
	case BTF_CLASS_ARRAY:
	case BTF_CLASS_STRUCT:
	case BTF_CLASS_UNION:
		if (loc->shape.kind != DWL_MEMORY && info.size > 8)
			return arena_printf(a, "'%s' is a '%s' held in registers, "
					    "which is not supported yet", root,
					    c_type);
		/* kuid_t, pte_t: one register holds the whole struct */
		loc->spill = loc->shape.kind != DWL_MEMORY;
		loc->address = true;
		if (n->kind == N_TARGET && !addr_of && !whole &&
		    info.cls != BTF_CLASS_ARRAY)
			return arena_printf(a, "'%s' is a '%s', which has no "
					    "value (read one of its members)",
					    root, c_type);
		break;
	default:
		return arena_printf(a, "'%s' is a '%s', which cannot be read",
				    root, c_type);
	}
	if (addr_of) {
		/* a bad member first, as SystemTap reports it */
		if (n->kind != N_TARGET) {
			/* &$x->f: the chain's last step gives its address */
			int end;
			return type_path(a, btf, type, PATH_ADDRESS, n, path,
					 &end, at);
		}
		if (loc->shape.kind != DWL_MEMORY)
			return arena_printf(a, "cannot take address of object "
					    "in register ('%s')", root);
		loc->address = true;
	}
	if (write)
		return write_target(a, btf, c_type, n, loc, path, at);
	if (n->kind != N_TARGET) {
		int end;
		return type_path(a, btf, type, 0, n, path, &end, at);
	}
	*at = NULL;
	return NULL;
}
