// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracepoints a kernel defines, from the symbol tables of its vmlinux
 * and modules; see tp_syms.h.
 *
 * Invariants: a module whose bytes cannot be read or understood makes the
 * whole set unknown (-1), never a smaller set; the cache file is used
 * only when its key (every file's path, size and mtime) matches.
 */
#define _GNU_SOURCE
#include "target/tp_syms.h"
#include "elf/elf.h"
#include "lib/files.h"
#include "lib/hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define TPS_CACHE_MAGIC "stap-tracepoint-symbols 3"
#define MAX_MODULE (1UL << 30)	/* decompressed bytes */

/* ------------------------------------------------------------------ */
/* Decompression */

static char *grow(char *buf, size_t *cap, size_t used, char **why)
{
	size_t n = *cap ? *cap * 2 : 1 << 20;

	if (used >= MAX_MODULE) {
		*why = xstrdup("larger than 1 GiB decompressed");
		free(buf);
		return NULL;
	}
	if (n > MAX_MODULE)
		n = MAX_MODULE;
	*cap = n;
	return xrealloc(buf, n);
}

static char *unxz(const unsigned char *in, size_t n, size_t *len, char **why)
{
	lzma_stream z = LZMA_STREAM_INIT;
	char *out = NULL;
	size_t cap = 0;
	lzma_ret r;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		*why = xstrdup("cannot start the xz decoder");
		return NULL;
	}
	z.next_in = in;
	z.avail_in = n;
	do {
		if (z.avail_out == 0) {
			if (!(out = grow(out, &cap, z.total_out, why)))
				break;
			z.next_out = (uint8_t *)out + z.total_out;
			z.avail_out = cap - z.total_out;
		}
		r = lzma_code(&z, LZMA_FINISH);
	} while (r == LZMA_OK);
	if (out && r != LZMA_STREAM_END) {
		*why = xasprintf("bad xz data (liblzma error %d)", (int)r);
		free(out);
		out = NULL;
	}
	*len = z.total_out;
	lzma_end(&z);
	return out;
}

static char *ungzip(const unsigned char *in, size_t n, size_t *len,
		    char **why)
{
	z_stream z;
	char *out = NULL;
	size_t cap = 0;
	int r;

	memset(&z, 0, sizeof(z));
	if (n > UINT32_MAX || inflateInit2(&z, 15 + 32) != Z_OK) {
		*why = xstrdup("cannot start the gzip decoder");
		return NULL;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	do {
		if (z.avail_out == 0) {
			if (!(out = grow(out, &cap, z.total_out, why)))
				break;
			z.next_out = (unsigned char *)out + z.total_out;
			z.avail_out = (uInt)(cap - z.total_out);
		}
		r = inflate(&z, Z_NO_FLUSH);
	} while (r == Z_OK);
	if (out && r != Z_STREAM_END) {
		*why = xasprintf("bad gzip data (zlib error %d)", r);
		free(out);
		out = NULL;
	}
	*len = z.total_out;
	inflateEnd(&z);
	return out;
}

static char *unzstd(const unsigned char *in, size_t n, size_t *len,
		    char **why)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, n, 0 };
	ZSTD_outBuffer ob = { NULL, 0, 0 };
	char *out = NULL;
	size_t cap = 0, r = 1;

	if (!z) {
		*why = xstrdup("cannot start the zstd decoder");
		return NULL;
	}
	ZSTD_initDStream(z);
	while (ib.pos < ib.size || r != 0) {
		if (ob.pos == ob.size) {
			if (!(out = grow(out, &cap, ob.pos, why)))
				break;
			ob.dst = out;
			ob.size = cap;
		}
		r = ZSTD_decompressStream(z, &ob, &ib);
		if (ZSTD_isError(r)) {
			*why = xasprintf("bad zstd data (%s)",
					 ZSTD_getErrorName(r));
			free(out);
			out = NULL;
			break;
		}
		if (r != 0 && ib.pos == ib.size && ob.pos < ob.size) {
			*why = xstrdup("truncated zstd data");
			free(out);
			out = NULL;
			break;
		}
	}
	*len = ob.pos;
	ZSTD_freeDStream(z);
	return out;
}

