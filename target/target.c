// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One target kernel release: its paths, its .config (parsed once) and its
 * catalogs, each loaded on first use; see target.h.
 */
#define _GNU_SOURCE		/* strverscmp */
#include "target/target.h"
#include "elf/elf.h"
#include "target/btf.h"
#include "target/btf_blob.h"
#include "target/tp_syms.h"
#include "target/dwloc.h"
#include "target/functions.h"
#include "target/moddebug.h"
#include "target/tracepoints.h"
#include "lib/files.h"
#include "lib/intern.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* .config: names interned in file order, values by name id. */
struct target_config {
	struct intern names;
	const char **values;
	int nvalues, cap;
};

char *target_find_build_dir(const char *release)
{
	char *cands[2], *found = NULL;

	cands[0] = xasprintf("/lib/modules/%s/build", release);
	cands[1] = xasprintf("/usr/src/linux-headers-%s", release);
	for (int i = 0; i < 2 && !found; i++) {
		char *mk = xasprintf("%s/Makefile", cands[i]);

		if (path_exists(mk))
			found = xstrdup(cands[i]);
		free(mk);
	}
	free(cands[0]);
	free(cands[1]);
	return found;
}

struct target *target_new(const char *release, const char *build_dir)
{
	struct target *t = xmalloc(sizeof(*t));
	struct arena *a = &t->arena;
	const char *dbg[2];

	memset(t, 0, sizeof(*t));
	t->release = arena_strdup(a, release);
	if (build_dir) {
		t->build_dir = arena_strdup(a, build_dir);
	} else {
		char *b = target_find_build_dir(release);

		t->build_dir = b ? arena_strdup(a, b) : NULL;
		free(b);
	}
	dbg[0] = arena_printf(a, "/usr/lib/debug/boot/vmlinux-%s", release);
	dbg[1] = arena_printf(a, "/usr/lib/debug/lib/modules/%s/vmlinux",
			      release);
	t->debug_tried = dbg[0];
	for (int i = 0; i < 2 && !t->debug_vmlinux; i++)
		if (access(dbg[i], R_OK) == 0)
			t->debug_vmlinux = dbg[i];
	t->build_vmlinux = arena_printf(a, "/lib/modules/%s/build/vmlinux",
					release);
	t->image = arena_printf(a, "/boot/vmlinuz-%s", release);
	t->modules_dir = arena_printf(a, "/lib/modules/%s", release);
	if (t->build_dir)
		t->config_path = arena_printf(a, "%s/.config", t->build_dir);
	t->cache_dir = cache_dir(a);
	return t;
}

void target_set_cache_dir(struct target *t, const char *dir)
{
	t->cache_dir = dir ? arena_strdup(&t->arena, dir) : NULL;
}

/* ---- .config ------------------------------------------------------------ */

/* "CONFIG_X=value" lines; comments ("# CONFIG_X is not set") are unset. */
static void config_load(struct target *t)
{
	struct target_config *c = arena_alloc(&t->arena, sizeof(*c));
	char *text = t->config_path ? read_file(t->config_path, NULL) : NULL;
	char *line, *save = NULL;

	c->names.arena = &t->arena;
	t->config = c;
	t->config_loaded = true;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		int id;

		if (strncmp(line, "CONFIG_", 7) != 0 || !eq)
			continue;
		id = intern_add(&c->names, line, (size_t)(eq - line));
		/* a name seen again keeps its place, the last value wins */
		if (id == c->nvalues)
			VEC_PUSH(c->values, c->nvalues, c->cap, NULL);
		c->values[id] = arena_strdup(&t->arena, eq + 1);
	}
	free(text);
}

const char *target_config(struct target *t, const char *name)
{
	int id;

	if (!t->config_loaded)
		config_load(t);
	id = intern_find(&t->config->names, name, strlen(name));
	return id < 0 ? NULL : t->config->values[id];
}

