/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe-family interface. A family (begin/end, timer.*, kernel.trace,
 * kernel.function, ...) lives in one file under probes/ and exports one
 * struct probe_family; probes/registry.c lists them, and that list is the
 * only place the compiler enumerates families. Pass 2 (semantic/) calls
 * through these hooks and never names a family, and the backends (module/,
 * bpf/) see only the descriptions below, so a new family is a new file
 * plus one line in the registry.
 *
 * Pass 2's hooks get the elaboration state (struct sema, semantic/
 * elaborate.h). A family writes no backend's code: it describes each
 * derived probe (struct attach, semantic/attach.h: its attach kind, the
 * kind's fields, a recipe per context value) and a backend emits each
 * kind its own way.
 */
#ifndef SEMANTIC_FAMILY_H
#define SEMANTIC_FAMILY_H

#include <stdbool.h>
#include <stddef.h>

#include "parser/ast.h"

struct sema;
struct session;
struct strbuf;
struct derived_probe;
struct probe_body;
struct program;

struct probe_family {
	/* the size of its derived probes: a struct of the family's file
	 * whose first member is the struct derived_probe */
	size_t point_size;
	const char *name;		/* "kernel.trace", for messages */
	/* the first components of its points ("kernel", ...): pass 2 asks
	 * the families owning a point's first component to derive it, and
	 * suggests these for an unknown point; NULL-terminated */
	const char *const *roots;
	/* tapset aliases extend its roots (perf.sw.cpu_clock): a point is
	 * matched against the aliases first, then derived */
	bool tapset_aliases;
	/* --dump-probe-types: its point patterns; NULL-terminated */
	const char *const *probe_types;

	/*
	 * Derive one point (its first component is one of roots) into dp
	 * (dp->point and dp->pp are set): 1 when it is this family's, 0
	 * when an error was reported or an optional point resolves to
	 * nothing, -1 when the point is not of this family's shape.
	 */
	int (*derive)(struct sema *se, struct node *point,
		      struct derived_probe *dp);
	/*
	 * Optional: add the derived probes dp stands for (a wildcard over
	 * a kernel catalog) to body b with sema_add_derived(); returns how
	 * many. Without it dp itself is added.
	 */
	int (*expand)(struct sema *se, struct node *point,
		      struct derived_probe *dp, struct probe_body *b);

	/*
	 * Optional (none: the family has no context values): the type of
	 * context value n ($x, $x->f, $$parms, ...) in a body the family
	 * has; with addr_of, of &n, or TY_UNKNOWN when the family takes no
	 * address of n (the generic rule reports it). A body has a
	 * family's context when all its probes are of it (own_context,
	 * when set, says whether dp has any), or, with first_claims, when
	 * its first probe is.
	 */
	enum type (*context)(struct sema *se, struct node *n, bool addr_of);
	bool (*own_context)(const struct derived_probe *dp);
	bool first_claims;
	/* Optional: `lhs OP= rhs` on a context value; false: not handled
	 * here (the generic rules report it) */
	bool (*context_assign)(struct sema *se, struct node *assign,
			       enum type *type);
	/* its context variables can be written (-g): an assignment the
	 * family does not take is reported as such */
	bool writable;
	/* Optional: @defined of the plain context variable n: 0 or 1 */
	int (*defined)(struct sema *se, struct node *n);
	/* Optional: the C type of variable name (no '$') at dp, or NULL:
	 * autocast and member chains through BTF start from it */
	const char *(*var_ctype)(const struct derived_probe *dp,
				 const char *name);
	/* Optional: the module file (its path) whose BTF has the types of
	 * dp's variables that vmlinux's lacks, or NULL */
	const char *(*var_module)(const struct derived_probe *dp);
	/* Optional: the user program (its resolved path) whose DWARF has
	 * the types of dp's variables (target_user_btf), or NULL; their
	 * memory, and a @cast's without a module, is the process's */
	const char *(*var_user)(const struct derived_probe *dp);
	/* $return is a context value of this family's bodies */
	bool has_return;
	/* Optional: the family's own @-functions (@entry, @perf), wherever
	 * they appear (the family says where they are wrong): the type of
	 * n, or false when n is not one of them */
	bool (*at_func)(struct sema *se, struct node *n, enum type want,
			enum type *type);
	/* Optional: after the last walk over the bodies, before the
	 * optimiser: checks on its probes, probes to drop */
	void (*finish)(struct sema *se);
	/* Optional: -L of an alias: the context variables of dp, appended
	 * to out as " $name:type" */
	void (*list_vars)(const struct derived_probe *dp, struct strbuf *out);
	/* Optional: -l/-L of spec (-L: with_vars) straight from a kernel
	 * catalog, without elaborating a probe: the number of lines
	 * printed, or -1 when spec is not one of the family's points */
	int (*list)(struct session *s, const char *spec, bool with_vars);

	/* Optional: at the end of pass 2 (no errors), fill dp->attach:
	 * what a backend needs to attach dp and read its context values
	 * (without it, dp->attach stays as derive left it; ATTACH_NONE:
	 * pass 2 refused every point of the family before) */
	void (*describe)(const struct program *prog, struct derived_probe *dp);
};

/* Every family, in the order their derive hooks are tried; NULL-ended
 * (probes/registry.c). */
extern const struct probe_family *const probe_families[];

#endif /* SEMANTIC_FAMILY_H */
