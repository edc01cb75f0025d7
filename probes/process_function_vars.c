// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The variables of a user function as context values of its
 * process("PATH").function/.statement probes (and a mark's, a .plt
 * probe's few): each a slot the probe's handler reads at the hit from
 * the variable's DWARF location (module/loc_c.h renders it over the
 * user registers and the process's memory), then member steps through
 * the program's DWARF types (a scope of the one type table:
 * target_user_btf). A struct passed by value is its address; $x$ and
 * $$parms$ are SystemTap 4.8's pretty printing of those values
 * (semantic/pretty.c, reading the process); with -g a slot is where a
 * write goes (a register's place in the saved user registers, or
 * memory).
 */
#include "probes/process_function.h"

#include <string.h>

/* A copy of location program l in arena a (it outlives the file). */
static const struct elf_loc *copy_loc(struct arena *a, const struct elf_loc *l,
				      int depth)
{
	struct elf_loc *c;
	struct elf_loc_op *ops;

	if (!l || depth > 4)
		return NULL;
	c = arena_alloc(a, sizeof(*c));
	*c = *l;
	ops = arena_alloc(a, (size_t)(l->n ? l->n : 1) * sizeof(*ops));
	for (int i = 0; i < l->n; i++) {
		ops[i] = l->ops[i];
		ops[i].sub = copy_loc(a, l->ops[i].sub, depth + 1);
	}
	c->ops = ops;
	c->frame_base = copy_loc(a, l->frame_base, depth + 1);
	return c;
}

/*
 * Past a function's entry (a statement, a probe after the prologue) the
 * frame address is what the program's CFI says at the place: prog's
 * DW_OP_call_frame_cfa is then that register plus offset (looked up once
 * per probe; unknown: the location stays refused).
 */
static void place_cfa(struct up_probe *u, struct dwloc_prog *prog)
{
	if (!u->cfa_looked) {
		char *why = NULL;
		struct elf_file *ef = elf_file_open(u->file, NULL, &why);
		struct elf_frame fr;
		const char *err;

		free(why);
		u->cfa_looked = true;
		if (ef && !elf_file_cfi_at(ef, u->addr, &fr, &err) &&
		    fr.cfa.kind == ELF_RULE_REG_OFFSET) {
			u->cfa_known = true;
			u->cfa_reg = fr.cfa.reg;
			u->cfa_offset = fr.cfa.offset;
		}
		if (ef)
			elf_file_close(ef);
	}
	prog->cfa_known = u->cfa_known;
	prog->cfa_reg = u->cfa_reg;
	prog->cfa_offset = u->cfa_offset;
}

/* The C type of variable name ("$a") at u's function, or NULL. */
static const char *var_type(const struct up_probe *u, const char *name)
{
	size_t len = strlen(name);

	for (int v = 0; v < u->place.nvars; v++)
		if (!strncmp(u->place.vars[v], name, len) &&
		    u->place.vars[v][len] == ':')
			return u->place.vars[v] + len + 1;
	return NULL;
}

/*
 * $name of the function of every probe of the body: slot k's location
 * at each, or an error reported at n. Scalars (base types, enums,
 * pointers) only.
 */
