// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The modules' DWARF of one target release: the module list, the debug
 * files (extracted from the kept -dbg package on first use), and per
 * module a function catalog and a location reader; see moddebug.h.
 */
#define _GNU_SOURCE
#include "target/moddebug.h"
#include "target/dwloc.h"
#include "target/functions.h"
#include "target/target.h"
#include "lib/files.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One module of the release. */
struct moddbg {
	const char *name;	/* "nf_conntrack" ('_' for '-') */
	const char *rel;	/* "kernel/net/.../nf_conntrack.ko" */
	const char *debug;	/* its debug file, once found */
	struct kf_catalog *kfs;
	struct target_lazy kf_st;
	struct dwloc_file *dw;
	struct target_lazy dw_st;
};

struct target_moddebug {
	struct moddbg *mods;	/* sorted by name */
	int n, cap;
};

/* ---- the module list ----------------------------------------------------- */

static void add_module(struct target *t, struct target_moddebug *md,
		       const char *rel, const char *fn)
{
	const char *ko = strstr(fn, ".ko");
	struct moddbg *m;
	char *name;

	if (!ko || (strcmp(ko, ".ko") && strcmp(ko, ".ko.xz") &&
		    strcmp(ko, ".ko.gz") && strcmp(ko, ".ko.zst")))
		return;
	if (md->n == md->cap) {
		md->cap = md->cap ? 2 * md->cap : 256;
		md->mods = realloc(md->mods, (size_t)md->cap * sizeof(*md->mods));
		if (!md->mods)
			fatal("out of memory");
	}
	m = &md->mods[md->n++];
	memset(m, 0, sizeof(*m));
	name = arena_strndup(&t->arena, fn, (size_t)(ko - fn));
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	m->name = name;
	m->rel = arena_printf(&t->arena, "%.*s.ko",
			      (int)(strlen(rel) - strlen(ko)), rel);
}

static void walk_modules(struct target *t, struct target_moddebug *md,
			 const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    (depth == 0 && (!strcmp(e->d_name, "build") ||
				    !strcmp(e->d_name, "source"))))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		char *r = *rel ? xasprintf("%s/%s", rel, e->d_name) :
			  xstrdup(e->d_name);
		if (e->d_type == DT_DIR && depth < 16)
			walk_modules(t, md, p, r, depth + 1);
		else if (e->d_type == DT_REG || e->d_type == DT_UNKNOWN)
			add_module(t, md, r, e->d_name);
		free(p);
		free(r);
	}
	closedir(d);
}

static int mod_cmp(const void *a, const void *b)
{
	return strcmp(((const struct moddbg *)a)->name,
		      ((const struct moddbg *)b)->name);
}

static struct target_moddebug *modules(struct target *t)
{
	if (!t->moddebug) {
		t->moddebug = calloc(1, sizeof(*t->moddebug));
		if (!t->moddebug)
			fatal("out of memory");
		walk_modules(t, t->moddebug, t->modules_dir, "", 0);
		qsort(t->moddebug->mods, (size_t)t->moddebug->n,
		      sizeof(struct moddbg), mod_cmp);
	}
	return t->moddebug;
}

static struct moddbg *module_named(struct target *t, const char *name)
{
	struct target_moddebug *md = modules(t);
	char *n = xstrdup(name);
	struct moddbg key = { .name = n }, *m;

	for (char *p = n; *p; p++)
		if (*p == '-')
			*p = '_';
	m = bsearch(&key, md->mods, (size_t)md->n, sizeof(*m), mod_cmp);
	free(n);
	return m;
}

int target_modules_matching(struct target *t, const char *pattern,
			    const char ***out)
{
	struct target_moddebug *md = modules(t);
	char *pat = xstrdup(pattern);
	int n = 0;

	for (char *p = pat; *p; p++)
		if (*p == '-')
			*p = '_';
	*out = arena_alloc(&t->arena, ((size_t)md->n + 1) * sizeof(**out));
	for (int i = 0; i < md->n; i++)
		if (!fnmatch(pat, md->mods[i].name, 0))
			(*out)[n++] = md->mods[i].name;
	free(pat);
	return n;
}