bool target_config_at(struct target *t, int i, const char **name,
		      const char **value)
{
	if (!t->config_loaded)
		config_load(t);
	if (i < 0 || i >= t->config->nvalues)
		return false;
	*name = t->config->names.s[i];
	*value = t->config->values[i];
	return true;
}

/* ---- catalogs ----------------------------------------------------------- */

/* Whether to (try to) load: false when tried before. */
static bool lazy_start(struct target_lazy *l)
{
	if (l->state)
		return false;
	l->state = -1;
	return true;
}

static void lazy_result(struct target_lazy *l, int rc, char *err)
{
	if (rc == 0) {
		l->state = 1;
		free(err);
	} else {
		l->err = err ? err : xstrdup("unknown error");
	}
}

static void *lazy_answer(const struct target_lazy *l, void *cat,
			 const char **err)
{
	if (err)
		*err = l->state < 0 ? l->err : NULL;
	return l->state > 0 ? cat : NULL;
}

struct btf *target_btf(struct target *t, const char **err)
{
	if (lazy_start(&t->btf_st)) {
		char *e = NULL;
		int rc = btf_load_target(t, &t->btf, &e);

		lazy_result(&t->btf_st, rc, e);
	}
	return lazy_answer(&t->btf_st, t->btf, err);
}

/* "watchdog" of ".../watchdog.ko.xz", in the target's arena. */
static const char *module_name(struct target *t, const char *path)
{
	const char *base = strrchr(path, '/'), *ko;

	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	return arena_strndup(&t->arena, base, ko ? (size_t)(ko - base) :
					     strlen(base));
}

/* Whether file name FN is module NAME's (.ko, compressed or not; '-'
 * and '_' are the same in module names). */
static bool module_file_is(const char *fn, const char *name)
{
	static const char *const ends[] = { ".ko", ".ko.xz", ".ko.gz",
					    ".ko.zst" };
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (fn[i] != name[i] && !((fn[i] == '-' || fn[i] == '_') &&
					  (name[i] == '-' || name[i] == '_')))
			return false;
	for (int i = 0; i < 4; i++)
		if (!strcmp(fn + n, ends[i]))
			return true;
	return false;
}

/* Module NAME's file under dir (links not followed), malloc'ed; the
 * release's build and source links are skipped at depth 0. */
static char *find_module_file(const char *dir, const char *name, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.' ||
		    (depth == 0 && (!strcmp(e->d_name, "build") ||
				    !strcmp(e->d_name, "source"))))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR && depth < 16)
			found = find_module_file(p, name, depth + 1);
		else if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
			 module_file_is(e->d_name, name))
			found = xstrdup(p);
		free(p);
	}
	closedir(d);
	return found;
}

const char *target_module_file(struct target *t, const char *name)
{
	char *f;
	const char *r;

	if (!*name || strchr(name, '/'))
		return NULL;
	f = find_module_file(t->modules_dir, name, 0);
	r = f ? arena_strdup(&t->arena, f) : NULL;
	free(f);
	return r;
}

/*
 * A module's BTF blob is cached as CACHE/RELEASE/btf-NAME (btf_blob.h's
 * cache file: the module file's path, size and mtime, then the blob):
 * decompressing btrfs.ko.xz for its .BTF takes a tenth of a second.
 */
static char *module_btf_path(struct target *t, const char *name)
{
	return t->cache_dir ? xasprintf("%s/%s/btf-%s", t->cache_dir,
					t->release, name) : NULL;
}

static bool module_btf_cached(struct target *t, const char *path,
			      const char *name, uint8_t **blob, size_t *len)
{
	char *cpath = module_btf_path(t, name), *src = NULL;
	bool ok = cpath && btf_cache_read(cpath, blob, len, &src) == 0;

	if (ok && strcmp(src, path)) {
		free(*blob);
		ok = false;
	}
	free(src);
	free(cpath);
	return ok;
}

