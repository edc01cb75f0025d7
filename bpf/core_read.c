// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CO-RE reads of the kernel's memory, for the BPF backend's kernel
 * programs: a context value's member chain ($p->f->g, attach.c) and a
 * @cast of the kernel's types in a body (emit.c). For each struct a chain
 * goes through, the C declares a local struct NAME___stp with only the
 * members read, marked preserve_access_index; libbpf relocates every
 * member offset against the kernel's BTF when it loads the object. The
 * BTF is the target kernel's (attach.c's bpf_kernel_btf).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "bpf/bpf.h"
#include "bpf/core_read.h"
#include "semantic/semantic.h"
#include "lib/arena.h"

/* ---- pass 3: the local types of the CO-RE reads ------------------------ */

struct lmember {
	char *decl;		/* "__u32 pid" */
	const char *name;
	int dep;		/* the local type it embeds, or -1 */
};

struct ltype {
	int id;			/* in the kernel's BTF */
	char *cname;		/* "struct task_struct___stp" */
	struct lmember *m;
	int nm, cap;
	int state;		/* 0 new, 1 emitting, 2 emitted */
};

/* The local type of kernel type id in c, added when new: its index. */
static int local_type(struct core *c, int id)
{
	for (int i = 0; i < c->nt; i++)
		if (c->t[i].id == id)
			return i;
	const struct btf_type *t = btf__type_by_id(c->b, (__u32)id);
	const char *name = btf__name_by_offset(c->b, t->name_off);
	struct ltype lt = { .id = id };

	if (name && *name && c->tag)
		lt.cname = xasprintf("%s %s___stp%d", btf_is_union(t) ?
				     "union" : "struct", name, c->tag);
	else if (name && *name)
		lt.cname = xasprintf("%s %s___stp", btf_is_union(t) ?
				     "union" : "struct", name);
	else
		lt.cname = xasprintf("%s stp_anon%d_%d", btf_is_union(t) ?
				     "union" : "struct", c->tag, c->anon++);
	VEC_PUSH(c->t, c->nt, c->cap, lt);
	return c->nt - 1;
}

/* The C spelling of a scalar of kernel type id for a local member or a
 * temporary ("__s32"); NULL for one this backend does not read. */
const char *core_scalar_c(const struct btf *b, int id)
{
	const struct btf_type *t = btf__type_by_id(b, (__u32)bpf_skip_mods(b, id));

	if (!t)
		return NULL;
	if (btf_is_ptr(t))
		return "__u64";
	if (btf_is_int(t) || btf_is_any_enum(t)) {
		bool sign = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED)
				: btf_kflag(t);
		switch (t->size) {
		case 1: return sign ? "__s8" : "__u8";
		case 2: return sign ? "__s16" : "__u16";
		case 4: return sign ? "__s32" : "__u32";
		case 8: return sign ? "__s64" : "__u64";
		}
	}
	return NULL;
}

/* Member name of local type lt, declared as the kernel declares it
 * (kinds matter to CO-RE's compatibility check); its type id. */
