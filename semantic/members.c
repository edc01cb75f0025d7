// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * $arg->member->member[N] on a context variable, @cast(p, "T")->m...:
 * pass 2 walks the chain through the target kernel's BTF types and
 * records, per step, what the generated code does with it (see struct
 * member_path in semantic.h): the family's callback for $arg chains, the
 * handler for @cast (type_path works from any value of a known type).
 * BTF tells us which steps read memory (pointers, integers), which only
 * compute an address (embedded structs, arrays), and refuses a chain that
 * ends on a struct (unless it is to be pretty-printed). As in SystemTap,
 * every result is a long: an array or char array gives its address, not
 * its text.
 */
#include "target/btf.h"
#include "semantic/semantic.h"
#include "semantic/elaborate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The chain's nodes from the root $arg outwards (at most 32). */
static int chain_nodes(const struct node *n, const struct node **out)
{
	int k = 0;

	while (n->kind == N_TMEMBER || n->kind == N_TINDEX) {
		if (k == 32)
			return -1;
		out[k++] = n;
		n = n->target.base;
	}
	/* reverse: root side first */
	for (int i = 0; i < k / 2; i++) {
		const struct node *t = out[i];
		out[i] = out[k - 1 - i];
		out[k - 1 - i] = t;
	}
	return k;
}

const char *context_root(const struct node *n)
{
	while (n->kind == N_TMEMBER || n->kind == N_TINDEX)
		n = n->target.base;
	return n->kind == N_TARGET ? n->target.name : NULL;
}

struct node *chain_root(struct node *n)
{
	while (n->kind == N_TMEMBER || n->kind == N_TINDEX)
		n = n->target.base;
	return n;
}

const struct node *context_step(const struct node *n)
{
	const struct node *step = NULL;

	for (const struct node *m = n; m->kind != N_TARGET; m = m->target.base)
		step = m;
	return step;
}

char *context_key(struct arena *a, const struct node *n)
{
	if (n->kind == N_TARGET)
		return arena_strdup(a, n->target.name);
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@var") &&
	    n->call.args && n->call.args->kind == N_STRING)
		return arena_printf(a, "@var(\"%s\")", n->call.args->str.value);
	if (n->kind == N_ATFUNC)
		return arena_printf(a, "%s(...)", n->call.name);
	if (n->kind != N_TMEMBER && n->kind != N_TINDEX)
		return arena_strdup(a, "(...)");
	char *base = context_key(a, n->target.base);
	if (n->kind == N_TMEMBER)
		return arena_printf(a, "%s->%s", base, n->target.name);
	return arena_printf(a, "%s[%" PRId64 "]", base,
			    n->target.index->num.value);
}


/* The member names of struct sid, those of its anonymous members too. */
static void member_names(const struct btf *btf, int sid, const char **names,
			 int *n, int max, int depth)
{
	const char *name;
	int type;
	unsigned bits, bsize;

	for (int i = 0; *n < max &&
	     !btf_member_at(btf, sid, i, &name, &type, &bits, &bsize); i++) {
		if (*name) {
			names[(*n)++] = name;
		} else if (depth < 4) {
			struct btf_info inner;
			btf_resolve(btf, type, &inner);
			member_names(btf, inner.id, names, n, max, depth + 1);
		}
	}
}

/* The member of struct sid closest to a name it lacks ($prev->pdi: pid). */
static const char *closest_member(const struct btf *btf, int sid,
				  const char *name)
{
	enum { MAX_MEMBERS = 1024 };
	const char **names = malloc(MAX_MEMBERS * sizeof(*names));
	const char *close;
	int n = 0;

	if (!names)
		return NULL;
	member_names(btf, sid, names, &n, MAX_MEMBERS, 0);
	close = suggest(name, names, n);
	free(names);
	return close;
}

/*
 * The chain n on an argument of C type arg_type. Returns NULL and fills
 * *out, or an error message (arena) and *at, the node it is about.
 */
const char *context_member_path(struct arena *a, struct btf *btf,
			   const char *arg_type, const struct node *n,
			   struct member_path *out, const struct node **at)
{
	int type = btf_find_type(btf, arg_type);
	int end;

	*at = n;
	if (!type)
		return arena_printf(a, "the kernel's BTF has no type '%s'",
				    arg_type);
	return type_path(a, btf, type, 0, n, out, &end, at);
}

/* How a step that ends on a value of type cur gives it: read (a scalar),
 * or its address (an aggregate); nonzero when it cannot be read. */
static int btf_step_result(const struct btf_info *cur, struct member_step *st)
{
	switch (cur->cls) {
	case BTF_CLASS_INT:
	case BTF_CLASS_ENUM:
	case BTF_CLASS_PTR:
	case BTF_CLASS_FUNC_PTR:
		st->result = st->bit_size ? STEP_BITS : STEP_READ;
		st->size = cur->size;
		st->is_signed = cur->is_signed;
		return 0;
	case BTF_CLASS_ARRAY:
	case BTF_CLASS_STRUCT:
	case BTF_CLASS_UNION:
		st->result = STEP_ADDR;
		return 0;
	default:
		return -1;
	}
}

