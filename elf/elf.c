// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening an ELF file and finding its separate debug file; its sections,
 * symbols and PLT (see elf.h). A relocatable file (a kernel module) gets
 * its DWARF through libdwfl, which applies the relocations of its debug
 * sections; anything else is read as it is.
 */
#define _GNU_SOURCE
#include "elf/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct arena *elf_file_arena(struct elf_file *f)
{
	return &f->arena;
}

const char *elf_file_path(const struct elf_file *f)
{
	return f->path;
}

unsigned elf_file_type(const struct elf_file *f)
{
	GElf_Ehdr eh;

	return gelf_getehdr(f->elf, &eh) ? eh.e_type : ET_NONE;
}

unsigned elf_file_class(const struct elf_file *f)
{
	return (unsigned)gelf_getclass(f->elf);
}

Elf *elf_file_elf(struct elf_file *f)
{
	return f->elf;
}

static void need_dwarf(struct elf_file *f);

Elf *elf_file_dwarf_elf(struct elf_file *f)
{
	need_dwarf(f);
	return f->debug_elf ? f->debug_elf : f->elf;
}

Dwarf *elf_file_dwarf(struct elf_file *f)
{
	need_dwarf(f);
	return f->dw;
}

bool elf_file_has_dwarf(struct elf_file *f)
{
	return elf_file_dwarf(f) != NULL;
}

const char *elf_file_debug_path(struct elf_file *f)
{
	if (!elf_file_dwarf(f))
		return NULL;
	return f->debug_path ? f->debug_path : f->path;
}

Elf_Scn *elf_section_named(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

void elf_raw_section(Elf *elf, const char *want, const unsigned char **p,
		     size_t *n)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(elf, want, &sh);
	Elf_Data *d;

	*p = NULL;
	*n = 0;
	if (!scn || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
		return;
	d = elf_getdata(scn, NULL);
	if (d && d->d_buf) {
		*p = d->d_buf;
		*n = d->d_size;
	}
}

int elf_file_section(struct elf_file *f, const char *name,
		     const void **data, size_t *size, uint64_t *addr,
		     const char **why)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(f->elf, name, &sh);
	Elf_Data *d;

	if (!scn) {
		*why = "no such section";
		return -1;
	}
	if (sh.sh_type == SHT_NOBITS) {
		*why = "not in the file";
		return -2;
	}
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		*why = "cannot decompress it";
		return -2;
	}
	d = elf_rawdata(scn, NULL);
	if (!d) {
		*why = "not in the file";
		return -2;
	}
	*data = d->d_buf ? d->d_buf : "";
	*size = d->d_size;
	if (addr)
		*addr = sh.sh_addr;
	return 0;
}

int elf_file_sections(struct elf_file *f,
		      int (*fn)(const struct elf_section *s, void *arg),
		      void *arg)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		struct elf_section s;
		int r;

		if (!gelf_getshdr(scn, &sh))
			continue;
		s.name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		s.type = sh.sh_type;
		s.flags = sh.sh_flags;
		s.addr = sh.sh_addr;
		if (elf_ndxscn(scn) < f->nlayout)
			s.addr = f->layout[elf_ndxscn(scn)];
		s.size = sh.sh_size;
		if ((r = fn(&s, arg)))
			return r;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The build-id and the debug file */

static const char *read_build_id(struct arena *a, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off,
					   &desc_off)) > 0) {
			const unsigned char *desc;
			char *hex;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) ||
			    nh.n_descsz == 0)
				continue;
			desc = (const unsigned char *)d->d_buf + desc_off;
			hex = arena_alloc(a, 2 * nh.n_descsz + 1);
			for (size_t i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", desc[i]);
			return hex;
		}
	}
	return NULL;
}

const char *elf_file_build_id(struct elf_file *f)
{
	if (!f->build_id_done) {
		f->build_id = read_build_id(&f->arena, f->elf);
		f->build_id_done = true;
	}
	return f->build_id;
}

const char *elf_file_debuglink(struct elf_file *f)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(f->elf, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_size || !memchr(d->d_buf, 0, d->d_size))
		return NULL;
	return d->d_buf;
}

