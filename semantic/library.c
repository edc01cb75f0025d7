// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tapset library (see library.h). A file is pulled into the program
 * when it defines a function or global the program names and no loaded
 * file defines, or a probe alias one of the program's points can match;
 * pulled files are scanned the same way until nothing new is needed.
 *
 * Index file (text, one per kernel release, since %( kernel_v %) and
 * CONFIG_ conditionals decide what a file defines):
 *   stap-tapset-index 1 COMPATIBLE GURU
 *   F MTIME_NS SIZE PATH
 *   N f:NAME | g:NAME | a:COMP.COMP
 */
#include "semantic/library.h"
#include "lib/deep.h"
#include "lib/files.h"
#include "lib/intern.h"
#include "semantic/semantic.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_MAGIC "stap-tapset-index 1"

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char **library_search_dirs(struct session *s, const char *dir, int *n)
{
	const char *runtimes[] = { "linux/", "" };
	const char *arches[] = { "/x86_64", "" };
	const char *vers[5];
	int nvers = 0;
	const char **out = arena_alloc(&s->arena, 2 * 5 * 2 * sizeof(*out));

	/* 6.1.0-56-cloud-amd64: itself, 6.1.0, 6.1, 6, then none */
	if (s->release) {
		size_t len = strspn(s->release, "0123456789.");

		vers[nvers++] = s->release;
		while (len && nvers < 4) {
			while (len && s->release[len - 1] == '.')
				len--;
			const char *v = arena_strndup(&s->arena, s->release, len);
			if (len && strcmp(v, vers[nvers - 1]))
				vers[nvers++] = v;
			while (len && s->release[len - 1] != '.')
				len--;
		}
	}
	vers[nvers++] = "";
	*n = 0;
	for (int r = 0; r < 2; r++)
		for (int v = 0; v < nvers; v++)
			for (int a = 0; a < 2; a++) {
				const char *p = arena_printf(&s->arena,
					"%s/%s%s%s", dir, runtimes[r], vers[v],
					arches[a]);
				size_t len = strlen(p);
				while (len > 1 && p[len - 1] == '/')
					len--;
				p = arena_strndup(&s->arena, p, len);
				if (is_dir(p))
					out[(*n)++] = p;
			}
	return out;
}

/* ---- the on-disk index ------------------------------------------------ */

/* a regular file (never a FIFO or a device planted in a tapset
 * directory), bounded as a script is */
static char *read_all(const char *path, size_t *len)
{
	return read_regular_file_max(path, SCRIPT_MAX_BYTES, len);
}

static char *index_path(struct session *s, const char *cache_dir)
{
	return arena_printf(&s->arena, "%s/tapsets-%s.idx", cache_dir,
			    s->release ? s->release : "none");
}

static const char *index_header(struct session *s)
{
	return arena_printf(&s->arena, INDEX_MAGIC " %s %d", s->compatible,
			    s->guru ? 1 : 0);
}

/* The cached entries, as lib_files without asts; count in *n. */
static struct lib_file *read_index(struct session *s, const char *path, int *n)
{
	size_t len;
	char *text = read_all(path, &len);
	struct lib_file *files = NULL;
	int cap = 0;

	*n = 0;
	if (!text)
		return NULL;
	char *line = text, *nl = strchr(line, '\n');
	if (!nl || strncmp(line, index_header(s), (size_t)(nl - line))) {
		free(text);
		return NULL;
	}
	for (line = nl + 1; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (line[0] == 'F' && line[1] == ' ') {
			long long mt, sz;
			int off = 0;
			if (sscanf(line + 2, "%lld %lld %n", &mt, &sz, &off) != 2 ||
			    !off)
				break;
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				files = xrealloc(files, (size_t)cap * sizeof(*files));
			}
			files[*n] = (struct lib_file){
				.path = arena_strdup(&s->arena, line + 2 + off),
				.mtime_ns = mt, .size = sz,
			};
			(*n)++;
		} else if (line[0] == 'N' && line[1] == ' ' && *n) {
			struct lib_file *f = &files[*n - 1];
			const char **names = arena_alloc(&s->arena,
				(size_t)(f->nnames + 1) * sizeof(*names));
			if (f->nnames)
				memcpy(names, f->names,
				       (size_t)f->nnames * sizeof(*names));
			names[f->nnames++] = arena_strdup(&s->arena, line + 2);
			f->names = names;
		}
	}
	free(text);
	return files;
}