static bool function_var(struct sema *se, struct node *n, int k,
			 const char *name, enum var_mode mode)
{
	bool object = mode == VAR_OBJECT || mode == VAR_ADDRESS;
	const struct probe_body *b = sema_ctx(se);
	struct arena *a = &se->s->arena;

	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		struct up_probe *u = up_of(dp);
		const char *type, *err;
		struct dwloc_file *dw;
		struct dwloc_prog prog;
		char *why = NULL;
		unsigned size;
		bool sign;

		if (dp->body != b)
			continue;
		if (u->locs && u->locs[k])
			continue;
		type = var_type(u, name);
		if (!type) {
			struct strbuf alt = { 0 };
			for (int v = 0; v < u->place.nvars; v++)
				sb_printf(&alt, "%s%.*s", v ? " " : "",
					  (int)strcspn(u->place.vars[v], ":"),
					  u->place.vars[v]);
			if (se->report)
				diag_error(se->s, n->loc, "unable to find local "
					   "'%s' in %s (alternatives: %s)",
					   name + 1, dp->pp,
					   u->place.nvars ? sb_str(&alt) : "none");
			sb_free(&alt);
			return false;
		}
		dw = dwloc_open(u->file, &why);
		if (!dw) {
			if (se->report)
				diag_error(se->s, n->loc, "cannot read the DWARF "
					   "of %s: %s", u->file, why);
			free(why);
			return false;
		}
		bool stmt = u->what == UP_STATEMENT || u->after_prologue;
		size = 8;
		sign = false;
		if (!object && !dwloc_var_scalar(dw, stmt ? u->place.entry : u->addr,
				      u->place.cu, stmt ? u->addr : 0,
				      name + 1, &size, &sign)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' is a %s: only "
					   "scalar variables (numbers, enums, "
					   "pointers) of user-space functions are "
					   "supported yet", name, type);
			dwloc_close(dw);
			return false;
		}
		err = stmt ? dwloc_var_at(dw, a, u->place.entry, u->place.cu,
					  u->addr, name + 1, &prog) :
			     dwloc_var(dw, a, u->addr, u->place.cu, name + 1,
				       &prog);
		if (!err && stmt)
			place_cfa(u, &prog);
		for (int o = 0; !err && o < prog.loc->n; o++)
			if (prog.loc->ops[o].kind == ELF_LOC_ADDR)
				err = "a static variable's address in a user "
				      "program is not supported yet";
		struct dwloc_value shape = { .kind = DWL_VALUE, .reg = -1 };
		if (!err && (object || mode == VAR_WRITE))
			err = dwloc_eval(a, &prog, size, NULL, NULL, &shape);
		if (!err && mode == VAR_ADDRESS && shape.kind != DWL_MEMORY)
			err = arena_printf(a, "cannot take address of "
					   "object in register ('%s')", name);
		if (!err && object && shape.kind != DWL_MEMORY)
			err = arena_printf(a, "'%s' is a %s held in registers, "
					   "which is not supported yet", name,
					   type);
		if (!err && mode == VAR_WRITE && shape.kind != DWL_MEMORY &&
		    (shape.kind != DWL_REGISTER || shape.reg < 0))
			err = arena_printf(a, "cannot write to '%s': its value "
					   "is computed, it has no location",
					   name);
		if (!err) {
			struct dwloc_prog *c = arena_alloc(a, sizeof(*c));
			*c = prog;
			c->loc = copy_loc(a, prog.loc, 0);
			if (!u->locs) {
				u->locs = arena_alloc(a, 64 * sizeof(*u->locs));
				u->sizes = arena_alloc(a, 64 * sizeof(*u->sizes));
				u->signs = arena_alloc(a, 64 * sizeof(*u->signs));
				u->objects = arena_alloc(a, 64 *
							 sizeof(*u->objects));
				u->reg_slots = arena_alloc(a, 64 *
							sizeof(*u->reg_slots));
			}
			u->locs[k] = c;
			u->sizes[k] = size;
			u->signs[k] = sign;
			u->objects[k] = object || (mode == VAR_WRITE &&
						   shape.kind == DWL_MEMORY);
			u->reg_slots[k] = mode == VAR_WRITE &&
					  shape.kind == DWL_REGISTER;
		}
		dwloc_close(dw);
		if (err) {
			if (se->report)
				diag_error(se->s, n->loc, "cannot read '%s' in %s: "
					   "%s", name, dp->pp, err);
			return false;
		}
	}
	return true;
}

/* Is mark argument k at some probe of the body an operand relative to
 * the program counter ("sym(%rip)"), not modelled yet? Reported. */