/* The CRC32 the .gnu_debuglink section ends with. */
static bool debuglink_crc(struct elf_file *f, uint32_t *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(f->elf, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t at;

	if (!d || !memchr(d->d_buf, 0, d->d_size))
		return false;
	at = (strlen(d->d_buf) + 4) & ~(size_t)3;
	if (at + 4 > d->d_size)
		return false;
	memcpy(crc, (char *)d->d_buf + at, 4);
	return true;
}

static bool file_crc(const char *path, uint32_t *crc)
{
	int fd = open(path, O_RDONLY);
	unsigned char buf[65536];
	uLong c = crc32(0, NULL, 0);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	*crc = (uint32_t)c;
	return n == 0;
}

/* Whether path has DWARF of its own. */
static bool has_debug_info(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_named(elf, ".debug_info", &sh);

	return scn && sh.sh_type != SHT_NOBITS;
}

/* Open path as the debug file when it has DWARF and, with want_id, that
 * build-id. */
static bool try_debug_file(struct elf_file *f, const char *path,
			   const char *want_id)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && has_debug_info(elf)) {
		const char *id = read_build_id(&f->arena, elf);

		if (!want_id || (id && !strcmp(id, want_id))) {
			f->debug_fd = fd;
			f->debug_elf = elf;
			f->debug_path = arena_strdup(&f->arena, path);
			return true;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return false;
}

static void find_debug_file(struct elf_file *f, const char *root)
{
	const char *id = elf_file_build_id(f);
	const char *link = elf_file_debuglink(f);
	struct arena *a = &f->arena;
	uint32_t want_crc, crc;

	if (id && strlen(id) > 2 &&
	    try_debug_file(f, arena_printf(a, "%s/.build-id/%.2s/%s.debug",
					   root, id, id + 2), id))
		return;
	if (!link || !debuglink_crc(f, &want_crc))
		return;

	char *dir = arena_strdup(a, f->path), *slash = strrchr(dir, '/');
	const char *canon;

	if (slash)
		slash[1] = 0;
	else
		dir = "./";
	/* the debug root mirrors the file's absolute directory */
	canon = realpath(dir, NULL);
	const char *cands[] = {
		arena_printf(a, "%s%s", dir, link),
		arena_printf(a, "%s.debug/%s", dir, link),
		arena_printf(a, "%s%s/%s", root, canon ? canon : dir, link),
	};
	free((void *)canon);
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		if (!strcmp(cands[i], f->path) || !file_crc(cands[i], &crc) ||
		    crc != want_crc)
			continue;
		if (try_debug_file(f, cands[i], NULL))
			return;
	}
}

/* libdwfl for a relocatable file: the relocated DWARF of its module. */
static char *no_debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &no_debuginfo_path,
};

static Dwarf *relocated_dwarf(struct elf_file *f)
{
	Dwarf_Addr bias;
	const char *path = f->debug_path ? f->debug_path : f->path;

	f->dwfl = dwfl_begin(&offline_callbacks);
	if (!f->dwfl)
		return NULL;
	f->mod = dwfl_report_offline(f->dwfl, path, path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	return f->mod ? dwfl_module_getdwarf(f->mod, &bias) : NULL;
}

bool elf_file_dwarf_layout(struct elf_file *f)
{
	Dwarf_Addr bias;
	Elf *laid;
	size_t n;

	if (elf_file_type(f) != ET_REL || f->syms_done || !elf_file_dwarf(f) ||
	    !f->mod || f->debug_elf ||
	    !(laid = dwfl_module_getelf(f->mod, &bias)) ||
	    elf_getshdrnum(laid, &n) != 0)
		return false;
	/* libdwfl laid the sections out in its own handle of the file (the
	 * headers' sh_addr, which its relocation of the DWARF used) */
	f->layout = arena_alloc(&f->arena, n * sizeof(*f->layout));
	f->nlayout = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(laid, i);
		f->layout[i] = scn && gelf_getshdr(scn, &sh) &&
			       (sh.sh_flags & SHF_ALLOC) ? sh.sh_addr + bias : 0;
	}
	return true;
}

struct in_section {
	uint64_t addr;
	const char *name;
	uint64_t offset;
};

static int section_has(const struct elf_section *s, void *arg)
{
	struct in_section *w = arg;

	if (!(s->flags & SHF_ALLOC) || w->addr < s->addr ||
	    w->addr - s->addr >= s->size)
		return 0;
	w->name = s->name;
	w->offset = w->addr - s->addr;
	return 1;
}