static int add_member(struct core *c, int lt, const char *name, int *type,
		      unsigned *bits)
{
	const struct btf *b = c->b;
	int id = c->t[lt].id;

	/* the member, through anonymous members as libbpf matches it */
	int mtype = 0;
	unsigned bitsz = 0;
	{
		int stack[16], depth = 0;
		stack[depth++] = id;
		while (depth && !mtype) {
			const struct btf_type *t = btf__type_by_id(b,
						   (__u32)stack[--depth]);
			const struct btf_member *m = btf_members(t);
			for (int i = 0; i < btf_vlen(t); i++) {
				const char *mn = btf__name_by_offset(b,
								     m[i].name_off);
				if (mn && !strcmp(mn, name)) {
					mtype = (int)m[i].type;
					bitsz = btf_member_bitfield_size(t,
									 (__u32)i);
					break;
				}
				int inner = bpf_skip_mods(b, (int)m[i].type);
				const struct btf_type *it = btf__type_by_id(b,
							     (__u32)inner);
				if ((!mn || !*mn) && it && btf_is_composite(it) &&
				    depth < 16)
					stack[depth++] = inner;
			}
		}
	}
	if (!mtype)
		return -1;
	*type = mtype;
	*bits = bitsz;
	struct ltype *l = &c->t[lt];
	for (int i = 0; i < l->nm; i++)
		if (!strcmp(l->m[i].name, name))
			return 0;

	struct lmember lm = { .name = name, .dep = -1 };
	int sid = bpf_skip_mods(b, mtype);
	const struct btf_type *mt = btf__type_by_id(b, (__u32)sid);
	const char *sc = core_scalar_c(b, mtype);
	if (bitsz) {
		lm.decl = xasprintf("unsigned long long %s : %u", name, bitsz);
	} else if (btf_is_any_enum(mt)) {
		const char *en = btf__name_by_offset(b, mt->name_off);
		char tag[16] = "";
		if (c->tag)
			snprintf(tag, sizeof(tag), "%d", c->tag);
		lm.decl = xasprintf("enum %s%s%s { stp_e%s_%d_%s%s } %s",
			     en && *en ? en : "", en && *en ? "___stp" : "",
			     en && *en ? tag : "", tag, c->anon++, name,
			     mt->size == 8 ? " = 0x100000000ULL" : "", name);
	} else if (btf_is_ptr(mt)) {
		lm.decl = xasprintf("void *%s", name);
	} else if (sc) {
		lm.decl = xasprintf("%s %s", sc, name);
	} else if (btf_is_composite(mt)) {
		lm.dep = local_type(c, sid);
		l = &c->t[lt];
		lm.decl = xasprintf("%s %s", c->t[lm.dep].cname, name);
	} else if (btf_is_array(mt)) {
		const struct btf_array *a = btf_array(mt);
		int el = bpf_skip_mods(b, (int)a->type);
		const struct btf_type *et = btf__type_by_id(b, (__u32)el);
		const char *esc = core_scalar_c(b, el);
		if (et && btf_is_composite(et)) {
			lm.dep = local_type(c, el);
			l = &c->t[lt];
			esc = c->t[lm.dep].cname;
		}
		if (!esc)
			return -1;
		lm.decl = xasprintf("%s %s[%u]", esc, name, a->nelems);
	} else {
		return -1;
	}
	VEC_PUSH(l->m, l->nm, l->cap, lm);
	return 0;
}

void core_free(struct core *c)
{
	for (int i = 0; i < c->nt; i++) {
		for (int m = 0; m < c->t[i].nm; m++)
			free(c->t[i].m[m].decl);
		free(c->t[i].m);
		free(c->t[i].cname);
	}
	free(c->t);
}

static void emit_ltype(struct core *c, int i, FILE *out)
{
	struct ltype *l = &c->t[i];

	if (l->state)
		return;		/* emitted, or a pointer cycle's declaration */
	l->state = 1;
	for (int m = 0; m < l->nm; m++)
		if (l->m[m].dep >= 0)
			emit_ltype(c, l->m[m].dep, out);
	fprintf(out, "%s {", l->cname);
	for (int m = 0; m < l->nm; m++)
		fprintf(out, " %s;", l->m[m].decl);
	fputs(" } __attribute__((preserve_access_index));\n", out);
	c->t[i].state = 2;
}

/* Every local type of c, each after those it embeds. */
void core_emit_types(struct core *c, FILE *out)
{
	for (int i = 0; i < c->nt; i++)
		emit_ltype(c, i, out);
}

/* ---- pass 3: reading a context value ------------------------------------ */

/* The value of a plain scalar slot: sign-extended from its type. */
const char *core_cast_of(const struct btf *b, int type)
{
	const char *sc = core_scalar_c(b, type);

	if (!sc || sc[2] != 's')
		return "(long long)";
	if (!strcmp(sc, "__s8"))
		return "(long long)(__s8)";
	if (!strcmp(sc, "__s16"))
		return "(long long)(__s16)";
	if (!strcmp(sc, "__s32"))
		return "(long long)(__s32)";
	return "(long long)";
}

/*
 * The C that opens a block with v, the kernel value root (a __u64 of
 * kernel type type), and f, then reads the member steps of path into v (f
 * set, v the address, at a fault); the caller closes the block. root_struct
 * (0: none) is the struct a @cast says root points to, where root has no
 * pointer type of its own. False (c->err set) when a step cannot be read
 * on this backend.
 */