static bool marks_rip(struct sema *se, int k)
{
	const struct probe_body *b = sema_ctx(se);

	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		const struct elf_sdt_arg *arg;

		if (dp->body != b || !up_of(dp)->sdt)
			continue;
		arg = &up_of(dp)->sdt->arg[k - 1];
		if (arg->reg == 16 || arg->symbol || arg->index_reg == 16) {
			if (se->report)
				diag_error(se->s, sema_ctx(se)->probe->loc,
					   "$arg%d of %s is '%s', an operand "
					   "relative to the program counter: "
					   "not supported yet", k, dp->pp,
					   arg->text);
			return true;
		}
	}
	return false;
}

/*
 * $p->f, $p->a[i]->g ... of a function's pointer variable $p: a slot of
 * its own, the pointer's location then the member steps through the
 * binary's DWARF types (a scope of the one type table: target_user_btf),
 * the same in every probe of the body. The reads are the process's.
 * A struct or array variable (a struct passed by value): the steps start
 * from its address ($pr->b). flags: PATH_AGGREGATE for the value a
 * pretty printing shows ($s->emb$: the member's address), PATH_ADDRESS
 * for &$p->f; write: the target of `$p->f = v` (-g), the member's address
 * and size (write_size).
 */
static struct symbol *chain_slot(struct sema *se, struct node *n, int flags,
				 bool write)
{
	struct probe_body *b = sema_ctx(se);
	struct arena *a = &se->s->arena;
	const char *root = context_root(n);
	struct path_merge m = { 0 };
	struct btf *btf;
	bool object = false;
	char *key;

	if (n->kind == N_TINDEX)
		infer(se, n->target.index, TY_LONG);
	if (!root || root[1] == '$' || (!up_body_all(se, UP_FUNCTION, false) &&
					!up_body_all(se, UP_FUNCTION, true) &&
					!up_body_all(se, UP_STATEMENT, false))) {
		if (se->report)
			diag_error(se->s, n->loc, "member access applies to a "
				   "user-space function's variables only, for "
				   "now");
		return NULL;
	}
	key = context_key(a, n);
	if (flags & PATH_AGGREGATE)
		key = arena_printf(a, "*%s", key);
	else if (flags & PATH_ADDRESS)
		key = arena_printf(a, "&%s", key);
	else if (write)
		key = arena_printf(a, "=%s", key);
	for (int i = 0; i < b->nctxvars; i++)
		if (!strcmp(b->ctxvars[i]->name, key))
			return b->ctxvars[i];
	if (b->nctxvars >= 64) {
		if (se->report)
			diag_error(se->s, n->loc, "too many context values in "
				   "one probe (at most 64)");
		return NULL;
	}
	if (!(btf = sema_btf(se))) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot resolve '%s': %s", key,
				   se->btf_err);
		return NULL;
	}
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		const struct up_probe *u = up_of(dp);
		const char *type, *msg = NULL;
		const struct node *at = n;
		struct member_path p;
		int scope, id = 0, end;

		if (dp->body != b)
			continue;
		type = var_type(u, root);
		if (!type)
			break;		/* function_var reports it */
		scope = target_user_btf(se->s->target, u->file, &msg);
		if (scope && !(id = btf_find_type_in(btf, type, scope)))
			msg = arena_printf(a, "the DWARF of %s has no type '%s'",
					   u->file, type);
		if (id) {
			struct btf_info info;
			btf_resolve(btf, id, &info);
			object = info.cls == BTF_CLASS_STRUCT ||
				 info.cls == BTF_CLASS_UNION ||
				 info.cls == BTF_CLASS_ARRAY;
			msg = type_path(a, btf, id, flags | (object ?
					PATH_OBJECT : 0), n, &p, &end, &at);
		}
		if (!msg && write) {
			struct member_step *last = &p.steps[p.nsteps - 1];
			at = n;
			if (last->result == STEP_BITS)
				msg = "writing to a bitfield is not supported "
				      "yet";
			else if (last->result != STEP_READ)
				msg = "cannot write to a struct, union or array";
			/* stop at the member's address: the write's target */
			last->result = STEP_ADDR;
		}
		if (!path_merge_add(se, &m, dp, &p, msg, at, n, key))
			return NULL;
	}
	struct member_path *path = m.path;
	if (!function_var(se, n, b->nctxvars, root, object ? VAR_OBJECT :
			  VAR_VALUE))
		return NULL;
	path->user = true;
	struct symbol *sym = add_context_slot(se, b, n, key);
	sym->member_path = path;
	sym->ctx_root = root + 1;
	if (write)
		sym->write_size = path->steps[path->nsteps - 1].size;
	return sym;
}