static void write_index(struct session *s, struct library *lib,
			const char *path, const char *cache_dir)
{
	struct replace_file r;
	FILE *f = replace_open(&r, cache_dir, path);

	if (!f)
		return;
	fprintf(f, "%s\n", index_header(s));
	for (int i = 0; i < lib->nfiles; i++) {
		struct lib_file *lf = &lib->files[i];
		if (lf->bad)
			continue;
		fprintf(f, "F %lld %lld %s\n", lf->mtime_ns, lf->size, lf->path);
		for (int j = 0; j < lf->nnames; j++)
			fprintf(f, "N %s\n", lf->names[j]);
	}
	replace_commit(&r, true);
}

/* ---- indexing one file ------------------------------------------------ */

static void add_name(struct session *s, struct lib_file *f, const char *name)
{
	const char **names = arena_alloc(&s->arena,
					 (size_t)(f->nnames + 1) * sizeof(*names));

	if (f->nnames)
		memcpy(names, f->names, (size_t)f->nnames * sizeof(*names));
	names[f->nnames++] = name;
	f->names = names;
}

/* "a.b.c" from an alias name point (arguments are not part of it). */
static const char *point_names(struct session *s, const struct node *point)
{
	size_t len = 0;

	ast_foreach(c, point->point.comps)
		len += strlen(c->comp.name) + 1;
	char *buf = arena_alloc(&s->arena, len + 1), *p = buf;
	ast_foreach(c, point->point.comps) {
		if (p != buf)
			*p++ = '.';
		p = stpcpy(p, c->comp.name);
	}
	return buf;
}

static void index_ast(struct session *s, struct lib_file *f)
{
	ast_foreach(d, f->ast->decls) {
		if (d->kind == N_FUNCTION && !d->func.is_private)
			add_name(s, f, arena_printf(&s->arena, "f:%s",
						    d->func.name));
		else if (d->kind == N_GLOBAL && !d->global.is_private)
			add_name(s, f, arena_printf(&s->arena, "g:%s",
						    d->global.name));
		else if (d->kind == N_PROBE && d->probe.alias &&
			 !d->probe.is_private)
			ast_foreach(name, d->probe.alias_names)
				add_name(s, f, arena_printf(&s->arena, "a:%s",
							    point_names(s, name)));
	}
}