static bool chain_open(struct core *c, FILE *out, const char *root, int type,
		       int root_struct, const struct member_path *path)
{
	const struct btf *b = c->b;
	int cur = type;

	fprintf(out, "\t{ __u64 v = (__u64)%s%s; int f = 0; (void)v;\n",
		root_struct ? "" : core_cast_of(b, type), root);
	for (int i = 0; path && i < path->nsteps;) {
		const struct member_step *st = &path->steps[i];
		char expr[1024];
		size_t len = 0;
		int sid = bpf_skip_mods(b, cur);
		const struct btf_type *t = btf__type_by_id(b, (__u32)sid);
		bool cast_step = i == 0 && root_struct;

		if (!st->deref || (!cast_step && (!t || !btf_is_ptr(t)))) {
			c->err = "this member chain (a value that is not a "
				 "pointer to a struct) is not on this backend yet";
			return false;
		}
		int pointee = cast_step ? root_struct :
			      bpf_skip_mods(b, (int)t->type);
		const struct btf_type *pt = btf__type_by_id(b, (__u32)pointee);
		if (st->kind == STEP_INDEX) {
			/* $p[N]: the element at v + N * its size */
			const char *esc = core_scalar_c(b, (int)t->type);
			if (!esc || st->result != STEP_READ) {
				c->err = "indexing a pointer to this type is not "
					 "on this backend yet";
				return false;
			}
			fprintf(out, "\tif (!f) { %s x = 0; __u64 a = v + %lld * "
				"sizeof(x); if (bpf_probe_read_kernel(&x, "
				"sizeof(x), (void *)a)) { f = 1; v = a; } else "
				"v = (__u64)(long long)x; }\n", esc,
				(long long)st->index);
			cur = (int)t->type;
			i++;
			continue;
		}
		if (!pt || !btf_is_composite(pt) ||
		    !*btf__name_by_offset(b, pt->name_off)) {
			c->err = "a member of this type is not on this backend "
				 "yet (CO-RE needs a named struct)";
			return false;
		}
		int lt = local_type(c, pointee);
		char sexpr[128];
		snprintf(sexpr, sizeof(sexpr), "((%s *)v)", c->t[lt].cname);
		/* the group: this step and the ones through embedded
		 * structs and arrays that follow it */
		unsigned bits = 0;
		int mt = 0;
		for (;;) {
			st = &path->steps[i];
			if (st->kind == STEP_MEMBER) {
				if (add_member(c, lt, st->member, &mt, &bits) < 0) {
					c->err = "a member's type is not on this "
						 "backend yet";
					return false;
				}
				len += (size_t)snprintf(expr + len, sizeof(expr) -
						len, "%s%s", len ? "." : "",
						st->member);
			} else {
				int aid = bpf_skip_mods(b, mt);
				const struct btf_type *at = btf__type_by_id(b,
								(__u32)aid);
				if (!at || !btf_is_array(at)) {
					c->err = "this index is not on this "
						 "backend yet";
					return false;
				}
				mt = (int)btf_array(at)->type;
				len += (size_t)snprintf(expr + len, sizeof(expr) -
						len, "[%lld]", (long long)st->index);
			}
			if (len >= sizeof(expr) - 1) {
				c->err = "a member chain too long for this backend";
				return false;
			}
			i++;
			if (i >= path->nsteps || path->steps[i].deref)
				break;
			/* the next member is of an embedded struct */
			int nid = bpf_skip_mods(b, mt);
			const struct btf_type *nt = btf__type_by_id(b,
								(__u32)nid);
			if (path->steps[i].kind == STEP_MEMBER) {
				if (!nt || !btf_is_composite(nt)) {
					c->err = "this member chain is not on "
						 "this backend yet";
					return false;
				}
				lt = local_type(c, nid);
			}
		}
		st = &path->steps[i - 1];
		const char *msc = core_scalar_c(b, mt);
		if (bits)
			fprintf(out, "\tif (!f) v = (__u64)"
				"BPF_CORE_READ_BITFIELD_PROBED(%s, %s);\n", sexpr,
				expr);
		else if (st->result == STEP_ADDR || !msc)
			fprintf(out, "\tif (!f) v = (__u64)&%s->%s;\n", sexpr,
				expr);
		else
			fprintf(out, "\tif (!f) { %s x = 0; if (bpf_core_read(&x, "
				"sizeof(x), &%s->%s)) { f = 1; v = (__u64)&%s->%s; } "
				"else v = (__u64)%sx; }\n", msc, sexpr, expr, sexpr,
				expr, msc[2] == 's' ? "(long long)" : "");
		cur = mt;
	}
	return true;
}

/* The C that sets S->c[k] from root through path (chain_open): a fault
 * leaves the address whose read failed in S->c[k] and bit k of S->fm; the
 * body's use of the value is then the module's error. */
bool core_emit_chain(struct core *c, FILE *out, int k, const char *root,
		       int type, const struct member_path *path)
{
	if (!chain_open(c, out, root, type, 0, path))
		return false;
	fprintf(out, "\tS->c[%d] = (long long)v; if (f) S->fm |= 1ULL << "
		"%d; }\n", k, k);
	return true;
}

