// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Queries on the function catalog: the probe points of a
 * kernel.function pattern (kf_catalog_match) and the lines of a
 * kernel.statement (kf_statement_points, which reads the line tables of
 * the vmlinux the catalog was built from). See functions.h.
 */
#define _GNU_SOURCE
#include "target/fn_internal.h"
#include "elf/libdw.h"
#include "lib/arena.h"
#include "lib/strbuf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Queries */

struct cand {
	const struct kfunc *f;
	const struct kf_inst *in;
	int fidx;
	bool via_alias;		/* only an alias matched the pattern */
};

/*
 * Out-of-line copies in SystemTap's order: by CU; in a CU, a function
 * found through an alias before one found by its own name (SystemTap's
 * per-CU table of names returns the alias entry, added last, first: for
 * "memcpy" it lists __memcpy, whose DIE sits at the same address).
 */
static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->in->cu != b->in->cu)
		return a->in->cu < b->in->cu ? -1 : 1;
	if (a->via_alias != b->via_alias)
		return a->via_alias ? -1 : 1;
	return (a->fidx > b->fidx) - (a->fidx < b->fidx);
}

/* Symbol-table functions by address, then symbol-table order (as
 * SystemTap walks them: the first symbol at an address wins). */
static int symcand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->in->addr != b->in->addr)
		return a->in->addr < b->in->addr ? -1 : 1;
	return (a->in->cu > b->in->cu) - (a->in->cu < b->in->cu);
}

/* Kept instances back in each function's order. */
static int kept_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->fidx != b->fidx)
		return a->fidx < b->fidx ? -1 : 1;
	return (a->in > b->in) - (a->in < b->in);
}

/* 0: no match, 1: the name matches, 2: only an alias does */
static int name_matches(const char *pat, const struct kfunc *f)
{
	if (fnmatch(pat, f->name, 0) == 0)
		return 1;
	for (int i = 0; i < f->naliases; i++)
		if (fnmatch(pat, f->aliases[i], 0) == 0)
			return 2;
	return 0;
}

static bool file_matches(const char *pat, const char *file)
{
	char *p2;
	bool r;

	if (fnmatch(pat, file, 0) == 0)
		return true;
	if (asprintf(&p2, "*/%s", pat) < 0)
		fatal("out of memory");
	r = fnmatch(p2, file, 0) == 0;
	free(p2);
	return r;
}

/* A small set of addresses (open addressing). */
struct aset {
	uint64_t *k;
	size_t n, nslot;
};

static bool aset_add(struct aset *s, uint64_t a)
{
	size_t h;

	if ((s->n + 1) * 2 > s->nslot) {
		struct aset g = { 0 };

		g.nslot = s->nslot ? 2 * s->nslot : 64;
		g.k = xmalloc(g.nslot * sizeof(*g.k));
		memset(g.k, 0xff, g.nslot * sizeof(*g.k));
		for (size_t i = 0; i < s->nslot; i++)
			if (s->k[i] != UINT64_MAX)
				aset_add(&g, s->k[i]);
		free(s->k);
		*s = g;
	}
	for (h = mix64(a) & (s->nslot - 1); s->k[h] != UINT64_MAX;
	     h = (h + 1) & (s->nslot - 1))
		if (s->k[h] == a)
			return false;
	s->k[h] = a;
	s->n++;
	return true;
}

/*
 * -L's variables of a point: SystemTap prints the "name:type" strings
 * that occur as often as there are instances, in first-seen order over
 * the instances' lists.
 */
static void point_vars(const struct kf_catalog *c, const struct kf_query *q,
		       struct kf_point *pt)
{
	int cap = 0, n = 0;
	uint32_t *ids = NULL, *cnt;
	int ndistinct = 0;