/* Parse a library file into the session; errors are warnings. */
static void parse_lib_file(struct session *s, struct lib_file *f)
{
	size_t len;
	char *text = read_all(f->path, &len);
	int warnings = s->nwarnings;
	bool was = s->errors_are_warnings;

	if (!text) {
		if (errno == EFBIG)
			fprintf(stderr, "stap: warning: tapset file '%s' is "
				"larger than %zu MiB, the limit: not read\n",
				f->path, SCRIPT_MAX_BYTES >> 20);
		f->bad = true;
		f->ast = arena_alloc(&s->arena, sizeof(*f->ast));
		return;
	}
	s->errors_are_warnings = true;
	f->ast = parse_source(s, session_add_source(s, f->path, text, len,
						    true));
	s->errors_are_warnings = was;
	f->bad = s->nwarnings > warnings;
	free(text);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The *.stp names of one directory, sorted (malloc'ed, count in *n). */
static char **stp_files(const char *dir, int *n)
{
	DIR *dp = opendir(dir);
	char **names = NULL;
	struct dirent *de;

	*n = 0;
	if (!dp)
		return NULL;
	while ((de = readdir(dp))) {
		size_t len = strlen(de->d_name);
		if (len > 4 && !strcmp(de->d_name + len - 4, ".stp")) {
			names = xrealloc(names, (size_t)(*n + 1) * sizeof(*names));
			names[(*n)++] = xstrdup(de->d_name);
		}
	}
	closedir(dp);
	if (*n)
		qsort(names, (size_t)*n, sizeof(*names), path_cmp);
	return names;
}

void library_load(struct session *s, struct library *lib, const char *cache_dir)
{
	int ncached = 0, cap = 0, nseen = 0;
	const char *ipath = cache_dir ? index_path(s, cache_dir) : NULL;
	struct lib_file *cached = ipath ? read_index(s, ipath, &ncached) : NULL;
	struct { dev_t dev; ino_t ino; const char *rel; } *seen = NULL;
	bool dirty = false;

	memset(lib, 0, sizeof(*lib));
	for (int t = 0; t < s->ntapset_dirs; t++) {
		const char *top = s->tapset_dirs[t];
		int ndirs;
		const char **dirs = library_search_dirs(s, top, &ndirs);

		for (int d = 0; d < ndirs; d++) {
			int nnames;
			char **names = stp_files(dirs[d], &nnames);

			for (int i = 0; i < nnames; i++) {
				const char *path = arena_printf(&s->arena, "%s/%s",
								dirs[d], names[i]);
				const char *rel = path + strlen(top);
				struct stat st;
				bool dup = false;

				free(names[i]);
				/* only regular files, as SystemTap 4.8: a FIFO
				 * or a link to /dev/zero named x.stp is not a
				 * tapset (read_all checks the open file again) */
				if (stat(path, &st) || !S_ISREG(st.st_mode))
					continue;
				for (int j = 0; j < nseen && !dup; j++)
					dup = (seen[j].dev == st.st_dev &&
					       seen[j].ino == st.st_ino) ||
					      !strcmp(seen[j].rel, rel);
				if (dup)
					continue;	/* the first one found wins */
				seen = xrealloc(seen, (size_t)(nseen + 1) *
						sizeof(*seen));
				seen[nseen].dev = st.st_dev;
				seen[nseen].ino = st.st_ino;
				seen[nseen++].rel = rel;

				if (lib->nfiles == cap) {
					struct lib_file *nf;
					cap = cap ? cap * 2 : 64;
					nf = arena_alloc(&s->arena, (size_t)cap *
							 sizeof(*nf));
					if (lib->nfiles)
						memcpy(nf, lib->files,
						       (size_t)lib->nfiles *
						       sizeof(*nf));
					lib->files = nf;
				}
				struct lib_file *f = &lib->files[lib->nfiles++];
				*f = (struct lib_file){
					.path = path,
					.mtime_ns = (long long)st.st_mtim.tv_sec *
						    1000000000LL + st.st_mtim.tv_nsec,
					.size = (long long)st.st_size,
				};
				int c = 0;
				while (c < ncached && strcmp(cached[c].path, path))
					c++;
				if (c < ncached && cached[c].mtime_ns == f->mtime_ns &&
				    cached[c].size == f->size) {
					f->names = cached[c].names;
					f->nnames = cached[c].nnames;
					continue;
				}
				parse_lib_file(s, f);
				index_ast(s, f);
				dirty = true;
			}
			free(names);
		}
	}
	for (int i = 0; i < lib->nfiles; i++)
		for (int j = 0; j < lib->files[i].nnames; j++) {
			const char *nm = lib->files[i].names[j];
			if (nm[0] == 'g')
				continue;
			if (!(s->nlibrary_names & (s->nlibrary_names - 1))) {
				const char **na = arena_alloc(&s->arena,
					(size_t)(s->nlibrary_names ?
						 s->nlibrary_names * 2 : 1) *
					sizeof(*na));
				if (s->nlibrary_names)
					memcpy(na, s->library_names,
					       (size_t)s->nlibrary_names *
					       sizeof(*na));
				s->library_names = na;
			}
			s->library_names[s->nlibrary_names++] = nm;
		}
	if (ipath && (dirty || lib->nfiles != ncached))
		write_index(s, lib, ipath, cache_dir);
	free(seen);
	free(cached);
}

/* ---- resolving what a program needs ----------------------------------- */

struct resolver {
	struct session *s;
	struct library *lib;
	/*
	 * "f:" / "g:" names defined by the files loaded, and every name
	 * looked up already (loading cannot define one later: each file
	 * defining it was loaded then): a hash set, as a program may name
	 * tens of thousands (a linear list made pass 2 quadratic).
	 */
	struct intern known;
	struct ast_file ***files;
	int *nfiles;
};

static bool is_known(struct resolver *r, const char *name)
{
	return intern_find(&r->known, name, strlen(name)) >= 0;
}

static void define(struct resolver *r, const char *name)
{
	intern_add(&r->known, name, strlen(name));
}

static void define_file(struct resolver *r, struct ast_file *af)
{
	ast_foreach(d, af->decls) {
		if (d->kind == N_FUNCTION)
			define(r, arena_printf(&r->s->arena, "f:%s", d->func.name));
		else if (d->kind == N_GLOBAL)
			define(r, arena_printf(&r->s->arena, "g:%s",
					       d->global.name));
	}
}

/*
 * Append to an arena array of n elements whose capacity is the next power
 * of two (main passes an array of one).
 */
static void add_file(struct session *s, struct ast_file ***files, int *n,
		     struct ast_file *af)
{
	if (*n && !(*n & (*n - 1))) {
		struct ast_file **na = arena_alloc(&s->arena, (size_t)*n * 2 *
						   sizeof(*na));
		memcpy(na, *files, (size_t)*n * sizeof(*na));
		*files = na;
	}
	(*files)[(*n)++] = af;
}

static void use_file(struct resolver *r, struct lib_file *f)
{
	f->used = true;
	if (!f->ast)
		parse_lib_file(r->s, f);
	if (f->bad)
		diag_plain_error(r->s, "tapset file '%s' has errors (see the "
				 "warnings above)", f->path);
	add_file(r->s, r->files, r->nfiles, f->ast);
	define_file(r, f->ast);
}

/* Load the files defining name ("f:x" or "g:x") unless it is defined. */
static void need(struct resolver *r, const char *name)
{
	if (is_known(r, name))
		return;
	define(r, name);	/* looked up: the next use need not scan */
	for (int i = 0; i < r->lib->nfiles; i++) {
		struct lib_file *f = &r->lib->files[i];
		if (f->used)
			continue;
		for (int j = 0; j < f->nnames; j++)
			if (!strcmp(f->names[j], name)) {
				use_file(r, f);
				break;
			}
	}
}

/*
 * Can the components pc (maybe with '*' and '**') name the alias "a.b.c",
 * exactly or with the alias as a prefix? Arguments are ignored here: a
 * loose match only loads a file that pass 2 then does not use.
 */
static bool may_match(const struct node *pc, const char *alias)
{
	for (; pc; pc = pc->next) {
		if (!*alias)
			return true;		/* alias as prefix */
		const char *dot = strchr(alias, '.');
		size_t len = dot ? (size_t)(dot - alias) : strlen(alias);
		if (!strcmp(pc->comp.name, "**")) {
			if (!pc->next)
				return true;
			for (const char *a = alias; a; a = strchr(a, '.')) {
				if (*a == '.')
					a++;
				if (may_match(pc->next, a))
					return true;
			}
			return false;
		}
		char comp[256];
		if (len >= sizeof(comp))
			return false;
		memcpy(comp, alias, len);
		comp[len] = '\0';
		if (fnmatch(pc->comp.name, comp, 0))
			return false;
		alias += len + (dot ? 1 : 0);
		if (!dot)
			alias = "";
	}
	return !*alias;
}

static void need_alias(struct resolver *r, const struct node *point)
{
	if (!sema_alias_root(point->point.comps->comp.name))
		return;
	for (int i = 0; i < r->lib->nfiles; i++) {
		struct lib_file *f = &r->lib->files[i];
		if (f->used)
			continue;
		for (int j = 0; j < f->nnames; j++)
			if (!strncmp(f->names[j], "a:", 2) &&
			    may_match(point->point.comps, f->names[j] + 2)) {
				use_file(r, f);
				break;
			}
	}
}

static void scan_node(struct node *n, void *arg)
{
	struct resolver *r = arg;

	switch (n->kind) {
	case N_CALL:
		need(r, arena_printf(&r->s->arena, "f:%s", n->call.name));
		break;
	case N_VAR:
		need(r, arena_printf(&r->s->arena, "g:%s", n->var.name));
		break;
	case N_ATFUNC:
		/* its lowering (json.c) quotes strings with json_string() */
		if (!strcmp(n->call.name, "@json_print"))
			need(r, "f:json_string");
		break;
	case N_PROBE:
		ast_foreach(p, n->probe.points)
			need_alias(r, p);
		break;
	default:
		break;
	}
}

struct resolve_job {
	struct session *s;
	struct library *lib;
	struct ast_file ***files;
	int *nfiles;
};

static void resolve_deep(void *arg);

/* ast_visit recurses a level per nesting level: on a deep stack. */
void library_resolve(struct session *s, struct library *lib,
		     struct ast_file ***files, int *nfiles)
{
	struct resolve_job job = { s, lib, files, nfiles };

	deep_call(resolve_deep, &job);
}

static void resolve_deep(void *arg)
{
	struct resolve_job *job = arg;
	struct session *s = job->s;
	struct library *lib = job->lib;
	struct ast_file ***files = job->files;
	int *nfiles = job->nfiles;

	struct resolver r = { .s = s, .lib = lib, .files = files,
			      .nfiles = nfiles,
			      .known = { .arena = &s->arena } };

	for (int i = 0; i < *nfiles; i++)
		define_file(&r, (*files)[i]);
	if (s->format_json)	/* the display's JSON lines (display.c) */
		need(&r, "f:json_string");
	/* the array grows while it is scanned: files pulled in are scanned too */
	for (int i = 0; i < *nfiles; i++)
		ast_visit((*files)[i]->decls, scan_node, &r);
	intern_free(&r.known);
}

void library_load_all(struct session *s, struct library *lib,
		      struct ast_file ***files, int *nfiles)
{
	for (int i = 0; i < lib->nfiles; i++) {
		struct lib_file *f = &lib->files[i];
		if (f->used)
			continue;
		if (!f->ast)
			parse_lib_file(s, f);
		f->used = true;
		add_file(s, files, nfiles, f->ast);
	}
}

static int macro_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.stpm of dir, in name order, into the library macros. */
static void load_macro_dir(struct session *s, const char *dir)
{
	DIR *dp = opendir(dir);
	char **names = NULL;
	int n = 0;

	if (!dp)
		return;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t len = strlen(de->d_name);
		if (len > 5 && !strcmp(de->d_name + len - 5, ".stpm")) {
			names = xrealloc(names, (size_t)(n + 1) * sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(dp);
	if (n)
		qsort(names, (size_t)n, sizeof(*names), macro_name_cmp);
	for (int i = 0; i < n; i++) {
		char *path = arena_printf(&s->arena, "%s/%s", dir, names[i]);
		size_t len;
		char *text = read_all(path, &len);
		if (text) {
			int fid = session_add_source(s, path, text, len, true);
			parse_macro_file(s, fid);
		}
		free(text);
		free(names[i]);
	}
	free(names);
}

void library_load_macros(struct session *s)
{
	for (int t = 0; t < s->ntapset_dirs; t++) {
		int ndirs;
		const char **dirs = library_search_dirs(s, s->tapset_dirs[t],
							&ndirs);
		for (int d = 0; d < ndirs; d++)
			load_macro_dir(s, dirs[d]);
	}
}
