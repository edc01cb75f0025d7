// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What kbuild's modpost does for one module, for the direct pass 4
 * (directbuild.c): read the linked object (MOD.o) as ELF, resolve each
 * symbol it imports against the kernel's Module.symvers, refuse what
 * modpost refuses (a symbol nobody exports, a GPL-only symbol in a module
 * of another licence, a namespace not imported) and write MOD.mod.c from
 * the text modpost wrote for the capture module of the same kernel (its
 * header, __this_module, vermagic or not: whatever this kernel's modpost
 * writes), with this module's __versions (CRCs) and depends=.
 *
 * The order is modpost's: imported symbols in symbol-table order, then
 * what modpost adds itself (module_layout), each found in Module.symvers;
 * entries print as modpost prints them ("\t{ %#8x, \"%s\" },").
 */
#include "config.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/build.h"
#include "elf/elf.h"
#include "lib/arena.h"
#include "lib/files.h"
#include "lib/hash.h"
#include "lib/strbuf.h"

struct import {
	const char *name;
	bool weak;
	bool found;		/* in Module.symvers */
	unsigned long crc;
	char *module;		/* the exporter ("vmlinux", "drivers/x/y") */
	bool gpl_only;
	char *ns;		/* its namespace, NULL: none */
};

struct modobj {
	struct import *imp;
	int nimp, cap;
	unsigned *slots;	/* open addressing over imp, by name */
	unsigned nslots;
	const char *license;	/* .modinfo license=, NULL: none */
	const char **ns;	/* .modinfo import_ns= */
	int nns;
	const char *special;	/* why modpost would do more: an export,
				 * a device table (NULL: nothing) */
	struct elf_file *ef;	/* the object, owning the names */
};

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static struct import *imp_find(struct modobj *m, const char *name)
{
	unsigned i = (unsigned)fnv1a(FNV_OFFSET, name, strlen(name)) &
		     (m->nslots - 1);

	for (; m->slots[i]; i = (i + 1) & (m->nslots - 1))
		if (!strcmp(m->imp[m->slots[i] - 1].name, name))
			return &m->imp[m->slots[i] - 1];
	return NULL;
}

static void imp_add(struct modobj *m, const char *name, bool weak)
{
	if (m->nimp * 2 >= (int)m->nslots) {
		unsigned n = m->nslots ? m->nslots * 2 : 256;
		free(m->slots);
		m->slots = xrealloc(NULL, n * sizeof(*m->slots));
		memset(m->slots, 0, n * sizeof(*m->slots));
		m->nslots = n;
		for (int k = 0; k < m->nimp; k++) {
			const char *s = m->imp[k].name;
			unsigned i = (unsigned)fnv1a(FNV_OFFSET, s, strlen(s)) &
				     (n - 1);
			while (m->slots[i])
				i = (i + 1) & (n - 1);
			m->slots[i] = (unsigned)k + 1;
		}
	}
	if (imp_find(m, name))
		return;
	if (m->nimp == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->imp = xrealloc(m->imp, (size_t)m->cap * sizeof(*m->imp));
	}
	m->imp[m->nimp] = (struct import){ .name = name, .weak = weak };
	unsigned i = (unsigned)fnv1a(FNV_OFFSET, name, strlen(name)) &
		     (m->nslots - 1);
	while (m->slots[i])
		i = (i + 1) & (m->nslots - 1);
	m->slots[i] = (unsigned)++m->nimp;
}

static void modobj_free(struct modobj *m)
{
	for (int i = 0; i < m->nimp; i++) {
		free(m->imp[i].module);
		free(m->imp[i].ns);
	}
	free(m->imp);
	free(m->slots);
	free(m->ns);
	elf_file_close(m->ef);
}

/* One symbol of the object: an import, or a definition that would make
 * modpost do more. */
static int modobj_symbol(const struct elf_sym *s, void *arg)
{
	struct modobj *m = arg;

	if (s->shndx != SHN_UNDEF) {
		/* an export (6.1: __ksymtab_, 6.12: __export_symbol_)
		 * or a device table: modpost writes more */
		if (starts(s->name, "__ksymtab_") ||
		    starts(s->name, "__export_symbol_"))
			m->special = "it exports symbols";
		else if (starts(s->name, "__mod_") &&
			 strstr(s->name, "device_table"))
			m->special = "it has a device table";
		return 0;
	}
	if (s->bind != STB_GLOBAL && s->bind != STB_WEAK)
		return 0;
	/* modpost's ignore_undef_symbol(): resolved by MOD.mod.o */
	if (!strcmp(s->name, "__this_module") ||
	    !strcmp(s->name, "_GLOBAL_OFFSET_TABLE_"))
		return 0;
	imp_add(m, s->name, s->bind == STB_WEAK);
	return 0;
}

