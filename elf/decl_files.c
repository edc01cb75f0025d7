// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Declaration files without the line program (see elf/libdw.h).
 *
 * libdw's dwarf_decl_file() (0.188) reaches the CU's file table through
 * dwarf_getsrclines(): it decodes and sorts the CU's whole line program
 * and keeps it until dwarf_end. For the catalog's one pass over all CUs
 * that is 260 MB of line records on 6.1, never used. The file table is
 * in the line program's header, so elf_decl_file() reads only the header
 * (from the mmapped .debug_line) and spells the name exactly as libdw
 * 0.188 does: an absolute name as is, else DIR "/" NAME with DIR the
 * table's directory (DWARF 5), or for DWARF 2-4 the include directory,
 * directory 0 being the CU's DW_AT_comp_dir (none: the name alone);
 * DWARF 5 index 0 is the table's first file, DWARF 2-4 index 0 is none.
 *
 * Whatever this reader does not know (a compressed or big-endian
 * section, a split unit, a form it does not read, a header that does not
 * add up, DWARF 2-4's DW_LNE_define_file indexes) goes to libdw, so the
 * names are libdw's in every case.
 */
#define _GNU_SOURCE
#include "elf/libdw.h"
#include "lib/arena.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

void elf_decl_files_init(struct elf_decl_files *ff, Elf *elf)
{
	const char *ident = elf_getident(elf, NULL);
	const uint16_t one = 1;

	memset(ff, 0, sizeof(*ff));
	ff->cu_off = (Dwarf_Off)-1;
	/* the readers below are little-endian, like the host they run on */
	if (!ident || ident[EI_DATA] != ELFDATA2LSB ||
	    *(const unsigned char *)&one != 1)
		return;
	/* a relocatable file's (a .ko's) raw DWARF is not relocated yet:
	 * its names' string offsets are 0 until libdwfl applies them */
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL)
		return;
	elf_raw_section(elf, ".debug_line", &ff->line, &ff->nline);
	elf_raw_section(elf, ".debug_line_str", &ff->line_str, &ff->nline_str);
	elf_raw_section(elf, ".debug_str", &ff->str, &ff->nstr);
}

void elf_decl_files_free(struct elf_decl_files *ff)
{
	free(ff->dirs);
	free(ff->files);
	sb_free(&ff->name);
}