const char *type_path(struct arena *a, struct btf *btf, int type_id,
		      int flags, const struct node *n, struct member_path *out,
		      int *end_type, const struct node **at)
{
	const struct node *nodes[32];
	int k = chain_nodes(n, nodes);
	struct btf_info cur;

	*at = n;
	if (k < 0)
		return "member chain too long";
	btf_resolve(btf, type_id, &cur);
	if (flags & (PATH_OBJECT | PATH_VAR)) {
		/* the value is a pointer to it, in effect */
		memset(&cur, 0, sizeof(cur));
		cur.cls = BTF_CLASS_PTR;
		cur.target = type_id;
		cur.size = 8;
	}
	int first = flags & PATH_VAR ? 1 : 0;
	out->steps = arena_alloc(a, (size_t)(k + first ? k + first : 1) *
				    sizeof(*out->steps));
	out->nsteps = k + first;
	out->user = false;	/* the caller says when it is a process's */
	if (first) {
		/* @var: the object at the value, as ((T *)value)[0] */
		struct member_step *st = &out->steps[0];
		st->kind = STEP_INDEX;
		st->deref = true;
		btf_resolve(btf, type_id, &cur);
		st->stride = cur.size;
		if (btf_step_result(&cur, st))
			return "a variable of this type cannot be read";
	}
	for (int i = 0; i < k; i++) {
		const struct node *s = nodes[i];
		struct member_step *st = &out->steps[i + first];
		char *tname = btf_type_name(btf, cur.id);
		const char *shown = arena_strdup(a, tname ? tname : "?");
		free(tname);

		*at = s;
		if (s->kind == N_TMEMBER && (!strcmp(s->target.name, "$") ||
					     !strcmp(s->target.name, "$$")))
			return "pretty printing ($ and $$ suffixes) is not "
			       "supported yet";
		if (s->kind == N_TINDEX) {
			/* the handler walks a @cast chain: any index there */
			if (s->target.index->kind != N_NUMBER &&
			    !(flags & PATH_OBJECT))
				return "only a constant index is supported on "
				       "tracepoint context variables yet";
			if (cur.cls != BTF_CLASS_PTR && cur.cls != BTF_CLASS_ARRAY)
				return arena_printf(a, "cannot index a '%s'",
						    shown);
			st->kind = STEP_INDEX;
			if (s->target.index->kind == N_NUMBER)
				st->index = s->target.index->num.value;
			else
				st->index_expr = s->target.index;
			st->deref = cur.cls == BTF_CLASS_PTR;
			btf_resolve(btf, cur.target, &cur);
			st->stride = cur.size;
			if (!st->stride)
				return "cannot index an array of elements "
				       "without a size";
		} else {
			/* '->' on a pointer to a struct, or on a struct itself */
			int sid = cur.id, mtype;
			unsigned bits, bsize;
			st->deref = false;
			if (cur.cls == BTF_CLASS_PTR) {
				struct btf_info pointee;
				btf_resolve(btf, cur.target, &pointee);
				if (pointee.cls != BTF_CLASS_STRUCT &&
				    pointee.cls != BTF_CLASS_UNION)
					return arena_printf(a, "'%s' is not a "
							    "pointer to a struct "
							    "or union", shown);
				sid = pointee.id;
				st->deref = true;
			} else if (cur.cls != BTF_CLASS_STRUCT &&
				   cur.cls != BTF_CLASS_UNION) {
				return arena_printf(a, "'%s' has no members",
						    shown);
			}
			if (btf_member(btf, sid, s->target.name, &mtype, &bits,
				       &bsize)) {
				char *sn = btf_type_name(btf, sid);
				const char *close = closest_member(btf, sid,
								   s->target.name);
				const char *msg = arena_printf(a, "'%s' has no "
							       "member '%s'%s%s%s",
							       sn ? sn : "?",
							       s->target.name,
							       close ? " (did you mean '" : "",
							       close ? close : "",
							       close ? "'?)" : "");
				free(sn);
				return msg;
			}
			st->kind = STEP_MEMBER;
			st->member = s->target.name;
			st->bit_offset = bits;
			st->bit_size = bsize;
			btf_resolve(btf, mtype, &cur);
		}
		if (btf_step_result(&cur, st))
			return arena_printf(a, "a '%s' cannot be read",
					    shown);
		if (i + 1 < k && st->result != STEP_ADDR &&
		    cur.cls != BTF_CLASS_PTR)
			return arena_printf(a, "'%s' is not a pointer, struct "
					    "or array", shown);
	}
	if (k == 0 && (flags & PATH_OBJECT) && !first) {
		/* @cast(p, "T") itself: the object at p */
		*end_type = type_id;
		btf_resolve(btf, type_id, &cur);
		if (flags & (PATH_ADDRESS | PATH_AGGREGATE))
			goto done;
	} else {
		*end_type = cur.id;
	}
	if (flags & PATH_ADDRESS) {
		struct member_step *last = out->nsteps ?
					   &out->steps[out->nsteps - 1] : NULL;
		if (!last)
			return "cannot take the address of a context variable";
		if (last->result == STEP_BITS)
			return arena_printf(a, "cannot take the address of the "
					    "bitfield '%s'", last->member);
		last->result = STEP_ADDR;
		goto done;
	}
	if ((cur.cls == BTF_CLASS_STRUCT || cur.cls == BTF_CLASS_UNION) &&
	    !(flags & PATH_AGGREGATE)) {
		char *tn = btf_type_name(btf, cur.id);
		const char *msg = arena_printf(a, "'%s' is a %s, which has no "
					       "value (read one of its members)",
					       context_key(a, n), tn ? tn : "struct");
		free(tn);
		*at = n;
		return msg;
	}
done:
	*at = NULL;
	return NULL;
}

bool member_path_equal(const struct member_path *x, const struct member_path *y)
{
	if (x->nsteps != y->nsteps)
		return false;
	for (int i = 0; i < x->nsteps; i++) {
		const struct member_step *p = &x->steps[i], *q = &y->steps[i];
		if (p->kind != q->kind || p->result != q->result ||
		    p->deref != q->deref || p->bit_offset != q->bit_offset ||
		    p->bit_size != q->bit_size || p->size != q->size ||
		    p->is_signed != q->is_signed || p->index != q->index ||
		    p->stride != q->stride || p->index_expr != q->index_expr)
			return false;
	}
	return true;
}