	for (int i = 0; i < pt->ninst; i++)
		cap += (int)c->lists[pt->inst[i]->vars][0];
	ids = xmalloc(((size_t)cap + 1) * sizeof(*ids));
	cnt = xmalloc(((size_t)cap + 1) * sizeof(*cnt));
	for (int i = 0; i < pt->ninst; i++) {
		const uint32_t *l = c->lists[pt->inst[i]->vars];

		for (uint32_t k = 1; k <= l[0]; k++) {
			int d;

			for (d = 0; d < ndistinct; d++)
				if (ids[d] == l[k])
					break;
			if (d == ndistinct) {
				ids[ndistinct] = l[k];
				cnt[ndistinct++] = 0;
			}
			cnt[d]++;
		}
	}
	pt->vars = xmalloc(((size_t)ndistinct + 2) * sizeof(*pt->vars));
	if (q->kind == KF_RETURN && pt->f->ret_type &&
	    !(pt->f->flags & KF_SYMTAB)) {
		char *s;

		if (asprintf(&s, "$return:%s", pt->f->ret_type) < 0)
			fatal("out of memory");
		pt->vars[n++] = s;
	}
	for (int d = 0; d < ndistinct; d++) {
		char *s;

		if ((int)cnt[d] != pt->ninst)
			continue;
		if (asprintf(&s, "$%s", c->vars[ids[d]]) < 0)
			fatal("out of memory");
		pt->vars[n++] = s;
	}
	pt->nvars = n;
	free(ids);
	free(cnt);
}

int kf_catalog_match(const struct kf_catalog *c, const struct kf_query *q,
		     struct kf_point **out)
{
	struct cand *conc = NULL, *inl = NULL, *syms = NULL, *kept = NULL;
	int nconc = 0, capconc = 0, ninl = 0, capinl = 0, nsyms = 0;
	int capsyms = 0, nkept = 0, capkept = 0, npts = 0, cappts = 0;
	struct aset taken = { 0 };
	struct kf_point *pts = NULL;
	bool ret = q->kind == KF_RETURN;

	for (int i = 0; i < c->n; i++) {
		const struct kfunc *f = &c->funcs[i];
		bool symtab = f->flags & KF_SYMTAB;
		int how = name_matches(q->func, f);

		if (!how)
			continue;
		if (symtab && (q->file || q->line >= 0))
			continue;
		if (!symtab && q->file && *f->file &&
		    !file_matches(q->file, f->file))
			continue;
		for (int k = 0; k < f->ninst; k++) {
			struct cand cd = { f, &f->inst[k], i, how == 2 };

			if (symtab)
				VEC_PUSH(syms, nsyms, capsyms, cd);
			else if (f->inst[k].flags & KF_INST_INLINE)
				VEC_PUSH(inl, ninl, capinl, cd);
			else
				VEC_PUSH(conc, nconc, capconc, cd);
		}
	}
	sort_n(conc, (size_t)nconc, sizeof(*conc), cand_cmp);
	sort_n(syms, (size_t)nsyms, sizeof(*syms), symcand_cmp);

	/*
	 * Out-of-line copies: one probe per address, the first name wins.
	 * SystemTap only records the address of a function with a low_pc
	 * (or entry_pc), not one with ranges only (hot/cold split).
	 */
	for (int i = 0; i < nconc; i++) {
		const struct cand *cd = &conc[i];

		if (!(cd->in->flags & KF_INST_RANGES) &&
		    !aset_add(&taken, cd->in->addr))
			continue;
		if ((cd->in->flags & KF_INST_PART) || q->kind == KF_INLINE)
			continue;
		if (q->kind == KF_EXPORTED_ONLY &&
		    !(cd->f->flags & KF_EXPORTED))
			continue;
		if (!q->guru && ((cd->in->flags & KF_INST_REFUSED) ||
				 kf_blocklisted(cd->f->name, cd->f->file,
						ret)))
			continue;
		VEC_PUSH(kept, nkept, capkept, *cd);
	}
	/* inlined copies: not for .call, .return, .exported */
	if (q->kind == KF_ANY || q->kind == KF_INLINE) {
		for (int i = 0; i < ninl; i++) {
			const struct cand *cd = &inl[i];

			if (!q->guru &&
			    ((cd->in->flags & KF_INST_REFUSED) ||
			     kf_blocklisted(cd->f->name, cd->f->file, ret)))
				continue;
			VEC_PUSH(kept, nkept, capkept, *cd);
		}
	}
	/*
	 * Symbol-table functions at addresses not taken yet, one per
	 * address. (SystemTap also means to skip the addresses of the
	 * probes made so far, but compares section offsets with addresses
	 * there: a ".cold" part or a clone whose DWARF has ranges only is
	 * listed beside its DWARF function.)
	 */
	for (int i = 0; i < nsyms; i++) {
		const struct cand *cd = &syms[i];

		if (!aset_add(&taken, cd->in->addr))
			continue;
		if (!q->guru && ((cd->in->flags & KF_INST_REFUSED) ||
				 kf_blocklisted(cd->f->name, "", ret)))
			continue;
		VEC_PUSH(kept, nkept, capkept, *cd);
	}
	sort_n(kept, (size_t)nkept, sizeof(*kept), kept_cmp);
	for (int i = 0; i < nkept;) {
		int j = i;
		struct kf_point pt = { kept[i].f, NULL, 0, NULL, 0 };

		while (j < nkept && kept[j].fidx == kept[i].fidx)
			j++;
		pt.inst = xmalloc((size_t)(j - i) * sizeof(*pt.inst));
		for (int k = i; k < j; k++)
			pt.inst[pt.ninst++] = kept[k].in;
		point_vars(c, q, &pt);
		VEC_PUSH(pts, npts, cappts, pt);
		i = j;
	}
	free(taken.k);
	free(conc);
	free(inl);
	free(syms);
	free(kept);
	*out = pts;
	return npts;
}

