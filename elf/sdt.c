// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * .note.stapsdt: the probes sys/sdt.h places in a program (see elf.h).
 * A note's descriptor is three addresses (the probe's pc, the
 * .stapsdt.base it was linked against, the semaphore) and three strings
 * (provider, name, argument specs). The arguments are GNU assembler
 * operands with a size prefix: "-4@%eax" (a signed 4-byte register),
 * "8@-16(%rbp)" (memory), "4@$5" (a constant), "8@foo+8(%rip)".
 */
#define _GNU_SOURCE
#include "elf/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/arch.h"

#define NT_STAPSDT 3

/* A register "%name" at *p: its DWARF number (-1 none); *p moves on. */
static int parse_reg(const char **p, unsigned *bytes)
{
	const char *s = *p;
	char name[8];
	size_t n = 0;

	if (*s != '%')
		return -1;
	s++;
	while (isalnum((unsigned char)s[n]) && n < sizeof(name) - 1) {
		name[n] = s[n];
		n++;
	}
	name[n] = 0;
	*p = s + n;
	return arch_reg_from_asm(name, bytes);
}

static bool parse_int(const char **p, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(*p, &end, 0);
	if (end == *p || errno)
		return false;
	*p = end;
	return true;
}

int elf_sdt_parse_arg(struct arena *a, const char *text,
		      struct elf_sdt_arg *out)
{
	const char *p = text, *at = strchr(text, '@');
	unsigned bytes = 8;
	int64_t v;

	memset(out, 0, sizeof(*out));
	out->text = arena_strdup(a, text);
	out->reg = out->index_reg = -1;
	out->size = 8;
	out->is_signed = true;
	if (at) {
		if (!parse_int(&p, &v) || p != at)
			return -1;
		out->is_signed = v < 0;
		out->size = (int)(v < 0 ? -v : v);
		if (out->size != 1 && out->size != 2 && out->size != 4 &&
		    out->size != 8)
			return -1;
		p = at + 1;
	}
	if (*p == '%') {
		out->kind = ELF_SDT_REG;
		out->reg = parse_reg(&p, &bytes);
		if (!at)
			out->size = (int)bytes;
		return out->reg < 0 || *p ? -1 : 0;
	}
	if (*p == '$') {
		p++;
		out->kind = ELF_SDT_CONST;
		if (!parse_int(&p, &out->value) || *p)
			return -1;
		return 0;
	}
	/* memory: [symbol][+-offset](%base[,%index[,scale]]) */
	out->kind = ELF_SDT_MEM;
	if (isalpha((unsigned char)*p) || *p == '_' || *p == '.') {
		const char *s = p;

		while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
			p++;
		out->symbol = arena_strndup(a, s, (size_t)(p - s));
	}
	if ((*p == '-' || *p == '+' || isdigit((unsigned char)*p)) &&
	    !parse_int(&p, &out->offset))
		return -1;
	if (!*p)
		return out->symbol ? 0 : -1;
	if (*p++ != '(')
		return -1;
	if (*p != ',' && (out->reg = parse_reg(&p, &bytes)) < 0)
		return -1;
	if (*p == ',') {
		p++;
		if ((out->index_reg = parse_reg(&p, &bytes)) < 0)
			return -1;
		out->scale = 1;
		if (*p == ',') {
			p++;
			if (!parse_int(&p, &v) || (v != 1 && v != 2 && v != 4 &&
						   v != 8))
				return -1;
			out->scale = (int)v;
		}
	}
	return *p == ')' && !p[1] ? 0 : -1;
}

/* Split the argument specs (space separated) of one note. */
static void parse_args(struct arena *a, struct elf_sdt *s)
{
	const char *p = s->args;
	struct elf_sdt_arg *v;
	int n = 0;

	for (const char *q = p; *q; q++)
		if (!isspace((unsigned char)*q) &&
		    (q == p || isspace((unsigned char)q[-1])))
			n++;
	v = arena_alloc(a, (size_t)(n ? n : 1) * sizeof(*v));
	n = 0;
	while (*p) {
		const char *e;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		for (e = p; *e && !isspace((unsigned char)*e); e++)
			;
		const char *text = arena_strndup(a, p, (size_t)(e - p));
		if (elf_sdt_parse_arg(a, text, &v[n]) != 0 && !s->error)
			s->error = text;
		n++;
		p = e;
	}
	s->arg = v;
	s->nargs = n;
}

int elf_file_sdt(struct elf_file *f, const struct elf_sdt **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(f->elf, ".note.stapsdt", &sh);
	Elf_Scn *bscn;
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;
	struct elf_sdt *v = NULL;
	int n = 0, cap = 0;
	uint64_t base_addr = 0;
	bool have_base;

	*out = NULL;
	if (!scn || !(d = elf_getdata(scn, NULL)))
		return 0;
	bscn = elf_section_named(f->elf, ".stapsdt.base", &sh);
	have_base = bscn != NULL;
	if (have_base)
		base_addr = sh.sh_addr;
	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *desc = (const char *)d->d_buf + desc_off;
		const char *end = desc + nh.n_descsz, *p;
		struct elf_sdt s = { 0 };

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((char *)d->d_buf + name_off, "stapsdt", 8) ||
		    nh.n_descsz < 24 + 3)
			continue;
		memcpy(&s.pc, desc, 8);
		memcpy(&s.base, desc + 8, 8);
		memcpy(&s.semaphore, desc + 16, 8);
		p = desc + 24;
		const char *str[3];
		int k;
		for (k = 0; k < 3 && p < end; k++) {
			const char *z = memchr(p, 0, (size_t)(end - p));
			if (!z)
				break;
			str[k] = p;
			p = z + 1;
		}
		if (k < 3)
			continue;
		/* prelink moves sections: .stapsdt.base says by how much */
		if (have_base && s.base) {
			s.pc += base_addr - s.base;
			if (s.semaphore)
				s.semaphore += base_addr - s.base;
		}
		s.provider = arena_strdup(&f->arena, str[0]);
		s.name = arena_strdup(&f->arena, str[1]);
		s.args = arena_strdup(&f->arena, str[2]);
		parse_args(&f->arena, &s);
		VEC_PUSH(v, n, cap, s);
	}
	if (n) {
		struct elf_sdt *keep = arena_alloc(&f->arena,
						   (size_t)n * sizeof(*v));
		memcpy(keep, v, (size_t)n * sizeof(*v));
		*out = keep;
	}
	free(v);
	return n;
}
