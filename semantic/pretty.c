// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pretty printing of a typed value ($var$, $var$$, $$parms$, @cast(...)$):
 * the value's BTF type is flattened at compile time into a list of items,
 * literal text and one conversion each, read at fixed offsets from the
 * value (the runtime's stp_pretty() does the fault-safe reads). The shape
 * is SystemTap 4.8's (dwarf_pretty_print in its tapsets.cxx):
 *   - a struct prints "{.a=1, .b=0x..., .c={...}, .d=[...]}"; one level
 *     for '$', every level for '$$' (embedded structs and arrays inline);
 *   - only the top-level pointer is followed, other pointers print %p;
 *   - char arrays and char pointers print as quoted strings;
 *   - chars print '%#c', signed integers %i, unsigned %u, bitfields %i or
 *     %u, floats "?", an array its first element then ", ...";
 *   - after 32 conversions a struct's remaining members are "...".
 * The input value is the value of the type; for a struct, union or array
 * it is the object's address (as everywhere in pass 2).
 */
#include "target/btf.h"
#include "semantic/semantic.h"

#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

#define PRETTY_MAX_ARGS 32	/* SystemTap's limit (PR10750) */
#define PRETTY_MAX_DEPTH 16

struct builder {
	struct arena *a;
	const struct btf *btf;
	bool full;			/* '$$' */
	bool unknown;			/* no value: each conversion is "?" */
	struct strbuf text;		/* literal text not yet in an item */
	struct pretty_item *items;
	int nitems, cap, nargs;
};

/* Where a value is: the input value itself, or memory at an offset. */
struct where {
	bool is_value;
	unsigned offset;		/* bytes from the input value */
	unsigned bit_shift, bit_size;	/* a bitfield */
};

static void put(struct builder *b, const char *s)
{
	sb_puts(&b->text, s);
}

static void item(struct builder *b, char conv, const struct where *w,
		 bool read, unsigned size, bool is_signed)
{
	struct pretty_item *it;

	if (b->unknown && conv) {
		put(b, "?");
		b->nargs++;
		return;
	}
	if (b->nitems == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->items = xrealloc(b->items, (size_t)b->cap * sizeof(*b->items));
	}
	it = &b->items[b->nitems++];
	memset(it, 0, sizeof(*it));
	it->text = arena_strdup(b->a, sb_str(&b->text));
	sb_reset(&b->text);
	it->conv = conv;
	if (w->is_value) {
		it->src = PS_VALUE;
	} else if (w->bit_size) {
		it->src = PS_BITS;
		it->offset = w->offset;
		it->bit_shift = w->bit_shift;
		it->bit_size = w->bit_size;
	} else if (read) {
		it->src = PS_READ;
		it->offset = w->offset;
		it->size = size;
	} else {
		it->src = PS_ADDR;
		it->offset = w->offset;
	}
	it->is_signed = is_signed;
	if (conv)
		b->nargs++;
}

/* A pointer-sized value at w: the pointer itself. */
static void pointer_item(struct builder *b, const char *conv_text,
			 char conv, const struct where *w)
{
	if (!b->unknown)
		put(b, conv_text);
	item(b, conv, w, true, 8, false);
}

static void recurse(struct builder *b, int type, struct where w, bool top,
		    int depth);

static bool is_char_type(const struct btf *btf, int type)
{
	struct btf_info t;

	btf_resolve(btf, type, &t);
	return t.cls == BTF_CLASS_INT && t.is_char && t.size == 1;
}

static void members(struct builder *b, int sid, struct where base, int *count,
		    int depth)
{
	int n = btf_member_at(b->btf, sid, -1, NULL, NULL, NULL, NULL);

	for (int i = 0; i < n; i++) {
		const char *name;
		int mtype;
		unsigned bits, bsize;
		struct btf_info mt;
		struct where w = base;

		if (btf_member_at(b->btf, sid, i, &name, &mtype, &bits, &bsize))
			break;
		if (++*count > 1)
			put(b, ", ");
		if (b->nargs >= PRETTY_MAX_ARGS) {
			put(b, "...");
			break;
		}
		btf_resolve(b->btf, mtype, &mt);
		if (*name) {
			put(b, ".");
			put(b, name);
		} else if (mt.cls == BTF_CLASS_UNION) {
			put(b, "<union>");
		} else if (mt.cls == BTF_CLASS_STRUCT) {
			put(b, "<class>");	/* sic: SystemTap swaps them */
		}
		put(b, "=");
		w.is_value = false;
		w.offset = base.offset + bits / 8;
		if (bsize) {
			if (mt.cls != BTF_CLASS_INT && mt.cls != BTF_CLASS_ENUM) {
				put(b, "?");
				continue;
			}
			w.bit_shift = bits % 8;
			w.bit_size = bsize;
			item(b, mt.is_signed ? 'i' : 'u', &w, true, 0,
			     mt.is_signed);
			continue;
		}
		recurse(b, mtype, w, false, depth + 1);
	}
}

static void recurse(struct builder *b, int type, struct where w, bool top,
		    int depth)
{
	struct btf_info t;

	btf_resolve(b->btf, type, &t);
	if (depth > PRETTY_MAX_DEPTH) {
		put(b, "?");
		return;
	}
	switch (t.cls) {
	case BTF_CLASS_INT:
	case BTF_CLASS_ENUM:
		if (t.cls == BTF_CLASS_INT && t.is_char && t.size == 1 &&
		    b->unknown) {
			put(b, "?");
		} else if (t.cls == BTF_CLASS_INT && t.is_char && t.size == 1) {
			put(b, "'");
			item(b, 'c', &w, true, 1, t.is_signed);
			put(b, "'");
		} else {
			item(b, t.is_signed ? 'i' : 'u', &w, true, t.size,
			     t.is_signed);
		}
		break;
	case BTF_CLASS_ARRAY:
		if (!top && !b->full) {
			put(b, "[...]");
			break;
		}
		if (is_char_type(b->btf, t.target)) {
			/* the array's address, as a string */
			item(b, 's', &w, false, 0, false);
			break;
		}
		put(b, "[");
		if (b->nargs < PRETTY_MAX_ARGS) {
			struct where e = w;
			if (w.is_value) {	/* the value is the address */
				e.is_value = false;
				e.offset = 0;
			}
			recurse(b, t.target, e, false, depth + 1);
		}
		put(b, ", ...]");
		break;
	case BTF_CLASS_PTR: {
		struct btf_info p;
		btf_resolve(b->btf, t.target, &p);
		if (p.cls == BTF_CLASS_VOID) {
			pointer_item(b, "", 'p', &w);
		} else if (p.cls == BTF_CLASS_INT && p.is_char && p.size == 1) {
			pointer_item(b, "", 's', &w);
		} else if (top && w.is_value) {
			/* follow it: the pointee is at the input value */
			struct where at = { .is_value = false, .offset = 0 };
			recurse(b, t.target, at, p.cls == BTF_CLASS_PTR ?
				false : top, depth + 1);
		} else {
			pointer_item(b, "", 'p', &w);
		}
		break;
	}
	case BTF_CLASS_FUNC_PTR:
		pointer_item(b, top ? "<function>:" : "", 'p', &w);
		break;
	case BTF_CLASS_STRUCT:
	case BTF_CLASS_UNION: {
		int count = 0;
		struct where base = w;
		if (w.is_value) {	/* the value is the address */
			base.is_value = false;
			base.offset = 0;
		}
		put(b, "{");
		if (top || b->full)
			members(b, t.id, base, &count, depth);
		else
			put(b, "...");
		put(b, "}");
		break;
	}
	case BTF_CLASS_OTHER: {
		/* a struct only declared: SystemTap stubs it */
		char *name = btf_type_name(b->btf, type);
		bool decl = name && (!strncmp(name, "struct ", 7) ||
				     !strncmp(name, "union ", 6));
		free(name);
		put(b, decl ? "{...}" : "?");
		break;
	}
	default:		/* void, float */
		put(b, "?");
		break;
	}
}

const char *pretty_build(struct arena *a, const struct btf *btf, int type,
			 bool full, struct pretty *out)
{
	struct builder b = { .a = a, .btf = btf, .full = full };
	struct where top = { .is_value = true };

	recurse(&b, type, top, true, 0);
	/* the text after the last conversion */
	item(&b, 0, &top, false, 0, false);
	out->nitems = b.nitems;
	out->user = false;	/* the caller says when it is a process's */
	out->items = arena_alloc(a, (size_t)b.nitems * sizeof(*out->items));
	memcpy(out->items, b.items, (size_t)b.nitems * sizeof(*out->items));
	free(b.items);
	sb_free(&b.text);
	return NULL;
}

/*
 * The text of a value of type type whose location is not known at the
 * probe: the same shape, each conversion "?" (a pointer to a struct still
 * lists the struct's members), as SystemTap 4.8 prints a member it cannot
 * read ("{.flags=?, .mode=?, .resolve=?}").
 */
const char *pretty_unknown(struct arena *a, const struct btf *btf, int type,
			   bool full)
{
	struct builder b = { .a = a, .btf = btf, .full = full, .unknown = true };
	struct where top = { .is_value = true };
	const char *text;

	recurse(&b, type, top, true, 0);
	text = arena_strdup(a, sb_str(&b.text));
	sb_free(&b.text);
	return text;
}

/* A pretty item: one conversion straight from a value ("%#x", "%p"). */
struct pretty *pretty_value(struct arena *a, char conv)
{
	struct pretty *p = arena_alloc(a, sizeof(*p));

	p->nitems = 2;
	p->items = arena_alloc(a, 2 * sizeof(*p->items));
	memset(p->items, 0, 2 * sizeof(*p->items));
	p->items[0].text = "";
	p->items[0].conv = conv;
	p->items[0].src = PS_VALUE;
	p->items[1].text = "";
	return p;
}

bool pretty_equal(const struct pretty *x, const struct pretty *y)
{
	if (x->nitems != y->nitems)
		return false;
	for (int i = 0; i < x->nitems; i++) {
		const struct pretty_item *p = &x->items[i], *q = &y->items[i];
		if (strcmp(p->text, q->text) || p->conv != q->conv ||
		    p->src != q->src || p->offset != q->offset ||
		    p->size != q->size || p->is_signed != q->is_signed ||
		    p->bit_shift != q->bit_shift || p->bit_size != q->bit_size)
			return false;
	}
	return true;
}