static void module_btf_cache(struct target *t, const char *path,
			     const char *name, const uint8_t *blob, size_t len)
{
	char *cpath = module_btf_path(t, name);
	char *dir = cpath ? xasprintf("%s/%s", t->cache_dir, t->release) :
		    NULL;
	struct stat st;

	if (cpath && stat(path, &st) == 0)
		btf_cache_write(dir, cpath, path, &st, blob, len);
	free(dir);
	free(cpath);
}

int target_module_btf(struct target *t, const char *path, const char **err)
{
	struct target_module *m;
	struct btf *btf;
	char *why = NULL;
	uint8_t *blob;
	size_t len, blen;
	const char *name;
	char *bytes;

	for (int i = 0; i < t->n_mods; i++)
		if (!strcmp(t->mods[i].path, path)) {
			*err = t->mods[i].err;
			return t->mods[i].scope;
		}
	VEC_GROW(t->mods, t->n_mods, t->cap_mods);
	m = &t->mods[t->n_mods++];
	memset(m, 0, sizeof(*m));
	m->path = arena_strdup(&t->arena, path);
	btf = target_btf(t, err);
	if (!btf) {
		m->err = arena_strdup(&t->arena, *err);
		return 0;
	}
	name = module_name(t, path);
	if (module_btf_cached(t, path, name, &blob, &blen)) {
		m->scope = btf_add_module(btf, name, blob, blen, &why);
		goto done;
	}
	bytes = tp_syms_read_module(path, &len, &why);
	if (bytes && btf_blob_from_elf((const uint8_t *)bytes, len, &blob,
				       &blen, &why) == 0) {
		module_btf_cache(t, path, name, blob, blen);
		m->scope = btf_add_module(btf, name, blob, blen, &why);
	} else if (bytes) {
		char *w = why;

		why = xasprintf("%s: %s", path, w);
		free(w);
	}
	free(bytes);
done:
	if (!m->scope) {
		m->err = arena_strdup(&t->arena, why ? why : "no BTF");
		free(why);
	}
	*err = m->err;
	return m->scope;
}

int target_user_btf(struct target *t, const char *path, const char **err)
{
	struct target_module *m;
	struct elf_file *ef;
	struct btf *btf;
	char *why = NULL;
	const char *key = arena_printf(&t->arena, "user:%s", path);

	for (int i = 0; i < t->n_mods; i++)
		if (!strcmp(t->mods[i].path, key)) {
			*err = t->mods[i].err;
			return t->mods[i].scope;
		}
	VEC_GROW(t->mods, t->n_mods, t->cap_mods);
	m = &t->mods[t->n_mods++];
	memset(m, 0, sizeof(*m));
	m->path = key;
	btf = target_btf(t, err);
	if (!btf) {
		m->err = arena_strdup(&t->arena, *err);
		return 0;
	}
	ef = elf_file_open(path, NULL, &why);
	if (ef) {
		m->scope = btf_add_elf(btf, path, ef, &why);
		elf_file_close(ef);
	}
	if (!m->scope) {
		m->err = arena_strdup(&t->arena, why ? why : "no DWARF types");
		free(why);
	}
	*err = m->err;
	return m->scope;
}

const struct tp_catalog *target_tracepoints(struct target *t,
					    const char **err)
{
	if (lazy_start(&t->tp_st)) {
		char *e = NULL;
		int rc;

		t->tps = xmalloc(sizeof(*t->tps));
		rc = tp_catalog_build(t, t->tps, &e);
		if (rc == 0)
			tp_catalog_drop_undefined(t, t->tps);
		lazy_result(&t->tp_st, rc, e);
	}
	return lazy_answer(&t->tp_st, t->tps, err);
}

const struct kf_catalog *target_functions(struct target *t, const char **err)
{
	if (lazy_start(&t->kf_st)) {
		char *e = NULL;
		int rc = -1;

		t->kfs = xmalloc(sizeof(*t->kfs));
		memset(t->kfs, 0, sizeof(*t->kfs));
		if (!t->debug_vmlinux)
			e = xasprintf("no debuginfo for %s: install "
				      "linux-image-%s-dbg (missing %s)",
				      t->release, t->release, t->debug_tried);
		else
			rc = kf_catalog_load(t->release, t->debug_vmlinux,
					     t->cache_dir, t->kfs, &e);
		lazy_result(&t->kf_st, rc, e);
	}
	return lazy_answer(&t->kf_st, t->kfs, err);
}

