// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel tracepoint catalog from the headers' text; see tracepoints.h.
 *
 * Here: which headers (the globs SystemTap looks at, under the build tree
 * and the source tree it points to), their include spellings, the
 * catalog built from what tp_scan.c reads in each, its cache file, and
 * the queries. The cache key covers the release, the .config and every
 * header's path, size and mtime. The cached catalog is every header's;
 * the tracepoints the kernel does not define are dropped after each load
 * (tp_catalog_drop_undefined), from a symbol set with a cache of its own.
 */
#define _GNU_SOURCE
#include "target/tracepoints.h"
#include "target/tp_scan.h"
#include "target/tp_syms.h"
#include "target/target.h"
#include "lib/hash.h"
#include "lib/files.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TP_CACHE_MAGIC "stap-tracepoints 3"

/* ------------------------------------------------------------------ */
/* Finding the headers */

static const char *const header_globs[] = {
	"include/trace/events/*.h",
	"include/trace/*.h",
	"include/ras/*_event.h",
	"arch/ARCH/include/asm/trace/*.h",
	"arch/ARCH/include/asm/*trace*.h",
	"arch/ARCH/kernel/*trace.h",
	"arch/ARCH/kvm/*trace.h",
	"arch/ARCH/entry/vsyscall/*trace.h",
	"fs/*/*trace*.h",
	"net/*/*trace*.h",
	"sound/core/*_trace.h",
	"sound/hda/*trace*.h",
	"sound/pci/hda/*_trace.h",
	"drivers/base/regmap/*trace*.h",
	"drivers/gpu/drm/*_trace.h",
	"drivers/gpu/drm/*/*_trace.h",
	"drivers/usb/host/*trace*.h",
	"drivers/net/wireless/*/*/*trace*.h",
	"virt/kvm/*/*trace*.h",
	NULL
};

static bool excluded_header(const char *path)
{
	static const char *const names[] = {
		"define_trace.h", "define_custom_trace.h", "ftrace.h",
		"trace_events.h", "trace_custom_events.h", "perf.h",
		"bpf_probe.h", "syscall.h", NULL
	};
	const char *b = strrchr(path, '/');
	size_t l;

	b = b ? b + 1 : path;
	for (int i = 0; names[i]; i++)
		if (strcmp(b, names[i]) == 0)
			return true;
	l = strlen(b);
	return l >= 15 && strcmp(b + l - 15, "_event_types.h") == 0;
}

struct hdr {
	char *path;	/* absolute */
	char *rel;	/* relative to its tree */
	struct stat st;
};

static int hdr_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hdr *)a)->rel,
		      ((const struct hdr *)b)->rel);
}

/* The architecture directory name: the only one under $build/arch, else
 * from .config. */
static char *find_arch(const char *build, const struct kconfig *cfg)
{
	static const struct {
		const char *sym, *arch;
	} map[] = {
		{ "CONFIG_X86", "x86" }, { "CONFIG_ARM64", "arm64" },
		{ "CONFIG_ARM", "arm" }, { "CONFIG_PPC", "powerpc" },
		{ "CONFIG_S390", "s390" }, { "CONFIG_RISCV", "riscv" },
		{ "CONFIG_MIPS", "mips" }, { "CONFIG_LOONGARCH", "loongarch" },
	};
	char *pat, *res = NULL;
	glob_t g;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const char *v = kconfig_get(cfg, map[i].sym, strlen(map[i].sym));

		if (v && strcmp(v, "y") == 0)
			return xstrdup(map[i].arch);
	}
	if (asprintf(&pat, "%s/arch/*/include", build) < 0)
		fatal("out of memory");
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1) {
		char *p = g.gl_pathv[0] + strlen(build) + 6;
		char *e = strchr(p, '/');

		if (e)
			res = strndup(p, (size_t)(e - p));
	}
	globfree(&g);
	free(pat);
	return res ? res : xstrdup("x86");
}

/* The source tree: $build/source, or the tree the build Makefile
 * includes (Debian: "include /usr/src/linux-headers-X-common/Makefile"). */
static char *find_source(const char *build)
{
	char *p, *text, *res = NULL;
	char real[PATH_MAX];

	if (asprintf(&p, "%s/source", build) < 0)
		fatal("out of memory");
	if (realpath(p, real)) {
		free(p);
		return xstrdup(real);
	}
	free(p);
	if (asprintf(&p, "%s/Makefile", build) < 0)
		fatal("out of memory");
	text = read_file(p, NULL);
	free(p);
	if (text) {
		char *line, *save = NULL;

		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *e;

			if (strncmp(line, "include ", 8) != 0)
				continue;
			line += 8;
			while (*line == ' ')
				line++;
			e = strstr(line, "/Makefile");
			if (e && e[9] == '\0') {
				*e = '\0';
				res = xstrdup(line);
				break;
			}
		}
		free(text);
	}
	return res;
}