/* A cursor over [p, end): every read checks the bounds, *bad on overrun. */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t rd(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static const char *cstr(struct cur *c)
{
	const unsigned char *nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!nul) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* The string at off in a string section, or NULL. */
static const char *strsec(const unsigned char *sec, size_t n, uint64_t off)
{
	if (!sec || off >= n || !memchr(sec + off, '\0', n - off))
		return NULL;
	return (const char *)sec + off;
}

/*
 * One DWARF 5 entry field of form f: a path (*s), an index (*u), or
 * skipped. False for a form this reader does not handle.
 */
static bool field(struct elf_decl_files *ff, struct cur *c, unsigned f, int osz,
		  const char **s, uint64_t *u)
{
	switch (f) {
	case DW_FORM_string:
		*s = cstr(c);
		return true;
	case DW_FORM_line_strp:
		*s = strsec(ff->line_str, ff->nline_str, rd(c, (size_t)osz));
		return true;
	case DW_FORM_strp:
		*s = strsec(ff->str, ff->nstr, rd(c, (size_t)osz));
		return true;
	case DW_FORM_data1:
		*u = rd(c, 1);
		return true;
	case DW_FORM_data2:
		*u = rd(c, 2);
		return true;
	case DW_FORM_data4:
		*u = rd(c, 4);
		return true;
	case DW_FORM_data8:
		*u = rd(c, 8);
		return true;
	case DW_FORM_udata:
		*u = uleb(c);
		return true;
	case DW_FORM_data16:
		rd(c, 8);
		rd(c, 8);
		return true;
	case DW_FORM_block: {
		uint64_t n = uleb(c);

		if ((uint64_t)(c->end - c->p) < n)
			c->bad = true;
		else
			c->p += n;
		return true;
	}
	default:
		return false;
	}
}

/* DWARF 5: a directory or file table (entry formats, then entries). */
static bool v5_table(struct elf_decl_files *ff, struct cur *c, int osz, bool files)
{
	unsigned desc[32], form[32];
	unsigned nf = (unsigned)rd(c, 1);
	uint64_t n;
	bool have_path = false, have_dir = false;

	if (nf > 32)
		return false;
	for (unsigned i = 0; i < nf; i++) {
		desc[i] = (unsigned)uleb(c);
		form[i] = (unsigned)uleb(c);
		have_path |= desc[i] == DW_LNCT_path;
		have_dir |= desc[i] == DW_LNCT_directory_index;
	}
	n = uleb(c);
	if (c->bad || (nf == 0 && n != 0) ||
	    (nf && (!have_path || (files && !have_dir))) ||
	    (nf && n > (uint64_t)(c->end - c->p) / nf))
		return false;
	for (uint64_t k = 0; k < n; k++) {
		const char *path = NULL;
		uint64_t dir = UINT64_MAX;

		for (unsigned i = 0; i < nf; i++) {
			const char *s = NULL;
			uint64_t u = UINT64_MAX;

			if (!field(ff, c, form[i], osz, &s, &u))
				return false;
			if (desc[i] == DW_LNCT_path)
				path = s;
			else if (desc[i] == DW_LNCT_directory_index)
				dir = u;
		}
		if (c->bad || !path)
			return false;
		if (files) {
			struct elf_decl_file_name f = { path, dir };

			if (dir >= (uint64_t)ff->ndirs)
				return false;
			VEC_PUSH(ff->files, ff->nfiles, ff->capfiles, f);
		} else {
			VEC_PUSH(ff->dirs, ff->ndirs, ff->capdirs, path);
		}
	}
	return true;
}

/* DWARF 2-4: the include directories, then the file entries. */
static bool v4_tables(struct elf_decl_files *ff, struct cur *c, const char *comp)
{
	struct elf_decl_file_name none = { "???", 0 };

	VEC_PUSH(ff->dirs, ff->ndirs, ff->capdirs, comp);
	while (c->p < c->end && *c->p) {
		const char *d = cstr(c);

		VEC_PUSH(ff->dirs, ff->ndirs, ff->capdirs, d);
	}
	if (c->p >= c->end)
		return false;
	c->p++;
	VEC_PUSH(ff->files, ff->nfiles, ff->capfiles, none);
	while (c->p < c->end && *c->p) {
		struct elf_decl_file_name f;

		f.name = cstr(c);
		f.dir = uleb(c);
		uleb(c);	/* mtime */
		uleb(c);	/* length */
		if (c->bad || f.dir >= (uint64_t)ff->ndirs)
			return false;
		VEC_PUSH(ff->files, ff->nfiles, ff->capfiles, f);
	}
	if (c->p >= c->end)
		return false;
	c->p++;
	return true;
}

/* Read the file table of the CU whose DIE is cu: false when libdw must. */
static bool read_table(struct elf_decl_files *ff, Dwarf_Die *cu, int asz)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	struct cur c;
	uint64_t len, hlen;
	const unsigned char *hstart;
	int osz = 4;

	ff->ndirs = ff->nfiles = 0;
	if (!ff->line || dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &a),
					 &off) != 0 || off >= ff->nline)
		return false;
	c.p = ff->line + off;
	c.end = ff->line + ff->nline;
	c.bad = false;
	len = rd(&c, 4);
	if (len == 0xffffffff) {
		len = rd(&c, 8);
		osz = 8;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p))
		return false;
	c.end = c.p + len;
	ff->version = (int)rd(&c, 2);
	if (ff->version < 2 || ff->version > 5)
		return false;
	if (ff->version >= 5 && (rd(&c, 1) != (uint64_t)asz || rd(&c, 1) != 0))
		return false;
	hlen = rd(&c, (size_t)osz);
	hstart = c.p;
	if (c.bad || hlen > (uint64_t)(c.end - c.p))
		return false;
	rd(&c, 1);			/* minimum_instruction_length */
	if (ff->version >= 4 && rd(&c, 1) == 0)	/* maximum_operations */
		return false;
	rd(&c, 3);			/* default_is_stmt, line_base, range */
	{
		uint64_t base = rd(&c, 1);	/* opcode_base */

		if (base)
			rd(&c, (size_t)base - 1);	/* their lengths */
	}
	if (c.bad)
		return false;
	if (ff->version >= 5) {
		if (!v5_table(ff, &c, osz, false) ||
		    !v5_table(ff, &c, osz, true))
			return false;
		if (ff->nfiles == 0) {
			struct elf_decl_file_name none = { "???", 0 };

			VEC_PUSH(ff->files, ff->nfiles, ff->capfiles, none);
		}
	} else {
		const char *comp = dwarf_formstring(dwarf_attr(cu,
							       DW_AT_comp_dir,
							       &a));

		if (!v4_tables(ff, &c, comp))
			return false;
	}
	/* libdw's check that the header ends where it says */
	return !c.bad && c.p == hstart + hlen;
}

const char *elf_decl_file(struct elf_decl_files *ff, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Off off;
	uint8_t asz, ut;
	const struct elf_decl_file_name *f;
	const char *dir;

	if (!ff->line)
		return dwarf_decl_file(die);
	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &a),
			    &idx) != 0 || idx == 0)
		return NULL;
	if (dwarf_cu_info(a.cu, NULL, &ut, &cu, NULL, NULL, &asz, NULL) != 0 ||
	    (ut != DW_UT_compile && ut != DW_UT_partial))
		return dwarf_decl_file(die);
	off = dwarf_dieoffset(&cu);
	if (off != ff->cu_off) {
		ff->cu_off = off;
		ff->ok = read_table(ff, &cu, asz);
	}
	if (!ff->ok || (idx >= (Dwarf_Word)ff->nfiles && ff->version < 5))
		return dwarf_decl_file(die);	/* DW_LNE_define_file? */
	if (idx >= (Dwarf_Word)ff->nfiles)
		return NULL;
	f = &ff->files[idx];
	dir = ff->dirs[f->dir];
	if (f->name[0] == '/' || !dir)
		return f->name;
	sb_reset(&ff->name);
	sb_puts(&ff->name, dir);
	sb_putc(&ff->name, '/');
	sb_puts(&ff->name, f->name);
	return sb_str(&ff->name);
}