struct dwloc_file *target_dwarf(struct target *t, const char **err)
{
	if (lazy_start(&t->dw_st)) {
		char *e = NULL;

		if (!t->debug_vmlinux)
			e = xstrdup("no kernel debuginfo");
		else
			t->dw = dwloc_open(t->debug_vmlinux, &e);
		lazy_result(&t->dw_st, t->dw ? 0 : -1, e);
	}
	return lazy_answer(&t->dw_st, t->dw, err);
}

void target_release_functions(struct target *t)
{
	if (t->kf_st.state > 0)
		kf_catalog_free(t->kfs);
	free(t->kfs);
	free(t->kf_st.err);
	t->kfs = NULL;
	t->kf_st = (struct target_lazy){ 0 };
}

void target_release_tracepoints(struct target *t)
{
	if (t->tp_st.state > 0)
		tp_catalog_free(t->tps);
	free(t->tps);
	free(t->tp_st.err);
	t->tps = NULL;
	t->tp_st = (struct target_lazy){ 0 };
}

void target_free(struct target *t)
{
	if (!t)
		return;
	target_release_functions(t);
	target_release_tracepoints(t);
	target_moddebug_free(t);
	if (t->btf)
		btf_free(t->btf);
	free(t->mods);
	free(t->btf_st.err);
	dwloc_close(t->dw);
	free(t->dw_st.err);
	if (t->config) {
		intern_free(&t->config->names);
		free(t->config->values);
	}
	arena_free(&t->arena);
	free(t);
}

/* ---- choosing a release ------------------------------------------------- */

bool target_has_build_tree(const char *release)
{
	char *a = xasprintf("/lib/modules/%s/build", release);
	char *b = xasprintf("/usr/src/linux-headers-%s", release);
	bool ok = path_exists(a) || path_exists(b);

	free(a);
	free(b);
	return ok;
}

/* The first line of root/path, or "" when unreadable (static). */
static const char *host_file(const char *root, const char *path,
			     char *buf, size_t n)
{
	char *full = xasprintf("%s%s", root, path);
	FILE *f = fopen(full, "re");

	free(full);
	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

const char *target_host_refusal(const char *root, bool signed_modules)
{
	char buf[128];
	const char *mode;

	if (!*host_file(root, "/proc/sys/kernel/modules_disabled", buf,
			sizeof(buf)))
		return "it has no module support";
	if (strcmp(buf, "0"))
		return "module loading is disabled (kernel.modules_disabled)";
	if (signed_modules)
		return NULL;
	if (!strcmp(host_file(root, "/sys/module/module/parameters/sig_enforce",
			      buf, sizeof(buf)), "Y"))
		return "it loads only signed modules (module.sig_enforce) and "
		       "stap's modules are not signed";
	/* "none [integrity] confidentiality": the mode in brackets */
	mode = strchr(host_file(root, "/sys/kernel/security/lockdown", buf,
				sizeof(buf)), '[');
	if (mode && strncmp(mode, "[none]", 6))
		return "it is locked down (/sys/kernel/security/lockdown), "
		       "which refuses unsigned modules";
	return NULL;
}

const char *target_newest_installed(void)
{
	static char best[256];
	struct dirent *d;
	DIR *dir = opendir("/boot");

	best[0] = '\0';
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		const char *rel;

		if (strncmp(d->d_name, "vmlinuz-", 8))
			continue;
		rel = d->d_name + 8;
		if (!*rel || strlen(rel) >= sizeof(best))
			continue;
		if (target_has_build_tree(rel) &&
		    (!best[0] || strverscmp(rel, best) > 0))
			strcpy(best, rel);
	}
	closedir(dir);
	return best[0] ? best : NULL;
}