/*
 * $$parms, $$locals, $$vars (and $$return in a .return probe) of the one
 * probe of the body (each probe of a point gets a body of its own when
 * its body reads them: expand), rewritten as SystemTap 4.8 writes them:
 * sprintf("a=%#x b=%#x", $a, $b), "{...}" for a struct, "[...]" for an
 * array, "?" for a variable without a location there; a mark's
 * "$arg1=%#x ...". Without DWARF: "".
 */
static enum type infer_dollars(struct sema *se, struct node *n,
			       const char *name)
{
	struct arena *a = &se->s->arena;
	const struct derived_probe *dp = NULL;
	int nprobes = 0, want;
	const char *full = name;
	/* $$parms$, $$vars$$: each variable's $name$ (or $name$$) */
	int depth = pretty_suffix(a, full, &name);

	for (int i = 0; i < se->prog->nprobes; i++)
		if (se->prog->probes[i]->body == sema_ctx(se)) {
			dp = se->prog->probes[i];
			nprobes++;
		}
	want = !strcmp(name, "$$parms") ? 1 : !strcmp(name, "$$locals") ? 2 :
	       !strcmp(name, "$$vars") ? 3 : !strcmp(name, "$$return") ? 4 : 0;
	if (!dp || nprobes > 1 || !want || (depth && (want == 4 ||
	    up_of(dp)->what == UP_MARK || up_of(dp)->what == UP_PLT)) ||
	    (want == 4 && !up_of(dp)->ret) ||
	    (up_of(dp)->what == UP_MARK && want == 2) ||
	    (up_of(dp)->what == UP_PLT && want != 4)) {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' of this user-space probe "
				   "is not supported yet", full);
		return n->type = TY_STRING;
	}
	const struct up_probe *u = up_of(dp);
	struct strbuf fmt = { 0 };
	struct node *args = NULL;

	if (want == 4) {
		struct node *v = ast_new(se->s, N_TARGET, n->loc);
		v->target.name = "$return";
		sb_puts(&fmt, "return=%#x");
		args = v;
	} else if (u->what == UP_MARK) {
		for (int k = 1; u->sdt && k <= u->sdt->nargs; k++) {
			struct node *v = ast_new(se->s, N_TARGET, n->loc);
			v->target.name = arena_printf(a, "$arg%d", k);
			sb_printf(&fmt, "%s$arg%d=%%#x", k > 1 ? " " : "", k);
			args = ast_append(args, v);
		}
	} else if (u->place.dwarf) {
		bool stmt = u->what == UP_STATEMENT || u->after_prologue;
		uint64_t fn = stmt ? u->place.entry : u->addr;
		char *why = NULL;
		struct dwloc_file *dw = dwloc_open(u->file, &why);
		struct dwloc_name *vars;
		int nv = !dw ? -1 : stmt ?
			 dwloc_names_at(dw, a, fn, u->place.cu, u->addr, &vars) :
			 dwloc_names(dw, a, fn, u->place.cu, &vars);

		free(why);
		for (int i = 0; i < nv; i++) {
			const char *vn = arena_printf(a, "$%s", vars[i].name);
			const char *tag_err;
			unsigned size;
			bool sign;

			if (!(want & (vars[i].is_param ? 1 : 2)))
				continue;
			sb_printf(&fmt, "%s%s=", fmt.len ? " " : "",
				  vars[i].name);
			if (depth && var_type(u, vn)) {
				/* as SystemTap 4.8: "name=%s" of $name$ */
				struct node *v = ast_new(se->s, N_TARGET, n->loc);
				v->target.name = arena_printf(a, "%s%s", vn,
							      depth == 2 ?
							      "$$" : "$");
				sb_puts(&fmt, "%s");
				args = ast_append(args, v);
				continue;
			}
			int tag_id = depth && vars[i].tag && sema_btf(se) ?
				     btf_find_type_in(sema_btf(se), vars[i].tag,
					target_user_btf(se->s->target, u->file,
							&tag_err)) : 0;
			if (tag_id) {
				/* a struct without a location here: as 4.8,
				 * each member "?" */
				sb_puts(&fmt, pretty_unknown(a, sema_btf(se),
							     tag_id, depth == 2));
				continue;
			}
			if (vars[i].shape == '{' || vars[i].shape == '[') {
				sb_puts(&fmt, vars[i].shape == '{' ? "{...}" :
					"[...]");
				continue;
			}
			if (!var_type(u, vn) ||
			    !dwloc_var_scalar(dw, fn, u->place.cu,
					      stmt ? u->addr : 0, vars[i].name,
					      &size, &sign)) {
				sb_putc(&fmt, '?');
				continue;
			}
			sb_puts(&fmt, "%#x");
			struct node *v = ast_new(se->s, N_TARGET, n->loc);
			v->target.name = vn;
			args = ast_append(args, v);
		}
		dwloc_close(dw);
	}
	struct node *f = ast_new(se->s, N_STRING, n->loc);
	f->str.value = arena_strdup(a, sb_str(&fmt));
	f->str.len = fmt.len;
	sb_free(&fmt);
	if (!args) {
		*n = *f;	/* a constant: no sprintf */
		return n->type = TY_STRING;
	}
	n->kind = N_PRINT;
	n->print.kind = PRINT_SPRINTF;
	n->print.args = ast_append(f, args);
	n->sym = NULL;
	return infer(se, n, TY_STRING);
}