/* ---- the debug files ----------------------------------------------------- */

static const char *system_debug(struct target *t, const struct moddbg *m)
{
	return arena_printf(&t->arena, "/usr/lib/debug/lib/modules/%s/%s",
			    t->release, m->rel);
}

static const char *cached_debug(struct target *t, const struct moddbg *m)
{
	return t->cache_dir ? arena_printf(&t->arena, "%s/%s/moddebug/%s",
					   t->cache_dir, t->release, m->rel) :
			      NULL;
}

/* Its debug file where it is already, or NULL. */
static const char *present_debug(struct target *t, struct moddbg *m)
{
	const char *p;

	if (m->debug)
		return m->debug;
	p = system_debug(t, m);
	if (access(p, R_OK) == 0)
		return m->debug = p;
	p = cached_debug(t, m);
	if (p && access(p, R_OK) == 0)
		return m->debug = p;
	return NULL;
}

static const char *deb_path(struct target *t)
{
	return arena_printf(&t->arena, "%s/linux-image-%s-dbg.deb",
			    TARGET_DEB_DIR, t->release);
}

/* mkdir -p of path's directory */
static int make_parent(const char *path)
{
	char *d = xstrdup(path), *slash = strrchr(d, '/');
	int rc = 0;

	if (slash) {
		*slash = '\0';
		rc = make_dirs(d);
	}
	free(d);
	return rc;
}

/*
 * One pass over the package: dpkg-deb's data archive through tar, the
 * members given, into dir (a directory of its own). The member names go
 * to the shell as positional parameters, never through its parser.
 */