static void add_globs(const char *root, const char *arch, struct hdr **hs,
		      int *n, int *cap)
{
	for (int i = 0; header_globs[i]; i++) {
		char pat[PATH_MAX], *a;
		size_t rl = strlen(root) + 1;
		glob_t g;

		snprintf(pat, sizeof(pat), "%s/%s", root, header_globs[i]);
		a = strstr(pat, "ARCH");
		if (a) {
			char rest[PATH_MAX];

			snprintf(rest, sizeof(rest), "%s", a + 4);
			snprintf(a, sizeof(pat) - (size_t)(a - pat), "%s%s",
				 arch, rest);
		}
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {
			const char *path = g.gl_pathv[k];
			struct hdr h;
			int j;

			if (excluded_header(path) || stat(path, &h.st) != 0 ||
			    !S_ISREG(h.st.st_mode))
				continue;
			for (j = 0; j < *n; j++)
				if (strcmp((*hs)[j].rel, path + rl) == 0)
					break;
			if (j < *n)
				continue;	/* the build tree wins */
			VEC_GROW(*hs, *n, *cap);
			h.path = xstrdup(path);
			h.rel = xstrdup(path + rl);
			(*hs)[(*n)++] = h;
		}
		globfree(&g);
	}
}

/* "include/trace/events/x.h" -> "trace/events/x.h",
 * "arch/x86/include/asm/trace/y.h" -> "asm/trace/y.h", else the path. */
static const char *include_spelling(const struct hdr *h, const char *arch)
{
	char pre[64];

	if (strncmp(h->rel, "include/", 8) == 0)
		return h->rel + 8;
	snprintf(pre, sizeof(pre), "arch/%s/include/", arch);
	if (strncmp(h->rel, pre, strlen(pre)) == 0)
		return h->rel + strlen(pre);
	return h->path;
}

/* ------------------------------------------------------------------ */
/* The catalog */

/* Compare "SYS1:NAME1" with "SYS2:NAME2" as strings, like SystemTap's
 * sorted listing ("fib6:x" sorts before "fib:y"). */
static int sysname_cmp(const char *s1, const char *n1, const char *s2,
		       const char *n2)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s:%s", s1, n1);
	snprintf(b, sizeof(b), "%s:%s", s2, n2);
	return strcmp(a, b);
}

static int tp_cmp(const void *a, const void *b)
{
	const struct tracepoint_info *x = a, *y = b;

	return sysname_cmp(x->system, x->name, y->system, y->name);
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_tp *x = a, *y = b;

	return sysname_cmp(x->system, x->name, y->system, y->name);
}

static void catalog_from_raw(struct tp_catalog *c, struct raw_tp *r, int n)
{
	struct arena *a = &c->arena;

	qsort(r, (size_t)n, sizeof(*r), raw_cmp);
	c->tps = arena_alloc(a, (size_t)(n ? n : 1) * sizeof(*c->tps));
	c->n = 0;
	for (int i = 0; i < n; i++) {
		struct tracepoint_info *t;

		/* duplicates: keep the first (headers are in path order) */
		if (c->n && strcmp(c->tps[c->n - 1].system, r[i].system) == 0 &&
		    strcmp(c->tps[c->n - 1].name, r[i].name) == 0)
			continue;
		t = &c->tps[c->n++];
		t->system = arena_strdup(a, r[i].system);
		t->name = arena_strdup(a, r[i].name);
		t->header = arena_strdup(a, r[i].header);
		t->proto = arena_strdup(a, r[i].proto);
		t->args_ok = r[i].args_ok;
		t->nargs = r[i].nargs;
		if (!t->args_ok)
			c->n_noargs++;
		t->args = arena_alloc(a, (size_t)(t->nargs ? t->nargs : 1) *
					     sizeof(*t->args));
		for (int k = 0; k < t->nargs; k++) {
			t->args[k].name = arena_strdup(a, r[i].args[k].name);
			t->args[k].c_type =
				arena_strdup(a, r[i].args[k].c_type);
		}
	}
}

static void raw_free(struct raw_tp *r, int n)
{
	for (int i = 0; i < n; i++) {
		free(r[i].system);
		free(r[i].name);
		free(r[i].header);
		free(r[i].proto);
		for (int k = 0; k < r[i].nargs; k++) {
			free((char *)r[i].args[k].name);
			free((char *)r[i].args[k].c_type);
		}
		free(r[i].args);
	}
	free(r);
}

/* ---- cache file ----
 * TP_CACHE_MAGIC
 * key <hex>
 * <system>\t<name>\t<header>\t<args_ok>\t<proto>\t<nargs>[\t<name>\t<type>]...
 */