/* The C type of variable name (no '$') at dp's function, or NULL. */
const char *up_var_ctype(const struct derived_probe *dp,
				const char *name)
{
	const struct up_probe *u = up_of(dp);
	size_t len = strlen(name);

	for (int v = 0; v < u->place.nvars; v++)
		if (!strncmp(u->place.vars[v] + 1, name, len) &&
		    u->place.vars[v][len + 1] == ':')
			return u->place.vars[v] + len + 2;
	return NULL;
}

/* The program whose DWARF types dp's variables have. */
const char *up_var_user(const struct derived_probe *dp)
{
	const struct up_probe *u = up_of(dp);

	return u->file && u->place.dwarf ? u->file : NULL;
}

/* Is $name (a variable of the body's functions) a struct, union or
 * array: its value, as a pretty printing's, is its address? */
static bool var_is_object(struct sema *se, const char *name)
{
	struct btf *btf = sema_btf(se);

	for (int i = 0; btf && i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		const char *type, *err;
		struct btf_info info;
		int scope, id;

		if (dp->body != sema_ctx(se) || !(type = var_type(up_of(dp), name)))
			continue;
		scope = target_user_btf(se->s->target, up_of(dp)->file, &err);
		id = scope ? btf_find_type_in(btf, type, scope) : 0;
		if (!id)
			continue;
		btf_resolve(btf, id, &info);
		return info.cls == BTF_CLASS_STRUCT ||
		       info.cls == BTF_CLASS_UNION ||
		       info.cls == BTF_CLASS_ARRAY;
	}
	return false;
}

/*
 * $x of the body's functions: a slot read at each probe from its DWARF
 * location; object: a struct's or array's address ("*$x", for its
 * pretty printing).
 */
static enum type var_slot(struct sema *se, struct node *n, const char *name,
			  enum var_mode mode)
{
	struct probe_body *b = sema_ctx(se);
	const char *key = mode == VAR_VALUE ? name :
			  arena_printf(&se->s->arena, "%s%s",
				       mode == VAR_ADDRESS ? "&" :
				       mode == VAR_OBJECT ?
				       "*" : "=", name);
	int k = -1;

