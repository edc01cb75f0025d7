// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A user object's symbol and unwind tables (uobj.h), read through elf/:
 * the symbol table's functions and, for each, the CFI's rules at its
 * addresses.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "target/uobj.h"
#include "target/userpath.h"
#include "elf/elf.h"
#include "elf/arch.h"

struct fsyms {
	struct uobj_sym *v;
	int n, cap;
	struct arena *a;
};

static int collect_fn(const struct elf_sym *s, void *arg)
{
	struct fsyms *fs = arg;

	if (s->type != STT_FUNC || !s->shndx || !s->addr || !*s->name)
		return 0;
	/* "__libc_start_main@@GLIBC_2.34": the name without its version */
	const char *at = strchr(s->name, '@');
	const char *name = at && at > s->name ?
		arena_printf(fs->a, "%.*s", (int)(at - s->name), s->name) :
		s->name;
	VEC_GROW(fs->v, fs->n, fs->cap);
	fs->v[fs->n++] = (struct uobj_sym){ s->addr, s->size, name };
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct uobj_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* aliases: the global name (larger size first, then by name) */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct rows {
	struct uobj_row *v;
	int n, cap;
};

/* One row: rules from pc on (fr NULL: none known). */
static void put_row(struct rows *r, uint64_t pc, const struct elf_frame *fr)
{
	struct uobj_row row = { .pc = pc, .cfa_reg = 255 };

	if (fr && fr->cfa.kind == ELF_RULE_REG_OFFSET &&
	    (fr->cfa.reg == ARCH_SP_REG || fr->cfa.reg == ARCH_FP_REG) &&
	    fr->ra.kind == ELF_RULE_OFFSET) {
		row.cfa_reg = fr->cfa.reg == ARCH_SP_REG ? 0 : 1;
		row.cfa_off = (int)fr->cfa.offset;
		row.ra_off = (int)fr->ra.offset;
		if (fr->fp.kind == ELF_RULE_OFFSET)
			row.fp_off = (int)fr->fp.offset;
	}
	VEC_PUSH(r->v, r->n, r->cap, row);
}

struct span {
	uint64_t lo, hi;
};

static int section_span(const struct elf_section *sec, void *arg)
{
	struct span *sp = arg;

	if (!(sec->flags & SHF_ALLOC) || !sec->size)
		return 0;
	if (sec->addr < sp->lo)
		sp->lo = sec->addr;
	if (sec->addr + sec->size > sp->hi)
		sp->hi = sec->addr + sec->size;
	return 0;
}

/* The extent the dynamic loader reserves for the file: its allocated
 * sections, from the page of the first to the page after the last. */
static uint64_t extent(struct elf_file *f)
{
	struct span sp = { UINT64_MAX, 0 };

	if (elf_file_sections(f, section_span, &sp) < 0 || !sp.hi)
		return 0;
	sp.lo &= ~0xfffULL;
	return ((sp.hi + 0xfff) & ~0xfffULL) - sp.lo;
}

bool uobj_load(struct arena *a, const char *path, struct uobj *o, char **err)
{
	struct fsyms fs = { .a = a };
	struct rows r = { 0 };
	struct stat st;

	memset(o, 0, sizeof(*o));
	*err = NULL;
	o->f = elf_file_open(path, NULL, err);
	if (!o->f || stat(path, &st)) {
		if (o->f)
			elf_file_close(o->f);
		o->f = NULL;
		return false;
	}
	o->path = path;
	o->base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	o->ino = (uint64_t)st.st_ino;
	o->size = (int64_t)st.st_size;
	o->span = extent(o->f);
	o->dyn = elf_file_type(o->f) == ET_DYN;
	elf_file_symbols(o->f, collect_fn, &fs);
	if (fs.n)
		qsort(fs.v, (size_t)fs.n, sizeof(*fs.v), by_addr);
	/* unique addresses, each up to the next symbol (the last: its own
	 * size) */
	o->syms = malloc(((size_t)fs.n + 1) * sizeof(*o->syms));
	for (int i = 0; i < fs.n; i++) {
		if (i && fs.v[i].addr == fs.v[i - 1].addr)
			continue;
		struct uobj_sym s = fs.v[i];
		for (int j = i + 1; j < fs.n; j++)
			if (fs.v[j].addr > fs.v[i].addr) {
				s.size = fs.v[j].addr - fs.v[i].addr;
				break;
			}
		o->syms[o->nsyms++] = s;
	}
	uint64_t last_end = 0;
	for (int i = 0; i < fs.n; i++) {
		uint64_t pc = fs.v[i].addr, end = pc + fs.v[i].size;
		if (i && fs.v[i].addr == fs.v[i - 1].addr)
			continue;
		if (pc < last_end)
			pc = last_end;	/* overlapping symbols */
		if (last_end && pc > last_end)
			put_row(&r, last_end, NULL);	/* a gap */
		for (int steps = 0; pc < end && steps < 4096; steps++) {
			struct elf_frame fr;
			const char *why;
			if (elf_file_cfi_at(o->f, pc, &fr, &why)) {
				put_row(&r, pc, NULL);
				break;
			}
			put_row(&r, pc, &fr);
			pc = fr.end > pc ? fr.end : end;
		}
		if (end > last_end)
			last_end = end;
	}
	if (last_end)
		put_row(&r, last_end, NULL);
	o->rows = r.v;
	o->nrows = r.n;
	free(fs.v);
	return true;
}

void uobj_close(struct uobj *o)
{
	free(o->syms);
	free(o->rows);
	if (o->f)
		elf_file_close(o->f);
	memset(o, 0, sizeof(*o));
}

const char *uobj_command_program(struct arena *a, const char *cmd)
{
	size_t len;

	if (!cmd || strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}\n"))
		return NULL;
	cmd += strspn(cmd, " \t");
	len = strcspn(cmd, " \t");
	if (!len)
		return NULL;
	return userpath_program(a, arena_printf(a, "%.*s", (int)len, cmd));
}