/* ---- @cast of kernel memory in a body --------------------------------- */

/* The @cast a typed value of the kernel's types starts from, or NULL. */
static const struct node *kernel_cast_of(const struct node *n)
{
	const struct symbol *sym = n->sym;

	if (!sym || sym->kind != SYM_TYPED ||
	    (sym->member_path && sym->member_path->user))
		return NULL;
	if (n->kind == N_UNARY)
		n = n->unary.operand;
	const struct node *root = n->kind == N_ATFUNC ? n :
				  chain_root((struct node *)n);
	return root && root->kind == N_ATFUNC &&
	       !strcmp(root->call.name, "@cast") ? root : NULL;
}

bool bpf_kernel_typed(const struct node *n)
{
	return n->sym && n->sym->kind == SYM_TYPED &&
	       !(n->sym->member_path && n->sym->member_path->user);
}

/* The BTF id of the struct or union a kernel @cast names, 0 if none; *why
 * when it is not the kernel's. */
static int kernel_cast_struct(const struct node *cast, const char **why)
{
	const struct btf *b = bpf_kernel_btf(why);
	const struct node *tn = cast->call.args ? cast->call.args->next : NULL;
	const struct node *mn = tn ? tn->next : NULL;

	if (!b)
		return 0;
	if (mn && mn->kind == N_STRING && strcmp(mn->str.value, "kernel") &&
	    strncmp(mn->str.value, "kernel<", 7)) {
		*why = "@cast to a kernel module's type is not on this "
		       "backend yet (the kernel's own types are)";
		return 0;
	}
	if (!tn || tn->kind != N_STRING)
		return 0;
	const char *name = tn->str.value;
	bool struct_named = !strncmp(name, "struct ", 7);
	bool union_named = !strncmp(name, "union ", 6);
	int id = 0;
	if (!union_named)
		id = btf__find_by_name_kind(b, name + (struct_named ? 7 : 0),
					    BTF_KIND_STRUCT);
	if (id <= 0 && !struct_named)
		id = btf__find_by_name_kind(b, name + (union_named ? 6 : 0),
					    BTF_KIND_UNION);
	if (id <= 0)
		*why = "this @cast's type is not a struct or union the "
		       "running kernel's BTF names";
	return id > 0 ? id : 0;
}

/*
 * Why a @cast of kernel memory (n: the @cast, a member chain on it or its
 * address) cannot be read in a kernel probe on this backend, or NULL.
 */
const char *bpf_kernel_cast_refuses(const struct node *n)
{
	const struct node *cast = kernel_cast_of(n);
	const char *why = NULL;

	if (!cast)
		return "autocast of kernel memory (-> on a local or a "
		       "function's result) is not on this backend yet: name "
		       "the type with @cast";
	if (n->sym->pretty)
		return "pretty printing ($, $$) is not on this backend yet";
	const struct member_path *path = n->sym->member_path;
	for (int i = 0; path && i < path->nsteps; i++)
		if (path->steps[i].index_expr)
			return "a computed index in a @cast chain is not on "
			       "this backend yet";
	int root_struct = kernel_cast_struct(cast, &why);
	if (!root_struct)
		return why ? why : "this @cast's type is not a struct or "
		       "union the running kernel's BTF names";
	struct core c = { .b = bpf_kernel_btf(NULL) };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	bool ok = chain_open(&c, out, "0", 0, root_struct, path);
	fclose(out);
	free(buf);
	core_free(&c);
	return ok ? NULL : c.err;
}

void bpf_emit_kernel_cast(const struct node *n, const char *root,
			  const char *val, const char *fault, FILE *out)
{
	const struct node *cast = kernel_cast_of(n);
	static int ncasts;
	const char *why = NULL;
	struct core c = { .b = bpf_kernel_btf(NULL), .tag = ++ncasts };
	char *buf = NULL;
	size_t len = 0;
	FILE *steps = open_memstream(&buf, &len);

	/* checked at pass 2 (kernel_cast_refuses) */
	chain_open(&c, steps, root, 0, kernel_cast_struct(cast, &why),
		   n->sym->member_path);
	fclose(steps);
	/* the local types CO-RE relocates, declared in the expression's
	 * block (the body is written before the programs' declarations) */
	fputs("{\n", out);
	core_emit_types(&c, out);
	fwrite(buf, 1, len, out);
	fprintf(out, "\t%s = (long long)v; %s = f; }\n}\n", val, fault);
	free(buf);
	core_free(&c);
}