bool elf_file_addr_offset(struct elf_file *f, uint64_t addr,
			  uint64_t *offset)
{
	size_t n;

	if (!f->elf || elf_getphdrnum(f->elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

bool elf_file_section_offset(struct elf_file *f, uint64_t addr,
			     const char **name, uint64_t *offset)
{
	struct in_section w = { .addr = addr };

	if (elf_file_type(f) == ET_REL) {
		Dwarf_Addr a = addr;
		int idx;

		if (!elf_file_dwarf(f) || !f->mod ||
		    (idx = dwfl_module_relocate_address(f->mod, &a)) < 0 ||
		    !(*name = dwfl_module_relocation_info(f->mod,
							  (unsigned)idx,
							  NULL)))
			return false;
		*offset = a;
		return true;
	}
	if (elf_file_sections(f, section_has, &w) != 1)
		return false;
	*name = w.name;
	*offset = w.offset;
	return true;
}

static struct elf_file *file_new(const char *path)
{
	struct elf_file *f = calloc(1, sizeof(*f));

	if (!f)
		fatal("out of memory");
	f->fd = f->debug_fd = -1;
	f->path = arena_strdup(&f->arena, path);
	elf_version(EV_CURRENT);
	return f;
}

struct elf_file *elf_file_open(const char *path, const char *debug_root,
			       char **err)
{
	struct elf_file *f = file_new(path);

	f->fd = open(path, O_RDONLY);
	if (f->fd < 0) {
		*err = xasprintf("cannot open %s: %s", path, strerror(errno));
		elf_file_close(f);
		return NULL;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		*err = xasprintf("%s is not an ELF file", path);
		elf_file_close(f);
		return NULL;
	}
	f->debug_root = arena_strdup(&f->arena, debug_root ? debug_root :
				     ELF_DEBUG_ROOT);
	return f;
}

/* The debug file and the DWARF, looked for on first use. */
static void need_dwarf(struct elf_file *f)
{
	if (f->dw_done)
		return;
	f->dw_done = true;
	if (!f->debug_root)	/* a memory image */
		return;
	if (!has_debug_info(f->elf))
		find_debug_file(f, f->debug_root);
	if (elf_file_type(f) == ET_REL)
		f->dw = relocated_dwarf(f);
	else
		f->dw = dwarf_begin_elf(f->debug_elf ? f->debug_elf : f->elf,
					DWARF_C_READ, NULL);
}

struct elf_file *elf_file_open_memory(const void *img, size_t len,
				      char **err)
{
	const unsigned char *p = img;
	struct elf_file *f;

	if (len < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) != 0) {
		*err = xasprintf("not an ELF file");
		return NULL;
	}
	if (p[EI_CLASS] != ELFCLASS64 || p[EI_DATA] != ELFDATA2LSB) {
		*err = xasprintf("not a 64-bit little-endian ELF file");
		return NULL;
	}
	f = file_new("(memory)");
	f->elf = elf_memory((char *)img, len);
	size_t n;
	if (!f->elf || elf_getshdrnum(f->elf, &n) != 0 ||
	    elf_getshdrstrndx(f->elf, &n) != 0) {
		*err = xasprintf("bad ELF section headers");
		elf_file_close(f);
		return NULL;
	}
	return f;
}

void elf_file_close(struct elf_file *f)
{
	if (!f)
		return;
	if (f->eh_cfi)
		dwarf_cfi_end(f->eh_cfi);
	if (f->dwfl)
		dwfl_end(f->dwfl);	/* owns f->dw */
	else if (f->dw)
		dwarf_end(f->dw);
	if (f->debug_elf)
		elf_end(f->debug_elf);
	if (f->debug_fd >= 0)
		close(f->debug_fd);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->syms);
	free(f->by_addr);
	arena_free(&f->arena);
	free(f);
}

/* ------------------------------------------------------------------ */
/* Symbols */

static Elf_Scn *symtab_of(Elf *elf, unsigned type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

static void read_symbols(struct elf_file *f)
{
	Elf *elf = f->elf;
	Elf_Scn *scn = symtab_of(elf, SHT_SYMTAB);
	int cap = 0, capa = 0;

	f->syms_done = true;
	if (!scn)
		need_dwarf(f);
	if (!scn && f->debug_elf && (scn = symtab_of(f->debug_elf,
						     SHT_SYMTAB)))
		elf = f->debug_elf;
	if (!scn)
		scn = symtab_of(elf = f->elf, SHT_DYNSYM);
	if (!scn)
		return;

	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;

	if (!gelf_getshdr(scn, &sh) || !d || !sh.sh_entsize)
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) ||
		    !(name = elf_strptr(elf, sh.sh_link, s.st_name)) || !*name)
			continue;
		if (elf == f->elf && s.st_shndx < f->nlayout)
			s.st_value += f->layout[s.st_shndx];
		VEC_PUSH(f->syms, f->nsyms, cap, ((struct elf_sym){
			.name = name, .addr = s.st_value, .size = s.st_size,
			.type = GELF_ST_TYPE(s.st_info),
			.bind = GELF_ST_BIND(s.st_info),
			.shndx = s.st_shndx, .index = (uint32_t)i }));
		if (s.st_shndx != SHN_UNDEF && s.st_shndx != SHN_ABS &&
		    (GELF_ST_TYPE(s.st_info) == STT_FUNC ||
		     GELF_ST_TYPE(s.st_info) == STT_OBJECT))
			VEC_PUSH(f->by_addr, f->nby_addr, capa, f->nsyms - 1);
	}
}