	for (int i = 0; i < b->nctxvars; i++)
		if (!strcmp(b->ctxvars[i]->name, key))
			k = i;
	if (k < 0 && b->nctxvars >= 64) {
		if (se->report)
			diag_error(se->s, n->loc, "too many context "
				   "variables in one probe (64 at most)");
		return n->type = TY_LONG;
	}
	if (k < 0)
		k = b->nctxvars;
	if (!function_var(se, n, k, name, mode))
		return n->type = TY_LONG;
	n->sym = k < b->nctxvars ? b->ctxvars[k] :
		 add_context_slot(se, b, n, key);
	if (mode == VAR_WRITE) {
		for (int i = 0; i < se->prog->nprobes; i++)
			if (se->prog->probes[i]->body == b)
				n->sym->write_size =
					up_of(se->prog->probes[i])->sizes[k];
	}
	return n->type = TY_LONG;
}

/* -g: `$x = v` at a function's entry or a statement writes variable x
 * (its register in the task's saved user registers, or its memory). */
bool up_context_assign(struct sema *se, struct node *assign,
			   enum type *type)
{
	struct node *lhs = assign->binary.lhs, *rhs = assign->binary.rhs;

	if (assign->binary.op != OP_ASSIGN || !se->s->guru ||
	    (!up_body_all(se, UP_FUNCTION, false) &&
	     !up_body_all(se, UP_STATEMENT, false)))
		return false;
	expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
	*type = TY_LONG;
	lhs->type = TY_LONG;
	if (lhs->kind != N_TARGET && lhs->kind != N_TMEMBER &&
	    lhs->kind != N_TINDEX) {
		if (se->report)
			diag_error(se->s, lhs->loc, "only a user-space "
				   "function's variable or member ($x, $p->f) "
				   "can be written");
		return true;
	}
	if (lhs->kind != N_TARGET) {	/* $p->f = v: in the process */
		if (lhs->kind == N_TMEMBER &&
		    (!strcmp(lhs->target.name, "$") ||
		     !strcmp(lhs->target.name, "$$"))) {
			if (se->report)
				diag_error(se->s, lhs->loc, "cannot write to a "
					   "pretty printing");
			return true;
		}
		lhs->sym = chain_slot(se, lhs, 0, true);
		return true;
	}
	if (lhs->target.name[1] == '$' ||
	    pretty_suffix(&se->s->arena, lhs->target.name, &(const char *){0})) {
		if (se->report)
			diag_error(se->s, lhs->loc, "only a user-space "
				   "function's variable ($x) can be written, "
				   "not '%s'", lhs->target.name);
		return true;
	}
	var_slot(se, lhs, lhs->target.name, VAR_WRITE);
	return true;
}

/* $x$, $x$$, $p->f$ of a function's variables: SystemTap's pretty
 * printing of the value, read from the process. */
static enum type infer_pretty(struct sema *se, struct node *n, int depth)
{
	struct node *base = n->target.base;

	if (n->sym && n->sym->kind == SYM_TYPED)
		return n->type = TY_STRING;
	if (!up_body_all(se, UP_FUNCTION, false) &&
	    !up_body_all(se, UP_FUNCTION, true) &&
	    !up_body_all(se, UP_STATEMENT, false)) {
		if (se->report)
			diag_error(se->s, n->loc, "pretty printing applies to a "
				   "user-space function's variables only");
		return n->type = TY_STRING;
	}
	if (base->kind == N_TARGET)
		var_slot(se, base, base->target.name,
			 var_is_object(se, base->target.name) ? VAR_OBJECT :
			 VAR_VALUE);
	else {
		base->sym = chain_slot(se, base, PATH_AGGREGATE, false);
		base->type = TY_LONG;
	}
	if (!base->sym)
		return n->type = TY_STRING;
	return infer_context_pretty(se, n, base, depth);
}

enum type up_context(struct sema *se, struct node *n, bool addr_of)
{
	struct probe_body *b = sema_ctx(se);
	const char *name = n->target.name;
	int depth = addr_of || up_body_nomatch(se) ? 0 : context_pretty_depth(se, n);

	if (depth)
		return infer_pretty(se, n, depth);