char *tp_syms_read_module(const char *path, size_t *len, char **why)
{
	size_t n;
	unsigned char *raw = (unsigned char *)read_file(path, &n);
	char *out, *w = NULL;

	*why = NULL;
	if (!raw) {
		*why = xasprintf("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (n >= 6 && memcmp(raw, "\xfd" "7zXZ\0", 6) == 0) {
		out = unxz(raw, n, len, &w);
	} else if (n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
		out = ungzip(raw, n, len, &w);
	} else if (n >= 4 && memcmp(raw, "\x28\xb5\x2f\xfd", 4) == 0) {
		out = unzstd(raw, n, len, &w);
	} else {
		*len = n;
		return (char *)raw;
	}
	free(raw);
	if (!out) {
		*why = xasprintf("%s: %s", path, w);
		free(w);
	}
	return out;
}

/* ------------------------------------------------------------------ */
/* Symbol tables */

/* Add NAME of a defined __tracepoint_NAME / __traceiter_NAME. */
static int add_symbol(const struct elf_sym *sym, void *arg)
{
	static const char *const pre[] = { "__tracepoint_", "__traceiter_" };
	struct tp_syms *s = arg;
	const char *name = sym->name;

	if (sym->shndx == SHN_UNDEF || name[0] != '_' || name[1] != '_')
		return 0;
	for (int k = 0; k < 2; k++) {
		size_t pl = strlen(pre[k]);

		if (strncmp(name, pre[k], pl) != 0 || !name[pl])
			continue;
		/* the struct tracepoint, or its iterator */
		if (k == 0 ? sym->type != STT_OBJECT : sym->type != STT_FUNC)
			continue;
		intern_add(&s->names, name + pl, strlen(name + pl));
	}
	return 0;
}

/* Add the names of ef's symbol table: false when it has none. */
static bool add_symbols(struct tp_syms *s, struct elf_file *ef)
{
	return elf_file_symbols(ef, add_symbol, s) == 0;
}

static int vmlinux_symbols(struct tp_syms *s, const char *path, char **why)
{
	struct elf_file *ef = elf_file_open(path, NULL, why);
	int rc = -1;

	if (!ef)
		return -1;
	if (!add_symbols(s, ef))
		*why = xasprintf("%s has no symbol table", path);
	else
		rc = 0;
	elf_file_close(ef);
	return rc;
}

/* Names ids [from, names.n) are PATH's (a module file). */
static void note_module(struct tp_syms *s, int from, const char *path)
{
	const char *p = from < s->names.n ?
			arena_strdup(&s->arena, path) : NULL;

	for (int id = from; id < s->names.n; id++)
		VEC_PUSH(s->module, s->n_module, s->cap_module, p);
}

static int module_symbols(struct tp_syms *s, const char *path, char **why)
{
	size_t len;
	char *bytes = tp_syms_read_module(path, &len, why);
	struct elf_file *ef;
	char *err = NULL;
	int rc = -1, from = s->names.n;

	if (!bytes)
		return -1;
	ef = elf_file_open_memory(bytes, len, &err);
	free(err);
	if (!ef)
		*why = xasprintf("%s is no ELF file", path);
	else if (!add_symbols(s, ef))
		*why = xasprintf("%s has no symbol table", path);
	else
		rc = 0;
	elf_file_close(ef);
	free(bytes);
	note_module(s, from, path);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The module files */

struct modfile {
	char *path;
	struct stat st;
};

static bool is_module_name(const char *n)
{
	static const char *const ends[] = { ".ko", ".ko.xz", ".ko.gz",
					    ".ko.zst", NULL };
	size_t l = strlen(n);

	for (int i = 0; ends[i]; i++) {
		size_t e = strlen(ends[i]);

		if (l > e && strcmp(n + l - e, ends[i]) == 0)
			return true;
	}
	return false;
}

/* Every module file under dir, symbolic links not followed; depth 0 is
 * the release's directory, whose build and source links are skipped. */
static void walk(const char *dir, int depth, struct modfile **v, int *n,
		 int *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct modfile m;

		if (e->d_name[0] == '.' ||
		    (depth == 0 && (!strcmp(e->d_name, "build") ||
				    !strcmp(e->d_name, "source"))))
			continue;
		m.path = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(m.path, &m.st) != 0) {
			free(m.path);
			continue;
		}
		if (S_ISDIR(m.st.st_mode) && depth < 32) {
			walk(m.path, depth + 1, v, n, cap);
		} else if (S_ISREG(m.st.st_mode) && is_module_name(e->d_name)) {
			VEC_GROW(*v, *n, *cap);
			(*v)[(*n)++] = m;
			continue;
		}
		free(m.path);
	}
	closedir(d);
}

static int modfile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct modfile *)a)->path,
		      ((const struct modfile *)b)->path);
}

static uint64_t key_file(uint64_t key, const char *path,
			 const struct stat *st)
{
	key = fnv1a(key, path, strlen(path) + 1);
	key = fnv1a(key, &st->st_size, sizeof(st->st_size));
	return fnv1a(key, &st->st_mtim, sizeof(st->st_mtim));
}

/* ------------------------------------------------------------------ */
/* The cache file:
 *   TPS_CACHE_MAGIC
 *   key <hex>
 *   modules <n>
 *   core <n>: the first n names are the vmlinux's
 *   NAME (one a line), and before a module's names: @PATH
 *   end
 */

