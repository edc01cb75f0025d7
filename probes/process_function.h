/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process("PATH").function/.statement/.plt/.mark: what the family's two
 * files share. process_function.c finds the places (points, expand,
 * listing, describe); process_function_vars.c gives a function's
 * variables as context values (scalars, member chains, structs by value,
 * pretty printing, writes) from the program's DWARF.
 */
#ifndef PROBES_PROCESS_FUNCTION_H
#define PROBES_PROCESS_FUNCTION_H

#include "probes/probes.h"

#include "elf/elf.h"
#include "target/dwloc.h"

extern const struct probe_family process_function_family;

enum up_what { UP_FUNCTION, UP_PLT, UP_MARK, UP_STATEMENT };

struct place {
	const char *label;		/* inside the point's ("...") */
	uint64_t addr;
	const struct elf_sdt *sdt;
	/* a function from the DWARF: its instance's CU, -L's variables
	 * ("$name:type"), the C type of its return value (or NULL) */
	uint32_t cu;
	uint64_t entry;			/* a statement: its function's entry */
	bool dwarf, inlined;
	const char **vars;
	int nvars;
	const char *ret_type;
};

struct up_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	enum up_what what;
	bool ret;			/* .return */
	bool call;			/* .call */
	bool inlined;			/* .inline */
	/* the frame address at addr from the CFI (place_cfa), once */
	bool cfa_looked, cfa_known;
	unsigned cfa_reg;
	int64_t cfa_offset;
	bool after_prologue;		/* a function's probe past its
					 * prologue (addr; place.entry its
					 * entry): its variables as a
					 * statement's there */
	const char *path, *library;	/* as the point names them */
	const char *pattern;		/* the function, stub or mark */
	const char *provider;		/* .provider("P").mark: P, or NULL */
	/* after expand: the place */
	const char *file;		/* resolved */
	uint64_t addr, offset, semaphore_offset;
	const struct elf_sdt *sdt;	/* a mark's note */
	unsigned ret_size;
	bool ret_signed;
	struct place place;		/* where: its DWARF */
	/* a point that matched nothing: the error, reported after the
	 * body's checks (finish), and where; the probe attaches nothing */
	const char *nomatch;
	struct node *nomatch_at;
	/* locs[k]: where the body's context value k (a variable of the
	 * function) is at the probe, or NULL; 64 slots at most */
	const struct dwloc_prog **locs;
	unsigned *sizes;		/* [k]: its scalar's bytes */
	bool *signs;
	bool *objects;			/* [k]: the value is the object's
					 * address (a struct by value, or a
					 * write's target in memory) */
	bool *reg_slots;		/* [k]: a write's target register: the
					 * value is its slot in pt_regs */
};

/* What a variable's context value is (function_var). */
enum var_mode {
	VAR_VALUE,			/* its value (a scalar) */
	VAR_OBJECT,			/* a struct's or array's address */
	VAR_ADDRESS,			/* &$x: a variable's address in
					 * memory */
	VAR_WRITE,			/* where a write (-g) puts a scalar */
};

static inline struct up_probe *up_of(const struct derived_probe *dp)
{
	return (struct up_probe *)dp;
}
/* In the body of the probe being elaborated: are all its probes of
 * what (and .return when ret)? */
bool up_body_all(struct sema *se, enum up_what what, bool ret);
/* Does the body have a point that matched nothing (its values unknown)? */
bool up_body_nomatch(struct sema *se);
/* k of "$argK" (1..), or 0 */
int up_mark_arg(const char *name);
/* Do all the body's marks have an argument k? */
bool up_marks_have(struct sema *se, int k);

/* process_function_vars.c: the family's context hooks */
enum type up_context(struct sema *se, struct node *n, bool addr_of);
int up_defined(struct sema *se, struct node *n);
bool up_context_assign(struct sema *se, struct node *assign,
		       enum type *type);
const char *up_var_ctype(const struct derived_probe *dp, const char *name);
const char *up_var_user(const struct derived_probe *dp);

#endif /* PROBES_PROCESS_FUNCTION_H */