	if (up_body_nomatch(se))
		return n->type = n->kind == N_TARGET && name[1] == '$' &&
				 strcmp(name, "$$return") ? TY_STRING : TY_LONG;

	if (n->kind != N_TARGET) {	/* $p->f, &$p->f */
		n->sym = chain_slot(se, n, addr_of ? PATH_ADDRESS : 0, false);
		return n->type = TY_LONG;
	}
	if (addr_of) {
		/* &$x: the address of a variable in memory */
		if (name[1] == '$' || (!up_body_all(se, UP_FUNCTION, false) &&
				       !up_body_all(se, UP_FUNCTION, true) &&
				       !up_body_all(se, UP_STATEMENT, false))) {
			if (se->report)
				diag_error(se->s, n->loc, "'&' applies to a "
					   "user-space function's variables "
					   "only");
			return n->type = TY_LONG;
		}
		return var_slot(se, n, name, VAR_ADDRESS);
	}
	if (!strncmp(name, "$$parms", 7) || !strncmp(name, "$$vars", 6) ||
	    !strncmp(name, "$$locals", 8) || !strncmp(name, "$$return", 8))
		return infer_dollars(se, n, name);
	if (!strcmp(name, "$return")) {
		if (!up_body_all(se, UP_FUNCTION, true) &&
		    !up_body_all(se, UP_PLT, true) && se->report)
			diag_error(se->s, n->loc, "'$return' is only available "
				   "in .return probes");
		return n->type = TY_LONG;
	}
	if (!strcmp(name, "$$name") && (up_body_all(se, UP_PLT, false) ||
					 up_body_all(se, UP_PLT, true)))
		return n->type = TY_STRING;
	if (up_body_all(se, UP_MARK, false)) {
		if (!strcmp(name, "$$name") || !strcmp(name, "$$provider"))
			return n->type = TY_STRING;
		int k = up_mark_arg(name);
		if (k && up_marks_have(se, k) && !marks_rip(se, k)) {
			for (int i = 0; i < b->nctxvars; i++)
				if (!strcmp(b->ctxvars[i]->name, name)) {
					n->sym = b->ctxvars[i];
					return n->type = TY_LONG;
				}
			n->sym = add_context_slot(se, b, n, name);
			return n->type = TY_LONG;
		}
		if (se->report)
			diag_error(se->s, n->loc, "unknown context variable "
				   "'%s' of a mark (it has $arg1..$argN for "
				   "its N arguments, $$name and $$provider)",
				   name);
		return n->type = TY_LONG;
	}
	if ((up_body_all(se, UP_FUNCTION, false) ||
	     up_body_all(se, UP_FUNCTION, true) ||
	     up_body_all(se, UP_STATEMENT, false)) && name[1] != '$')
		return var_slot(se, n, name, VAR_VALUE);
	if (se->report)
		diag_error(se->s, n->loc, "context variable '%s' of this "
			   "user-space probe is not supported yet", name);
	return n->type = TY_LONG;
}

int up_defined(struct sema *se, struct node *n)
{
	const char *name = n->target.name;

	if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
		return !up_body_all(se, UP_PLT, false) &&
		       !up_body_all(se, UP_PLT, true);
	if (up_body_all(se, UP_MARK, false))
		return !strcmp(name, "$$name") || !strcmp(name, "$$provider") ||
		       (up_mark_arg(name) && up_marks_have(se, up_mark_arg(name)));
	if (!strcmp(name, "$$name") && (up_body_all(se, UP_PLT, false) ||
					 up_body_all(se, UP_PLT, true)))
		return 1;
	if (!strcmp(name, "$return"))
		return up_body_all(se, UP_FUNCTION, true) ||
		       up_body_all(se, UP_PLT, true);
	if (!up_body_all(se, UP_FUNCTION, false) &&
	    !up_body_all(se, UP_FUNCTION, true) &&
	    !up_body_all(se, UP_STATEMENT, false))
		return 0;
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body == sema_ctx(se) && !var_type(up_of(dp), name))
			return 0;
	}
	return 1;
}