static int by_addr_cmp(const void *a, const void *b, void *arg)
{
	const struct elf_file *f = arg;
	const struct elf_sym *x = &f->syms[*(const int *)a];
	const struct elf_sym *y = &f->syms[*(const int *)b];

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* a global before a local at the same address */
	if ((x->bind == STB_LOCAL) != (y->bind == STB_LOCAL))
		return x->bind == STB_LOCAL ? 1 : -1;
	return *(const int *)a - *(const int *)b;
}

static void need_symbols(struct elf_file *f)
{
	if (!f->syms_done)
		read_symbols(f);
}

/* The symbols by address too, for lookups by address. */
static void need_by_addr(struct elf_file *f)
{
	need_symbols(f);
	if (f->by_addr_done)
		return;
	f->by_addr_done = true;
	if (f->nby_addr > 1)
		qsort_r(f->by_addr, (size_t)f->nby_addr, sizeof(int),
			by_addr_cmp, f);
}

int elf_file_symbols(struct elf_file *f,
		     int (*fn)(const struct elf_sym *s, void *arg), void *arg)
{
	need_symbols(f);
	if (!f->syms)
		return -1;
	for (int i = 0; i < f->nsyms; i++) {
		int r = fn(&f->syms[i], arg);
		if (r)
			return r;
	}
	return 0;
}

bool elf_file_symbol(struct elf_file *f, const char *name,
		     struct elf_sym *out)
{
	need_symbols(f);
	for (int i = 0; i < f->nsyms; i++)
		if (f->syms[i].shndx != SHN_UNDEF &&
		    !strcmp(f->syms[i].name, name)) {
			*out = f->syms[i];
			return true;
		}
	return false;
}

bool elf_file_symbol_at(struct elf_file *f, uint64_t addr,
			struct elf_sym *out)
{
	int lo = 0, hi;

	need_by_addr(f);
	hi = f->nby_addr;
	/* the last symbol at or below addr */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (f->syms[f->by_addr[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	/* the first of those at that address */
	uint64_t at = f->syms[f->by_addr[lo - 1]].addr;
	while (lo > 1 && f->syms[f->by_addr[lo - 2]].addr == at)
		lo--;
	const struct elf_sym *s = &f->syms[f->by_addr[lo - 1]];
	if (s->size && addr >= s->addr + s->size)
		return false;
	*out = *s;
	return true;
}

/* ------------------------------------------------------------------ */
/* The PLT */

int elf_file_plt(struct elf_file *f, const struct elf_plt **out)
{
	GElf_Shdr rsh, gsh, psh, dsh;
	Elf_Scn *rela = elf_section_named(f->elf, ".rela.plt", &rsh);
	Elf_Scn *got = elf_section_named(f->elf, ".got.plt", &gsh);
	Elf_Scn *plt = elf_section_named(f->elf, ".plt.sec", &psh);
	Elf_Scn *dyn;
	Elf_Data *rd, *dd;
	struct elf_plt *v;
	size_t n;
	int count = 0;
	/* .plt.sec (IBT) has a stub per slot; .plt starts with the one
	 * that calls the resolver */
	uint64_t first = 0;

	*out = NULL;
	if (plt)
		first = psh.sh_addr;
	else if ((plt = elf_section_named(f->elf, ".plt", &psh)))
		first = psh.sh_addr + 16;
	if (!rela || !got || !plt || !rsh.sh_entsize ||
	    !(rd = elf_getdata(rela, NULL)) ||
	    !(dyn = elf_getscn(f->elf, rsh.sh_link)) ||
	    !gelf_getshdr(dyn, &dsh) || !(dd = elf_getdata(dyn, NULL)))
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	v = arena_alloc(&f->arena, (n ? n : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		uint64_t slot;

		if (!gelf_getrela(rd, (int)i, &r) ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s) ||
		    !(name = elf_strptr(f->elf, dsh.sh_link, s.st_name)))
			continue;
		/* the first three GOT slots are the loader's */
		if (r.r_offset < gsh.sh_addr + 24)
			continue;
		slot = (r.r_offset - gsh.sh_addr) / 8 - 3;
		v[count].name = name;
		v[count].addr = first + 16 * slot;
		count++;
	}
	*out = v;
	return count;
}