static bool cache_read(struct tp_syms *s, const char *path, uint64_t key)
{
	char *text = read_file_nofollow(path, NULL), *line, *save = NULL;
	const char *mod = NULL;
	char want[64];
	int n;
	bool ok = false;

	if (!text)
		return false;
	snprintf(want, sizeof(want), "key %016llx", (unsigned long long)key);
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, TPS_CACHE_MAGIC) != 0)
		goto out;
	line = strtok_r(NULL, "\n", &save);
	if (!line || strcmp(line, want) != 0)
		goto out;
	line = strtok_r(NULL, "\n", &save);
	if (!line || sscanf(line, "modules %d", &s->n_modules) != 1)
		goto out;
	line = strtok_r(NULL, "\n", &save);
	if (!line || sscanf(line, "core %d", &s->n_core) != 1)
		goto out;
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (strcmp(line, "end") == 0) {
			ok = true;
			break;
		}
		if (line[0] == '@') {
			mod = arena_strdup(&s->arena, line + 1);
			continue;
		}
		n = s->names.n;
		if (intern_add(&s->names, line, strlen(line)) >= s->n_core &&
		    s->names.n > n)
			VEC_PUSH(s->module, s->n_module, s->cap_module, mod);
	}
	ok = ok && s->n_module == (s->names.n > s->n_core ?
				   s->names.n - s->n_core : 0);
out:
	free(text);
	return ok;
}

static void cache_write(const struct tp_syms *s, const char *path,
			uint64_t key)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct replace_file r;
	FILE *f;

	if (slash)
		*slash = '\0';
	f = replace_open(&r, slash ? dir : ".", path);
	free(dir);
	if (!f)
		return;
	fprintf(f, "%s\nkey %016llx\nmodules %d\ncore %d\n", TPS_CACHE_MAGIC,
		(unsigned long long)key, s->n_modules, s->n_core);
	for (int i = 0; i < s->names.n; i++) {
		const char *m = i >= s->n_core ? s->module[i - s->n_core] :
				NULL;

		if (m && (i == s->n_core || m != s->module[i - s->n_core - 1]))
			fprintf(f, "@%s\n", m);
		fprintf(f, "%s\n", s->names.s[i]);
	}
	fputs("end\n", f);
	replace_commit(&r, true);
}

/* ------------------------------------------------------------------ */

static void reset(struct tp_syms *s)
{
	free(s->module);
	intern_free(&s->names);
	arena_free(&s->arena);
	memset(s, 0, sizeof(*s));
	s->names.arena = &s->arena;
}

int tp_syms_load(const char *vmlinux, const char *modules_dir,
		 const char *cache_path, struct tp_syms *out, char **why)
{
	struct modfile *mods = NULL;
	int nmods = 0, cap = 0, rc = -1;
	uint64_t key = FNV_OFFSET;
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->names.arena = &out->arena;
	*why = NULL;
	if (stat(vmlinux, &st) != 0) {
		*why = xasprintf("cannot read %s: %s", vmlinux,
				 strerror(errno));
		return -1;
	}
	key = fnv1a(key, TPS_CACHE_MAGIC, sizeof(TPS_CACHE_MAGIC));
	key = key_file(key, vmlinux, &st);
	if (modules_dir)
		walk(modules_dir, 0, &mods, &nmods, &cap);
	qsort(mods, (size_t)nmods, sizeof(*mods), modfile_cmp);
	for (int i = 0; i < nmods; i++)
		key = key_file(key, mods[i].path, &mods[i].st);
	if (cache_path && cache_read(out, cache_path, key)) {
		out->from_cache = 1;
		rc = 0;
		goto done;
	}
	reset(out);
	if (vmlinux_symbols(out, vmlinux, why) != 0)
		goto done;
	out->n_core = out->names.n;
	for (int i = 0; i < nmods; i++)
		if (module_symbols(out, mods[i].path, why) != 0)
			goto done;
	out->n_modules = nmods;
	if (cache_path)
		cache_write(out, cache_path, key);
	rc = 0;
done:
	if (rc != 0)
		reset(out);
	for (int i = 0; i < nmods; i++)
		free(mods[i].path);
	free(mods);
	return rc;
}

bool tp_syms_has(const struct tp_syms *s, const char *name)
{
	return intern_find(&s->names, name, strlen(name)) >= 0;
}

bool tp_syms_in_module(const struct tp_syms *s, const char *name)
{
	return intern_find(&s->names, name, strlen(name)) >= s->n_core;
}

const char *tp_syms_module(const struct tp_syms *s, const char *name)
{
	int id = intern_find(&s->names, name, strlen(name));

	return id >= s->n_core && id - s->n_core < s->n_module ?
	       s->module[id - s->n_core] : NULL;
}

void tp_syms_free(struct tp_syms *s)
{
	free(s->module);
	intern_free(&s->names);
	arena_free(&s->arena);
	memset(s, 0, sizeof(*s));
}