void kf_points_free(struct kf_point *p, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < p[i].nvars; k++)
			free((char *)p[i].vars[k]);
		free(p[i].vars);
		free(p[i].inst);
	}
	free(p);
}

/* The name of a subprogram or inlined copy (through its abstract origin). */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die origin;
	const char *name = dwarf_diename(die);

	if (!name && dwarf_attr_integrate(die, DW_AT_abstract_origin, &at) &&
	    dwarf_formref_die(&at, &origin))
		name = dwarf_diename(&origin);
	return name;
}

/* A line table's file name is FILE, or ends in "/FILE" (or the other
 * way round: the catalog's file may be the longer one). */
static bool same_file(const char *src, const char *file)
{
	size_t a = strlen(src), b = strlen(file);

	if (a == b)
		return !strcmp(src, file);
	if (a > b)
		return src[a - b - 1] == '/' && !strcmp(src + a - b, file);
	return file[b - a - 1] == '/' && !strcmp(file + b - a, src);
}

/* The DIE of the copy of function name whose entry pc is entry: a
 * descent through the DIEs around entry (dwarf_getscopes would leave a
 * copy out when another function is inlined at its very entry). */
static bool find_copy(Dwarf_Die *parent, const char *name, uint64_t entry,
		      Dwarf_Die *out, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		uint64_t pc;

		if (tag != DW_TAG_subprogram &&
		    tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_lexical_block)
			continue;
		if (dwarf_haspc(&child, entry) != 1)
			continue;
		if (tag != DW_TAG_lexical_block && kf_entry_pc(&child, &pc) &&
		    pc == entry && scope_name(&child) &&
		    !strcmp(scope_name(&child), name)) {
			*out = child;
			return true;
		}
		if (find_copy(&child, name, entry, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* -L's variables at addr inside the copy die: those of the copy and of
 * its lexical blocks around addr (not of functions inlined into it),
 * innermost first, with a location at addr (or a constant value) and a named
 * type. */
static const char **stmt_vars(struct kf_types *b, Dwarf_Die *die,
			      uint64_t addr)
{
	const char **v = NULL;
	int nv = 0, capv = 0, nsc = 0, capsc = 0;
	Dwarf_Die *sc = NULL, cur = *die, child;

	VEC_PUSH(sc, nsc, capsc, cur);
	for (bool found = true; found;) {
		found = false;
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			if (dwarf_tag(&child) == DW_TAG_lexical_block &&
			    dwarf_haspc(&child, addr) == 1) {
				cur = child;
				VEC_PUSH(sc, nsc, capsc, cur);
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	for (int s = nsc - 1; s >= 0; s--) {
		if (dwarf_child(&sc[s], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child), tid, d;
			Dwarf_Attribute a;
			const char *name;
			Dwarf_Die t;
			char *str;

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_variable)
				continue;
			name = dwarf_diename(&child);
			if (!name)
				continue;
			if (!dwarf_attr_integrate(&child, DW_AT_const_value,
						  &a) &&
			    (!dwarf_attr_integrate(&child, DW_AT_location,
						   &a) || !elf_located_at(&a, addr)))
				continue;
			if (!kf_die_type(&child, &t) || (tid = kf_type_id(b, &t)) < 0)
				continue;
			if (asprintf(&str, "$%s:%s", name,
				     b->strs->s[tid]) < 0)
				fatal("out of memory");
			for (d = 0; d < nv && strcmp(v[d], str); d++)
				;
			if (d < nv) {
				free(str);
				continue;
			}
			VEC_PUSH(v, nv, capv, str);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	VEC_PUSH(v, nv, capv, NULL);
	free(sc);
	return v;
}

static int kf_stmt_cmp(const void *x, const void *y)
{
	const struct kf_stmt *a = x, *b = y;
	int r = strcmp(a->func, b->func);

	if (!r)
		r = strcmp(a->file, b->file);
	if (!r)
		r = a->line - b->line;
	if (!r)
		r = a->addr < b->addr ? -1 : a->addr > b->addr;
	return r;
}

void kf_stmts_free(struct kf_stmt *p, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; p[i].vars && p[i].vars[k]; k++)
			free((char *)p[i].vars[k]);
		free(p[i].vars);
	}
	free(p);
}

struct lrec {
	int line;
	uint64_t addr;
};

static int lrec_cmp(const void *x, const void *y)
{
	const struct lrec *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * ":*" as SystemTap reads it: from the line of the copy's first line
 * record (at its entry, else the first in the table inside it), each line
 * of the file that has records in the CU, in order, while one of them is
 * inside the copy; each at its lowest address there.
 */
static void stmt_walk(Dwarf_Die *cu, Dwarf_Die *die, const struct kfunc *f,
		      uint64_t entry, uint32_t cuno, struct kf_stmt **res,
		      int *nres, int *capres)
{
	Dwarf_Lines *lines;
	Dwarf_Line *first;
	size_t nl;
	struct lrec *r = NULL;
	int nr = 0, capr = 0, start = -1, k;
	Dwarf_Addr a;

	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return;
	first = dwarf_getsrc_die(cu, entry);
	if (first && (dwarf_lineaddr(first, &a) != 0 || a != entry))
		first = NULL;
	for (size_t l = 0; l < nl; l++) {
		Dwarf_Line *ln = dwarf_onesrcline(lines, l);
		const char *src = dwarf_linesrc(ln, NULL, NULL);
		struct lrec rec;

		if (dwarf_lineno(ln, &rec.line) != 0 ||
		    dwarf_lineaddr(ln, &a) != 0)
			continue;
		rec.addr = a;
		if (!first && dwarf_haspc(die, a) == 1)
			first = ln;
		if (src && same_file(src, f->file))
			VEC_PUSH(r, nr, capr, rec);
	}
	if (!first || dwarf_lineno(first, &start) != 0 || !nr) {
		free(r);
		return;
	}
	sort_n(r, (size_t)nr, sizeof(*r), lrec_cmp);
	for (k = 0; k < nr && r[k].line < start; k++)
		;
	while (k < nr && r[k].line == start) {
		int j = k, hit = -1;

		while (j < nr && r[j].line == r[k].line) {
			if (hit < 0 && dwarf_haspc(die, r[j].addr) == 1)
				hit = j;
			j++;
		}
		if (hit < 0)
			break;
		struct kf_stmt st = { f->name, f->file, r[hit].line,
				      r[hit].addr, entry, cuno, NULL };

		VEC_PUSH(*res, *nres, *capres, st);
		if (j == nr)
			break;
		start = r[j].line;
		k = j;
	}
	free(r);
}

enum stmt_form { SF_ENTRY, SF_LINES, SF_ALL, SF_REL };

int kf_statement_points(const struct kf_catalog *c, const char *vmlinux,
			const char *arg, bool guru, bool want_vars,
			struct kf_stmt **out, char **err)
{
	char *copy = xstrdup(arg), *at = strchr(copy, '@'), *sep = NULL, *end;
	enum stmt_form form = SF_ENTRY;
	long lo = 0, hi = 0;
	struct kf_query q = { .func = copy, .line = -1, .kind = KF_ANY,
			      .guru = guru };
	struct kf_point *pts = NULL;
	struct kf_stmt *res = NULL;
	int nres = 0, capres = 0, npts;
	struct elf_file *ef = NULL;
	Dwarf *dbg = NULL;
	struct kf_catalog tc = { 0 };
	struct intern strs = { .arena = &tc.arena };
	struct kf_types b = { .strs = &strs };

	*out = NULL;
	*err = NULL;
	if (at) {
		*at = '\0';
		q.file = at + 1;
		if ((sep = strrchr(at + 1, ':'))) {
			*sep++ = '\0';
			if (!strcmp(sep, "*")) {
				form = SF_ALL;
			} else {
				form = SF_LINES;
				lo = hi = strtol(sep, &end, 10);
				if (end != sep && *end == '-')
					hi = strtol(end + 1, &end, 10);
				if (end == sep || *end || lo <= 0 || hi < lo)
					goto bad;
			}
		} else if ((sep = strrchr(at + 1, '+'))) {
			*sep++ = '\0';
			form = SF_REL;
			lo = strtol(sep, &end, 10);
			if (end == sep || *end || lo < 0)
				goto bad;
		}
		if (!*q.file)
			goto bad;
	}
	if (!*copy || strpbrk(copy, ":+"))
		goto bad;
	npts = kf_catalog_match(c, &q, &pts);
	if (npts == 0)
		*err = xstrdup("no function matches");
	if (npts > 0) {
		char *why = NULL;

		ef = elf_file_open(vmlinux, NULL, &why);
		free(why);
		dbg = ef ? elf_file_dwarf(ef) : NULL;
		if (!dbg) {
			if (asprintf(err, "cannot read the DWARF of %s",
				     vmlinux) < 0)
				fatal("out of memory");
			kf_points_free(pts, npts);
			free(copy);
			elf_file_close(ef);
			return -1;
		}
	}
	for (int p = 0; p < npts; p++) {
		const struct kfunc *f = pts[p].f;
		long flo = lo, fhi = hi;

		if ((f->flags & KF_SYMTAB) || !*f->file)
			continue;
		if (form == SF_REL || form == SF_ENTRY) {
			flo = fhi = f->line + (form == SF_REL ? lo : 0);
		}
		for (int i = 0; i < pts[p].ninst; i++) {
			uint64_t entry = pts[p].inst[i]->addr;
			Dwarf_Die cu, copy_die;
			Dwarf_Lines *lines;
			size_t nl;
			int first = nres;

			if (!dwarf_addrdie(dbg, entry, &cu))
				continue;
			if (!find_copy(&cu, f->name, entry, &copy_die, 0))
				continue;
			if (form == SF_ENTRY) {
				struct kf_stmt st = { f->name, f->file,
						      f->line, entry, entry,
						      pts[p].inst[i]->cu,
						      NULL };

				VEC_PUSH(res, nres, capres, st);
			} else if (form == SF_ALL) {
				stmt_walk(&cu, &copy_die, f, entry,
					  pts[p].inst[i]->cu, &res, &nres,
					  &capres);
			} else if (dwarf_getsrclines(&cu, &lines, &nl) == 0) {
				for (size_t l = 0; l < nl; l++) {
					Dwarf_Line *ln = dwarf_onesrcline(lines, l);
					Dwarf_Addr a;
					const char *src;
					bool es = false;
					int lno, r;

					if (dwarf_lineno(ln, &lno) != 0 ||
					    lno < flo || lno > fhi ||
					    dwarf_lineendsequence(ln, &es) != 0 ||
					    es || dwarf_lineaddr(ln, &a) != 0 ||
					    !(src = dwarf_linesrc(ln, NULL, NULL)) ||
					    !same_file(src, f->file) ||
					    dwarf_haspc(&copy_die, a) != 1)
						continue;
					for (r = first; r < nres &&
					     res[r].line != lno; r++)
						;
					if (r < nres) {
						if (a < res[r].addr)
							res[r].addr = a;
						continue;
					}
					struct kf_stmt st = { f->name, f->file,
							      lno, a, entry,
							      pts[p].inst[i]->cu,
							      NULL };

					VEC_PUSH(res, nres, capres, st);
				}
			}
			/* lines that begin at the address of a lower line
			 * are that line's probe (SystemTap lists the lower) */
			if (nres - first > 1)
				sort_n(res + first, (size_t)(nres - first),
				       sizeof(*res), kf_stmt_cmp);
			for (int r = first + 1; r < nres;) {
				int o;

				for (o = first; o < r &&
				     res[o].addr != res[r].addr; o++)
					;
				if (o < r) {
					memmove(&res[r], &res[r + 1],
						(size_t)(nres - r - 1) *
						sizeof(*res));
					nres--;
				} else {
					r++;
				}
			}
			for (int r = first; want_vars && r < nres; r++)
				res[r].vars = stmt_vars(&b, &copy_die,
							res[r].addr);
		}
	}
	if (nres)
		sort_n(res, (size_t)nres, sizeof(*res), kf_stmt_cmp);
	kf_points_free(pts, npts);
	intern_free(&strs);
	u64map_free(&b.ids);
	arena_free(&tc.arena);
	elf_file_close(ef);
	free(copy);
	if (!nres && !*err)
		*err = xstrdup(form == SF_ENTRY ? "no debuginfo for the function"
			       : "no line records of those lines in the "
			       "function");
	*out = res;
	return nres;
bad:
	free(copy);
	return -2;
}