static int extract(const char *deb, const char *dir, const char **members,
		   int n)
{
	const char **argv = xmalloc(((size_t)n + 7) * sizeof(*argv));
	int status;
	pid_t pid;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = "deb=$1 dir=$2; shift 2; "
		  "dpkg-deb --fsys-tarfile \"$deb\" | tar -x -C \"$dir\" -- \"$@\"";
	argv[3] = "sh";
	argv[4] = deb;
	argv[5] = dir;
	for (int i = 0; i < n; i++)
		argv[6 + i] = members[i];
	argv[6 + n] = NULL;
	pid = fork();
	if (pid == 0) {
		execv("/bin/sh", (char *const *)argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void remove_tree(const char *dir)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execl("/bin/rm", "rm", "-rf", "--", dir, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

int target_modules_debug_fetch(struct target *t, const char *const *names,
			       int n, const char **err)
{
	struct moddbg **want = xmalloc(((size_t)n + 1) * sizeof(*want));
	const char **members = xmalloc(((size_t)n + 1) * sizeof(*members));
	const char *deb = deb_path(t), *root;
	char *tmp = NULL;
	int k = 0, rc = -1;

	for (int i = 0; i < n; i++) {
		struct moddbg *m = module_named(t, names[i]);
		if (m && !present_debug(t, m))
			want[k++] = m;
	}
	if (!k) {
		rc = 0;
		goto out;
	}
	if (access(deb, R_OK) != 0) {
		*err = arena_printf(&t->arena, "no debuginfo for module '%s': "
				    "install linux-image-%s-dbg (missing %s; "
				    "scripts/setup.sh keeps the package as %s)",
				    want[0]->name, t->release,
				    system_debug(t, want[0]), deb);
		goto out;
	}
	/* /usr/lib/debug as SystemTap reads it, when we may write there */
	root = access("/usr/lib/debug", W_OK) == 0 ? "/usr/lib/debug" :
	       t->cache_dir ? arena_printf(&t->arena, "%s/%s", t->cache_dir,
					   t->release) : NULL;
	if (!root || make_dirs(root) != 0) {
		*err = arena_printf(&t->arena, "no place to extract the "
				    "debuginfo of module '%s' to (no cache "
				    "directory)", want[0]->name);
		goto out;
	}
	tmp = xasprintf("%s/.stap-moddebug-XXXXXX", root);
	if (!mkdtemp(tmp)) {
		*err = arena_printf(&t->arena, "cannot extract debuginfo: %s: "
				    "%s", tmp, strerror(errno));
		goto out;
	}
	for (int i = 0; i < k; i++)
		members[i] = arena_printf(&t->arena, "./usr/lib/debug/lib/"
					  "modules/%s/%s", t->release,
					  want[i]->rel);
	/* tar fails when a member is not in the package (a module built
	 * apart): the others are extracted all the same */
	int failed = extract(deb, tmp, members, k), got = 0;
	for (int i = 0; i < k; i++) {
		const char *dst = !strcmp(root, "/usr/lib/debug") ?
				  system_debug(t, want[i]) :
				  cached_debug(t, want[i]);
		char *src = xasprintf("%s/%s", tmp, members[i] + 2);
		if (make_parent(dst) == 0 && rename(src, dst) == 0) {
			want[i]->debug = dst;
			got++;
		}
		free(src);
	}
	if (failed && !got) {
		*err = arena_printf(&t->arena, "cannot extract the debuginfo "
				    "of module '%s' from %s", want[0]->name,
				    deb);
		goto out;
	}
	rc = 0;
out:
	if (tmp)
		remove_tree(tmp);
	free(tmp);
	free(want);
	free(members);
	return rc;
}

const char *target_module_debug(struct target *t, const char *name,
				const char **err)
{
	struct moddbg *m = module_named(t, name);

	if (!m) {
		*err = arena_printf(&t->arena, "no module '%s' in %s", name,
				    t->modules_dir);
		return NULL;
	}
	if (present_debug(t, m))
		return m->debug;
	if (target_modules_debug_fetch(t, &name, 1, err) != 0)
		return NULL;
	if (!m->debug)
		*err = arena_printf(&t->arena, "no debuginfo for module '%s' "
				    "in linux-image-%s-dbg", m->name,
				    t->release);
	return m->debug;
}

/* ---- catalogs ------------------------------------------------------------ */

static bool lazy_begin(struct target_lazy *l)
{
	return l->state == 0;
}

static void lazy_end(struct target *t, struct target_lazy *l, bool ok,
		     char *e)
{
	l->state = ok ? 1 : -1;
	l->err = e;
	(void)t;
}

const struct kf_catalog *target_module_functions(struct target *t,
						 const char *name,
						 const char **err)
{
	const char *path = target_module_debug(t, name, err);
	struct moddbg *m = module_named(t, name);

	if (!path || !m)
		return NULL;
	if (lazy_begin(&m->kf_st)) {
		char *e = NULL;
		m->kfs = xmalloc(sizeof(*m->kfs));
		/* a module's catalog takes a fraction of a second: no cache */
		int rc = kf_catalog_load(t->release, path, NULL, m->kfs, &e);
		lazy_end(t, &m->kf_st, rc == 0, e);
	}
	if (m->kf_st.state < 0) {
		*err = m->kf_st.err;
		return NULL;
	}
	return m->kfs;
}

struct dwloc_file *target_module_dwarf(struct target *t, const char *name,
				       const char **err)
{
	const char *path = target_module_debug(t, name, err);
	struct moddbg *m = module_named(t, name);

	if (!path || !m)
		return NULL;
	if (lazy_begin(&m->dw_st)) {
		char *e = NULL;
		m->dw = dwloc_open(path, &e);
		lazy_end(t, &m->dw_st, m->dw != NULL, e);
	}
	if (m->dw_st.state < 0) {
		*err = m->dw_st.err;
		return NULL;
	}
	return m->dw;
}

void target_moddebug_free(struct target *t)
{
	struct target_moddebug *md = t->moddebug;

	if (!md)
		return;
	for (int i = 0; i < md->n; i++) {
		struct moddbg *m = &md->mods[i];
		if (m->kf_st.state > 0)
			kf_catalog_free(m->kfs);
		free(m->kfs);
		free(m->kf_st.err);
		dwloc_close(m->dw);
		free(m->dw_st.err);
	}
	free(md->mods);
	free(md);
	t->moddebug = NULL;
}