static char *cache_path(const char *cache_dir, const char *release)
{
	char *p;

	if (asprintf(&p, "%s/tracepoints-%s.txt", cache_dir, release) < 0)
		fatal("out of memory");
	return p;
}

static bool cache_read(struct tp_catalog *c, const char *path, uint64_t key)
{
	char *text = read_file(path, NULL), *line, *save = NULL;
	char want[64];
	struct raw_tp *r = NULL;
	int n = 0, cap = 0;
	bool ok = false;

	if (!text)
		return false;
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, TP_CACHE_MAGIC) != 0)
		goto out;
	line = strtok_r(NULL, "\n", &save);
	snprintf(want, sizeof(want), "key %016llx", (unsigned long long)key);
	if (!line || strcmp(line, want) != 0)
		goto out;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f[6], *s2 = NULL, *fld;
		int k = 0;
		struct raw_tp *t;

		if (strcmp(line, "end") == 0) {
			ok = true;
			break;
		}
		for (fld = strtok_r(line, "\t", &s2); fld && k < 6;
		     fld = k < 6 ? strtok_r(NULL, "\t", &s2) : NULL)
			f[k++] = fld;
		if (k < 6)
			goto out;
		VEC_GROW(r, n, cap);
		t = &r[n++];
		memset(t, 0, sizeof(*t));
		t->system = xstrdup(f[0]);
		t->name = xstrdup(f[1]);
		t->header = xstrdup(f[2]);
		t->args_ok = f[3][0] == '1';
		t->proto = xstrdup(f[4]);
		t->nargs = atoi(f[5]);
		t->args = xmalloc((size_t)(t->nargs + 1) * sizeof(*t->args));
		for (int a = 0; a < t->nargs; a++) {
			char *an = strtok_r(NULL, "\t", &s2);
			char *at = strtok_r(NULL, "\t", &s2);

			if (!an || !at) {
				t->nargs = a;
				goto out;
			}
			t->args[a].name = xstrdup(an);
			t->args[a].c_type = xstrdup(at);
		}
	}
out:
	if (ok)
		catalog_from_raw(c, r, n);
	raw_free(r, n);
	free(text);
	return ok;
}

static void cache_write(const struct tp_catalog *c, const char *cache_dir,
			const char *path, uint64_t key)
{
	struct replace_file r;
	FILE *f = replace_open(&r, cache_dir, path);

	if (!f)
		return;
	fprintf(f, "%s\nkey %016llx\n", TP_CACHE_MAGIC,
		(unsigned long long)key);
	for (int i = 0; i < c->n; i++) {
		const struct tracepoint_info *t = &c->tps[i];

		fprintf(f, "%s\t%s\t%s\t%d\t%s\t%d", t->system, t->name,
			t->header, t->args_ok, t->proto, t->nargs);
		for (int a = 0; a < t->nargs; a++)
			fprintf(f, "\t%s\t%s", t->args[a].name,
				t->args[a].c_type);
		fputc('\n', f);
	}
	fputs("end\n", f);
	replace_commit(&r, true);
}

void tp_catalog_drop_undefined(struct target *t, struct tp_catalog *c)
{
	struct tp_syms syms;
	char *why = NULL, *cpath = NULL;
	const char *mod, *last = NULL;
	int k = 0;

	if (!t->debug_vmlinux) {
		c->defined_from = arena_printf(&c->arena, "no debug vmlinux "
					       "(%s): every tracepoint of the "
					       "headers kept", t->debug_tried);
		return;
	}
	if (t->cache_dir)
		cpath = xasprintf("%s/%s/tracepoint-symbols-v3.txt",
				  t->cache_dir, t->release);
	if (tp_syms_load(t->debug_vmlinux, t->modules_dir, cpath, &syms,
			 &why) != 0) {
		c->defined_from = arena_printf(&c->arena, "%s: every "
					       "tracepoint of the headers kept",
					       why);
		free(why);
		free(cpath);
		return;
	}
	free(cpath);
	c->n_noargs = 0;
	for (int i = 0; i < c->n; i++) {
		if (!tp_syms_has(&syms, c->tps[i].name))
			continue;
		c->tps[k] = c->tps[i];
		c->tps[k].in_module = tp_syms_in_module(&syms, c->tps[i].name);
		mod = c->tps[k].in_module ?
		      tp_syms_module(&syms, c->tps[i].name) : NULL;
		/* one copy per module file: the catalog is sorted by
		 * system, whose tracepoints are mostly one module's */
		if (mod && (!last || strcmp(last, mod)))
			last = arena_strdup(&c->arena, mod);
		c->tps[k].module = mod ? last : NULL;
		c->n_noargs += !c->tps[k].args_ok;
		k++;
	}
	c->n_dropped = c->n - k;
	c->n = k;
	c->defined_from = arena_printf(&c->arena, "%s and %d modules%s",
				       t->debug_vmlinux, syms.n_modules,
				       syms.from_cache ? " (cached)" : "");
	tp_syms_free(&syms);
}