/* Read the imports, .modinfo and anything modpost would act on. */
static int modobj_read(struct modobj *m, const char *path, char *why,
		       size_t n)
{
	const void *info;
	size_t len;
	const char *w;
	char *err = NULL;

	memset(m, 0, sizeof(*m));
	m->ef = elf_file_open(path, NULL, &err);
	if (!m->ef) {
		snprintf(why, n, "cannot read %s", path);
		free(err);
		return -1;
	}
	if (elf_file_type(m->ef) != ET_REL ||
	    elf_file_class(m->ef) != ELFCLASS64) {
		snprintf(why, n, "%s is not a 64-bit relocatable ELF object",
			 path);
		return -1;
	}
	if (elf_file_section(m->ef, ".modinfo", &info, &len, NULL, &w) == 0) {
		/* key=value strings, NUL-separated (with padding) */
		const char *p = info, *end = p + len;

		while (p < end) {
			const char *z = memchr(p, 0, (size_t)(end - p));
			if (!z)
				break;
			if (starts(p, "license=") && !m->license)
				m->license = p + 8;
			else if (starts(p, "import_ns=")) {
				m->ns = xrealloc(m->ns, (size_t)(m->nns + 1) *
						 sizeof(*m->ns));
				m->ns[m->nns++] = p + 10;
			}
			p = z + 1;
		}
	}
	if (elf_file_symbols(m->ef, modobj_symbol, m) < 0) {
		snprintf(why, n, "%s: no symbol table", path);
		return -1;
	}
	return 0;
}

/* Fill each import from Module.symvers: CRC exporter type namespace. */
static int symvers_resolve(struct modobj *m, const char *symvers, char *why,
			   size_t n)
{
	size_t len;
	char *text = read_file(symvers, &len);

	if (!text) {
		snprintf(why, n, "cannot read %s", symvers);
		return -1;
	}
	char *line = text;
	while (line < text + len) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		if (nl)
			*nl = 0;
		char *f[5] = { 0 };
		int nf = 0;
		char *p = line;
		while (nf < 5) {
			f[nf++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = 0;
		}
		struct import *imp = nf >= 4 ? imp_find(m, f[1]) : NULL;
		if (imp && !imp->found) {
			imp->found = true;
			imp->crc = strtoul(f[0], NULL, 16);
			imp->module = xstrdup(f[2]);
			imp->gpl_only = strstr(f[3], "_GPL") != NULL;
			imp->ns = nf >= 5 && *f[4] ? xstrdup(f[4]) : NULL;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
	return 0;
}

/* modpost's license_is_gpl_compatible() */
static bool gpl_compatible(const char *license)
{
	static const char *const ok[] = {
		"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
		"Dual MIT/GPL", "Dual MPL/GPL",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(license, ok[i]))
			return true;
	return false;
}

static const char *basename_of(const char *path)
{
	const char *p = strrchr(path, '/');

	return p ? p + 1 : path;
}

char *modpost_modc(const struct recipe *r, const char *obj,
		   const char *symvers, const char *release, struct strbuf *err,
		   const char **special)
{
	struct modobj m;
	char why[512];
	char *out = NULL;

	*special = NULL;
	if (modobj_read(&m, obj, why, sizeof(why)) ||
	    symvers_resolve(&m, symvers, why, sizeof(why))) {
		sb_printf(err, "%s\n", why);
		modobj_free(&m);
		return NULL;
	}
	if (m.special) {
		*special = m.special;
		modobj_free(&m);
		return NULL;
	}
	/* what modpost adds itself, after the module's own imports */
	int nown = m.nimp;
	char *extra = xstrdup(r->extra ? r->extra : "");
	for (char *tok = strtok(extra, " "); tok; tok = strtok(NULL, " "))
		imp_add(&m, tok, false);
	if (m.nimp > nown && symvers_resolve(&m, symvers, why, sizeof(why))) {
		sb_printf(err, "%s\n", why);
		goto out;
	}

	/* modpost's checks, each an error as in its default mode */
	bool bad = false;
	if (!m.license) {
		sb_printf(err, "the module has no MODULE_LICENSE()\n");
		bad = true;
	}
	for (int i = 0; i < m.nimp; i++) {
		struct import *imp = &m.imp[i];
		if (!imp->found) {
			if (!imp->weak) {
				sb_printf(err, "\"%s\" is undefined: neither the "
					  "module nor %s (Module.symvers) "
					  "defines it\n", imp->name, release);
				bad = true;
			}
			continue;
		}
		if (m.license && !gpl_compatible(m.license) && imp->gpl_only) {
			sb_printf(err, "the module's licence \"%s\" is not "
				  "GPL-compatible and it uses the GPL-only "
				  "symbol \"%s\"\n", m.license, imp->name);
			bad = true;
		}
		bool imported = !imp->ns;
		for (int k = 0; !imported && k < m.nns; k++)
			imported = !strcmp(m.ns[k], imp->ns);
		if (!imported) {
			sb_printf(err, "the module uses \"%s\" from namespace "
				  "%s, but does not import it\n", imp->name,
				  imp->ns);
			bad = true;
		}
	}
	if (bad)
		goto out;

	/* the text: the capture module's, with this module's lists */
	struct strbuf vers = { 0 }, deps = { 0 };
	for (int i = 0; i < m.nimp; i++)
		if (m.imp[i].found)
			sb_printf(&vers, "\t{ %#8x, \"%s\" },\n",
				  (unsigned)m.imp[i].crc, m.imp[i].name);
	for (int i = 0; i < m.nimp; i++) {
		const char *mod = m.imp[i].module;
		bool seen = !mod || !strcmp(mod, "vmlinux");
		for (int k = 0; !seen && k < i; k++)
			seen = m.imp[k].module && !strcmp(m.imp[k].module, mod);
		if (!seen)
			sb_printf(&deps, "%s%s", deps.len ? "," : "",
				  basename_of(mod));
	}
	struct strbuf text = { 0 };
	const char *t = r->modc;
	while (*t) {
		if (starts(t, "@@VERSIONS@@\n")) {
			sb_puts(&text, sb_str(&vers));
			t += strlen("@@VERSIONS@@\n");
		} else if (starts(t, "@@DEPENDS@@")) {
			sb_puts(&text, sb_str(&deps));
			t += strlen("@@DEPENDS@@");
		} else {
			sb_putc(&text, *t++);
		}
	}
	out = xstrdup(sb_str(&text));
	sb_free(&text);
	sb_free(&vers);
	sb_free(&deps);
out:
	free(extra);
	modobj_free(&m);
	return out;
}

char *modpost_template(const char *modc, const char *obj, char **extra,
		       char *why, size_t n)
{
	static const char vhead[] =
		"static const struct modversion_info ____versions[]\n"
		"__used __section(\"__versions\") = {\n";
	static const char dep[] = "MODULE_INFO(depends, \"\");\n";
	struct modobj m;
	struct strbuf t = { 0 }, ex = { 0 };
	char *res = NULL;

	*extra = NULL;
	/* what depends on the module itself, which we would not write */
	static const char *const refused[] = {
		"srcversion", "KSYMTAB", "MODULE_ALIAS", "intree",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (strstr(modc, refused[i])) {
			snprintf(why, n, "modpost wrote %s for the capture "
				 "module", refused[i]);
			return NULL;
		}
	const char *d = strstr(modc, dep);
	if (!d || strstr(d + 1, dep)) {
		snprintf(why, n, "modpost's text has no single empty "
			 "MODULE_INFO(depends)");
		return NULL;
	}
	if (modobj_read(&m, obj, why, n))
		goto out;
	const char *v = strstr(modc, vhead);
	const char *p = modc;
	if (v) {
		/* CONFIG_MODVERSIONS: its entries, then "};" */
		const char *e = v + strlen(vhead);
		sb_append(&t, modc, (size_t)(e - modc));
		sb_puts(&t, "@@VERSIONS@@\n");
		while (starts(e, "\t{ ")) {
			const char *q = strchr(e, '"');
			const char *q2 = q ? strchr(q + 1, '"') : NULL;
			const char *nl = strchr(e, '\n');
			if (!q2 || !nl || q2 > nl)
				break;
			char *name = xrealloc(NULL, (size_t)(q2 - q));
			memcpy(name, q + 1, (size_t)(q2 - q - 1));
			name[q2 - q - 1] = 0;
			if (!imp_find(&m, name))
				sb_printf(&ex, "%s%s", ex.len ? " " : "", name);
			free(name);
			e = nl + 1;
		}
		if (!starts(e, "};\n")) {
			snprintf(why, n, "modpost's __versions are not in the "
				 "form expected");
			goto out;
		}
		p = e;
	}
	if (d < p) {
		snprintf(why, n, "modpost's depends= comes before __versions");
		goto out;
	}
	sb_append(&t, p, (size_t)(d - p));
	sb_puts(&t, "MODULE_INFO(depends, \"@@DEPENDS@@\");\n");
	sb_puts(&t, d + strlen(dep));
	res = xstrdup(sb_str(&t));
	*extra = xstrdup(sb_str(&ex));
out:
	sb_free(&t);
	sb_free(&ex);
	modobj_free(&m);
	return res;
}