int tp_catalog_load(const char *release, const char *build_dir,
		    const char *cache_dir, struct tp_catalog *out, char **err)
{
	struct target *t = target_new(release, build_dir);
	int rc;

	target_set_cache_dir(t, cache_dir);
	rc = tp_catalog_build(t, out, err);
	target_free(t);
	return rc;
}

int tp_catalog_build(struct target *t, struct tp_catalog *out, char **err)
{
	const char *release = t->release, *cache_dir = t->cache_dir;
	struct kconfig *cfg = NULL;
	char *build = NULL, *source = NULL, *arch = NULL, *cpath = NULL;
	struct hdr *hs = NULL;
	int nh = 0, caph = 0, rc = -1;
	uint64_t key = FNV_OFFSET;
	struct stat st;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	build = t->build_dir ? xstrdup(t->build_dir) :
			       xasprintf("/lib/modules/%s/build", release);
	if (stat(build, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*err = xasprintf("kernel build tree %s not found "
				  "(install the headers for %s)",
				  build, release);
		goto out;
	}
	cfg = kconfig_new(t);
	key = fnv1a(key, TP_CACHE_MAGIC, sizeof(TP_CACHE_MAGIC));
	key = fnv1a(key, release, strlen(release) + 1);
	if (t->config_path && stat(t->config_path, &st) == 0) {
		key = fnv1a(key, &st.st_size, sizeof(st.st_size));
		key = fnv1a(key, &st.st_mtim, sizeof(st.st_mtim));
	}
	arch = find_arch(build, cfg);
	source = find_source(build);
	{
		const char *roots[2] = { build, source };

		kconfig_predefine(cfg, arch, roots, source ? 2 : 1);
	}
	add_globs(build, arch, &hs, &nh, &caph);
	if (source && strcmp(source, build) != 0)
		add_globs(source, arch, &hs, &nh, &caph);
	if (nh == 0) {
		*err = xasprintf("no trace headers found under %s", build);
		goto out;
	}
	qsort(hs, (size_t)nh, sizeof(*hs), hdr_cmp);
	for (int i = 0; i < nh; i++) {
		key = fnv1a(key, hs[i].path, strlen(hs[i].path) + 1);
		key = fnv1a(key, &hs[i].st.st_size, sizeof(hs[i].st.st_size));
		key = fnv1a(key, &hs[i].st.st_mtim, sizeof(hs[i].st.st_mtim));
	}
	out->n_headers = nh;
	if (cache_dir) {
		cpath = cache_path(cache_dir, release);
		if (cache_read(out, cpath, key)) {
			out->from_cache = 1;
			rc = 0;
			goto out;
		}
		arena_free(&out->arena);
		out->tps = NULL;
		out->n = out->n_noargs = 0;
	}
	{
		struct raw_tp *raw = NULL;
		int nraw = 0, capraw = 0;

		for (int i = 0; i < nh; i++)
			tp_scan_header(cfg, hs[i].path,
				       include_spelling(&hs[i], arch), &raw,
				       &nraw, &capraw);
		catalog_from_raw(out, raw, nraw);
		raw_free(raw, nraw);
	}
	if (cpath)
		cache_write(out, cache_dir, cpath, key);
	rc = 0;
out:
	for (int i = 0; i < nh; i++) {
		free(hs[i].path);
		free(hs[i].rel);
	}
	free(hs);
	free(cpath);
	free(arch);
	free(source);
	free(build);
	kconfig_free(cfg);
	return rc;
}

int tp_catalog_match(const struct tp_catalog *c, const char *pattern,
		     const struct tracepoint_info ***out)
{
	const char *colon = strchr(pattern, ':');
	char *sys = NULL;
	const char *name = pattern;
	int n = 0;

	*out = xmalloc((size_t)(c->n ? c->n : 1) * sizeof(**out));
	if (colon) {
		sys = strndup(pattern, (size_t)(colon - pattern));
		name = colon + 1;
	}
	for (int i = 0; i < c->n; i++) {
		if (sys && fnmatch(sys, c->tps[i].system, 0) != 0)
			continue;
		if (fnmatch(name, c->tps[i].name, 0) != 0)
			continue;
		(*out)[n++] = &c->tps[i];
	}
	free(sys);
	return n;
}

const struct tracepoint_info *tp_catalog_find(const struct tp_catalog *c,
					      const char *system,
					      const char *name)
{
	struct tracepoint_info key = { .system = system, .name = name };

	return bsearch(&key, c->tps, (size_t)c->n, sizeof(*c->tps), tp_cmp);
}

void tp_catalog_free(struct tp_catalog *c)
{
	arena_free(&c->arena);
	memset(c, 0, sizeof(*c));
}
