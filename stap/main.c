// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap: options, then passes 1 to 5 in order, stopping after -pN or after
 * a pass that reported errors. Exit status: 0 success, 1 any error.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "module/backend.h"
#include "bpf/bpf.h"
#include "lib/guard.h"
#include "lib/outfiles.h"
#include "lib/strbuf.h"
#include "parser/parser.h"
#include "semantic/library.h"
#include "semantic/family.h"
#include "semantic/semantic.h"
#include "semantic/backend.h"
#include "stap/options.h"
#include "vm/vm.h"

static double tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

/* "Pass N: WHAT in Xusr/Ysys/Zreal ms." like SystemTap's -v. */
struct pass_timer {
	struct rusage ru;
	struct timespec real;
};

static void timer_start(struct pass_timer *t)
{
	getrusage(RUSAGE_SELF, &t->ru);
	clock_gettime(CLOCK_MONOTONIC, &t->real);
}

static void timer_report(struct session *s, struct pass_timer *t, int pass,
			 const char *what)
{
	struct rusage ru;
	struct timespec now;

	if (!s->verbose)
		return;
	getrusage(RUSAGE_SELF, &ru);
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct rusage cru;
	getrusage(RUSAGE_CHILDREN, &cru);
	double real = (now.tv_sec - t->real.tv_sec) * 1000.0 +
		      (now.tv_nsec - t->real.tv_nsec) / 1e6;
	fprintf(stderr, "Pass %d: %s in %.0fusr/%.0fsys/%.0freal ms.\n", pass,
		what, tv_ms(ru.ru_utime) - tv_ms(t->ru.ru_utime),
		tv_ms(ru.ru_stime) - tv_ms(t->ru.ru_stime), real);
}

static char *dir_of(struct session *s, const char *path)
{
	char *copy = arena_strdup(&s->arena, path);
	char *slash = strrchr(copy, '/');

	if (slash)
		*slash = '\0';
	return copy;
}

/* runtime/: beside the binary in the build tree, else the installed copy. */
static const char *find_runtime(struct session *s, const char *exe_dir)
{
	const char *env = getenv("STAP_RUNTIME");
	const char *cands[] = {
		env,
		arena_printf(&s->arena, "%s/../runtime", exe_dir),
		ABS_TOP_SRCDIR "/runtime",
		PKGDATADIR "/runtime",
	};

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		if (!cands[i])
			continue;
		/* the source tree's copy only serves a binary in the build tree */
		if (i == 2 && strncmp(exe_dir, ABS_TOP_BUILDDIR, strlen(ABS_TOP_BUILDDIR)))
			continue;
		char *p = arena_printf(&s->arena, "%s/runtime.h", cands[i]);
		if (path_exists(p)) {
			char *real = realpath(cands[i], NULL);
			const char *r = arena_strdup(&s->arena, real ? real : cands[i]);
			free(real);
			return r;
		}
	}
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The tapset path: the library (or $SYSTEMTAP_TAPSET instead, as in
 * SystemTap), then each -I DIR. The macro files (*.stpm) of every search
 * directory are read before any script; the *.stp files are indexed and
 * pulled in by pass 2.
 */
static void set_tapset_path(struct session *s, const char *exe_dir)
{
	const char *builtin = arena_printf(&s->arena, "%s/../tapsets", exe_dir);
	const char *env = getenv("SYSTEMTAP_TAPSET");
	int n = 0;

	if (!path_exists(builtin))
		builtin = !strncmp(exe_dir, ABS_TOP_BUILDDIR, strlen(ABS_TOP_BUILDDIR))
			  ? ABS_TOP_SRCDIR "/tapsets" : PKGDATADIR "/tapsets";
	s->tapset_dirs = arena_alloc(&s->arena, (size_t)(s->ninclude_dirs + 2) *
				     sizeof(*s->tapset_dirs));
	s->tapset_dirs[n++] = env && *env ? env : builtin;
	for (int i = 0; i < s->ninclude_dirs; i++) {
		if (!path_exists(s->include_dirs[i]))
			fprintf(stderr, "stap: warning: cannot read tapset "
				"directory '%s'\n", s->include_dirs[i]);
		s->tapset_dirs[n++] = s->include_dirs[i];
	}
	s->ntapset_dirs = n;
}

/* one derived probe of a -l/-L listing */
struct pp_line {
	const char *name;	/* the alias matched (pn), else the point */
	int order;		/* derivation order, within a name */
	const char *locals;	/* "\nname:type" each, -L only */
	const char *args;	/* "\n$name:type" each, -L only */
};

static int pp_line_cmp(const void *a, const void *b)
{
	const struct pp_line *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->order - y->order;
}

/* Is item (len bytes, not terminated) one of list's "\nitem" entries? */
static bool has_item(const char *list, const char *item, size_t len)
{
	for (const char *p = list; p && *p; p = strchr(p + 1, '\n'))
		if (!strncmp(p + 1, item, len) &&
		    (p[len + 1] == '\n' || !p[len + 1]))
			return true;
	return false;
}

/*
 * Print the entries (what field picks: locals or args) that every line
 * of a group has, in the first line's order: -L of an alias over several
 * points (sunrpc.clnt.entry) shows the variables all of its probes
 * share, as SystemTap does.
 */
static void print_shared(const struct pp_line *g, int n, size_t field)
{
#define FIELD(i) (*(const char *const *)((const char *)&g[i] + field))
	for (const char *p = FIELD(0); *p; ) {
		const char *item = p + 1, *end = strchr(item, '\n');
		size_t len = end ? (size_t)(end - item) : strlen(item);
		bool shared = true;
		p = item + len;
		for (int k = 1; k < n && shared; k++)
			shared = has_item(FIELD(k), item, len);
		/* each once: not if an earlier entry is the same */
		if (shared && item - 1 > FIELD(0)) {
			char *before = strndup(FIELD(0),
					       (size_t)(item - 1 - FIELD(0)));
			shared = !has_item(before, item, len);
			free(before);
		}
		if (shared)
			printf(" %.*s", (int)len, item);
	}
#undef FIELD
}

/* " $a:t $b:t" (a family's list_vars) as "\n$a:t\n$b:t" */
static const char *args_as_items(struct session *s, const char *vars)
{
	char *out = arena_strdup(&s->arena, vars);

	for (char *p = out; (p = strstr(p, " $")); p++)
		*p = '\n';
	return out;
}

/*
 * -l/-L PROBE: the probe points PROBE stands for, sorted, one a line;
 * -L adds the variables. A family may list its points straight from a
 * kernel catalog (kernel.trace, kernel.function); other points are
 * elaborated as "probe PROBE {}" would be. Errors are
 * not shown (as in SystemTap); the count of lines is returned.
 */
static int list_points(struct session *s, const char *spec, bool with_vars)
{
	for (int f = 0; probe_families[f]; f++) {
		int n = probe_families[f]->list ?
			probe_families[f]->list(s, spec, with_vars) : -1;
		if (n >= 0)	/* straight from the family's catalog */
			return n;
	}

	char *text = arena_printf(&s->arena, "probe %s {}\n", spec);
	s->max_errors = 0;
	struct ast_file *af = parse_string(s, "<input>", text, false);
	if (s->nerrors)
		return 0;
	struct ast_file **files = arena_alloc(&s->arena, sizeof(*files));
	int nfiles = 1;
	struct library lib;
	struct program prog;
	files[0] = af;
	library_load(s, &lib, s->cache_dir);
	library_resolve(s, &lib, &files, &nfiles);
	s->unoptimized = true;		/* "probe POINT {}" must not be elided */
	int errors = s->nerrors ? 1 : sema_run(s, files, nfiles, &prog);
	if (errors)
		return 0;
	/* an alias lists as its name; -L adds its locals, then the context
	 * variables of the point underneath */
	struct pp_line *lines = xmalloc((size_t)(prog.nprobes + 1) *
					sizeof(*lines));
	int nlines = 0;
	for (int i = 0; i < prog.nprobes; i++) {
		const struct derived_probe *dp = prog.probes[i];
		struct strbuf locals = { 0 }, args = { 0 };
		/* not the probes of the tapsets it pulled in (json's
		 * procfs file): only what PROBE stands for */
		if (session_file(s, dp->body->user_probe->loc.file)->privileged)
			continue;
		for (int l = 0; l < dp->body->nlocals; l++) {
			const struct symbol *sym = dp->body->locals[l];
			if (sym->type != TY_UNKNOWN)
				sb_printf(&locals, "\n%s:%s", sym->name,
					  type_name(sym->type));
		}
		/* then the point's context variables, as -L of the point
		 * gives them ("name:type") */
		if (dp->family->list_vars)
			dp->family->list_vars(dp, &args);
		/* as SystemTap lists it: the alias matched, else the point
		 * as written where the family keeps it (pp_from) */
		struct pp_line *line = &lines[nlines++];
		line->name = dp->body->pn ? dp->body->pn :
				dp->pp_from ? dp->pp_from :
				/* the point keeps its mark, as in -p2 */
				arena_printf(&s->arena, "%s%s", dp->pp,
					     dp->point->point.sufficient ? "!" :
					     dp->point->point.optional ? "?" :
					     "");
		line->order = i;
		line->locals = arena_strdup(&s->arena, sb_str(&locals));
		line->args = args_as_items(s, sb_str(&args));
		sb_free(&locals);
		sb_free(&args);
	}
	if (nlines)
		qsort(lines, (size_t)nlines, sizeof(*lines), pp_line_cmp);
	int n = 0;
	for (int i = 0, j; i < nlines; i = j, n++) {
		for (j = i + 1; j < nlines &&
		     !strcmp(lines[j].name, lines[i].name); j++)
			;
		fputs(lines[i].name, stdout);
		if (with_vars) {
			print_shared(lines + i, j - i,
				     offsetof(struct pp_line, locals));
			print_shared(lines + i, j - i,
				     offsetof(struct pp_line, args));
		}
		putchar('\n');
	}
	free(lines);
	return n;
}

/* long options without a short form */
enum {
	OPT_VM = 256, OPT_HELP, OPT_VERSION, OPT_COMPATIBLE, OPT_PROLOGUE,
	OPT_IGNORED, OPT_IGNORED_ARG, OPT_UNSUPPORTED, OPT_LDD,
	OPT_DUMP_TYPES, OPT_DUMP_ALIASES, OPT_DUMP_FUNCTIONS, OPT_GRAPH,
	OPT_VM_MEMORY, OPT_VM_CPUS, OPT_FLAME, OPT_FORMAT, OPT_TMPDIR, OPT_POISON_CACHE,
	OPT_SIGN_MODULE,
	OPT_VP, OPT_VM_KEEP, OPT_RUNTIME, OPT_BPF,
};

/* The backends built in, the default first. */
static const struct backend *const backends[] = { &module_backend,
						   &bpf_backend, NULL };

/*
 * --runtime=MODE (--bpf: --runtime=bpf): SystemTap's names; NULL, with a
 * message, for a name this build has no backend of.
 */
static const struct backend *backend_named(const char *mode)
{
	for (int i = 0; backends[i]; i++)
		if (!strcmp(backends[i]->name, mode))
			return backends[i];
	if (!strcmp(mode, "dyninst"))
		fprintf(stderr, "stap: error: --runtime=dyninst unavailable: "
			"this build has no dyninst backend (--runtime=%s, the "
			"default, builds a kernel module; --runtime=bpf runs "
			"BPF on the running kernel)\n", backends[0]->name);
	else
		fprintf(stderr, "stap: error: %s is an invalid argument for "
			"--runtime (kernel and bpf are the ones this build "
			"has)\n", mode);
	return NULL;
}

/* Print sorted unique lines; frees nothing (arena strings). */
static void print_sorted(const char **lines, int n)
{
	if (n)
		qsort(lines, (size_t)n, sizeof(*lines), name_cmp);
	for (int i = 0; i < n; i++)
		if (i == 0 || strcmp(lines[i], lines[i - 1]))
			puts(lines[i]);
}

/* A name users see: not private, not internal (_name, __name). */
static bool public_name(const char *name, bool is_private)
{
	return !is_private && name[0] != '_';
}

/*
 * --dump-probe-types: the built-in families' patterns;
 * --dump-probe-aliases: "name = points" for every public alias;
 * --dump-functions: every public function with its inferred signature.
 * The last two parse the whole library (fast: no kernel is involved).
 */
static int dump_library(struct session *s, int what)
{
	struct library lib;
	struct ast_file **files = arena_alloc(&s->arena, sizeof(*files));
	int nfiles = 0, n = 0, cap = 0;
	const char **lines = NULL;

	if (what == OPT_DUMP_TYPES) {
		sema_dump_probe_types(stdout);
		return 0;
	}
	library_load(s, &lib, s->cache_dir);
	library_load_all(s, &lib, &files, &nfiles);
	for (int f = 0; f < nfiles && what == OPT_DUMP_ALIASES; f++)
		ast_foreach(d, files[f]->decls) {
			if (d->kind != N_PROBE || !d->probe.alias)
				continue;
			ast_foreach(name, d->probe.alias_names) {
				char *buf = NULL;
				size_t len = 0;
				FILE *m = open_memstream(&buf, &len);
				ast_unparse_point(m, name);
				fputs(d->probe.alias == '+' ? " += " : " = ", m);
				ast_foreach(p, d->probe.points) {
					if (p != d->probe.points)
						fputs(", ", m);
					ast_unparse_point(m, p);
				}
				fclose(m);
				if (public_name(buf, d->probe.is_private)) {
					VEC_PUSH(lines, n, cap,
						 arena_strdup(&s->arena, buf));
				}
				free(buf);
			}
		}
	if (what == OPT_DUMP_FUNCTIONS) {
		struct program prog;
		/* type errors of functions nobody calls are not ours to show */
		s->max_errors = 0;
		s->all_functions = true;
		if (nfiles)
			sema_run(s, files, nfiles, &prog);
		else
			memset(&prog, 0, sizeof(prog));
		lines = xmalloc((size_t)(prog.nfuncs + builtin_count() + 1) *
				sizeof(*lines));
		for (int i = 0; i < prog.nfuncs; i++) {
			const struct script_func *fn = prog.funcs[i];
			if (!fn->copy_of &&
			    public_name(fn->sym->name, fn->decl->func.is_private))
				lines[n++] = sema_signature(s, fn);
		}
		/* and those the compiler provides, as SystemTap lists its
		 * own (execname, pid, exit, the string functions, ...) */
		for (int i = 0; i < builtin_count(); i++)
			lines[n++] = builtin_signature(s, i);
	}
	print_sorted(lines, n);
	free(lines);
	return 0;
}

/* The temporary directory's parent: $TMPDIR or /tmp, usable by kbuild. */
static const char *tmp_base(void)
{
	const char *t = getenv("TMPDIR");
	struct stat st;

	if (!t || !*t)
		t = "/tmp";
	if (strpbrk(t, " \t\n")) {
		fprintf(stderr, "stap: error: TMPDIR '%s' contains white space, "
			"which kbuild cannot handle\n", t);
		return NULL;
	}
	if (stat(t, &st) != 0 || !S_ISDIR(st.st_mode) || access(t, W_OK) != 0) {
		fprintf(stderr, "stap: error: TMPDIR '%s' is not a writable "
			"directory\n", t);
		return NULL;
	}
	return t;
}

/*
 * After pass 2: the backend's passes, each stopping the run after -pN or
 * on its errors. Pass 3 works in memory (-p3 prints its source); passes 4
 * and 5 in a temporary directory that goes with stap however it ends.
 */
static int passes_3_to_5(struct driver *d, struct module_run *m,
			 struct program *prog, const char *tmpbase)
{
	struct session *s = d->s;
	const struct backend *b = d->backend;
	struct pass_timer t;

	d->runtime_dir = m->runtime_opt ? m->runtime_opt :
			 find_runtime(s, d->exe_dir);
	if (m->runtime_opt && !path_exists(arena_printf(&s->arena,
						"%s/runtime.h", m->runtime_opt))) {
		fprintf(stderr, "stap: error: -R %s: no runtime.h there\n",
			m->runtime_opt);
		return 1;
	}
	m->staprun = arena_printf(&s->arena, "%s/staprun", d->exe_dir);
	if (!d->runtime_dir) {
		fprintf(stderr, "stap: error: cannot find the runtime "
			"(runtime/runtime.h); set STAP_RUNTIME\n");
		return 1;
	}
	if (b->prepare(d))
		return 1;

	/* Pass 3 */
	timer_start(&t);
	if (b->translate(d, prog)) {
		fprintf(stderr, "Pass 3: translation failed.\n");
		return 1;
	}
	timer_report(s, &t, 3, b->translated);
	if (s->last_pass == 3) {
		fwrite(d->source, 1, d->source_len, stdout);
		free(d->source);
		return 0;
	}

	char *tmpl = arena_printf(&s->arena, "%s/stapXXXXXX", tmpbase);
	if (d->tmpdir_opt) {
		/* --tmpdir: a new directory of that name, ours alone */
		tmpl = (char *)d->tmpdir_opt;
		if (mkdir(tmpl, 0700)) {
			fprintf(stderr, "stap: error: --tmpdir %s: %s\n", tmpl,
				strerror(errno));
			free(d->source);
			return 1;
		}
	} else if (!mkdtemp(tmpl)) {
		fprintf(stderr, "stap: error: cannot create a temporary "
			"directory: %s\n", strerror(errno));
		free(d->source);
		return 1;
	}
	d->tmpdir = arena_strdup(&s->arena, tmpl);
	if (tmpdir_guard(d->tmpdir, s->keep_tmpdir)) {
		fprintf(stderr, "stap: error: cannot start the watchdog of %s: "
			"%s\n", d->tmpdir, strerror(errno));
		rmdir(d->tmpdir);
		free(d->source);
		return 1;
	}
	/* gcc's own temporary files (kbuild's) go there too, and with it */
	setenv("TMPDIR", d->tmpdir, 1);
	int status = 1;

	/* Pass 4 */
	timer_start(&t);
	if (b->build(d) != 0)
		goto done;
	timer_report(s, &t, 4, b->built);
	if (s->last_pass == 4) {
		printf("%s\n", d->ko_path);
		status = 0;
		goto done;
	}

	/* Pass 5; --flame renders the folded stacks the script wrote */
	timer_start(&t);
	const char *folded = d->flame_svg ? flame_folded_path(d) : NULL;
	status = b->run(d);
	if (folded && flame_write(d, folded))
		status = 1;
	timer_report(s, &t, 5, "run completed");
done:
	if (s->keep_tmpdir)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", d->tmpdir);
	tmpdir_guard_end();
	return status;
}

/* What the command line asks for besides the session's options and the
 * run's (struct driver); then the script it names. */
struct cmdline {
	const char *script;		/* -e */
	const char *list_spec;		/* -l/-L PROBE */
	bool list_vars;
	int dump;			/* OPT_DUMP_* */
	const char **extra_scripts;	/* -E */
	int nextra, extra_cap;
	long timeout;			/* -T, in ms */
	const char *graph;		/* --graph: the generated script */
	char *text;			/* the script's text, len bytes */
	size_t len;
	const char *name;		/* its name in messages */
	bool runtime_given;		/* --runtime or --bpf */
	bool auto_backend;		/* no -r, --runtime, --vm: chosen
					 * after pass 2 (choose_backend) */
};

/* The options into s, d and c: -1 to go on, else stap's exit status
 * (--help, --version, a bad option). */
static int parse_options(struct session *s, struct driver *d,
			 struct module_run *m,
			 struct cmdline *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "vm", no_argument, NULL, OPT_VM },
		{ "runtime", required_argument, NULL, OPT_RUNTIME },
		{ "bpf", no_argument, NULL, OPT_BPF },
		{ "graph", required_argument, NULL, OPT_GRAPH },
		{ "vm-memory", required_argument, NULL, OPT_VM_MEMORY },
		{ "vm-cpus", required_argument, NULL, OPT_VM_CPUS },
		{ "vm-keep", optional_argument, NULL, OPT_VM_KEEP },
		{ "flame", required_argument, NULL, OPT_FLAME },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
		{ "poison-cache", no_argument, NULL, OPT_POISON_CACHE },
		{ "sign-module", optional_argument, NULL, OPT_SIGN_MODULE },
		{ "vp", required_argument, NULL, OPT_VP },
		{ "dump-probe-types", no_argument, NULL, OPT_DUMP_TYPES },
		{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_ALIASES },
		{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
		{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE },
		/* accepted for compatibility; they change nothing here yet */
		{ "skip-badvars", no_argument, NULL, OPT_IGNORED },
		{ "disable-cache", no_argument, NULL, OPT_IGNORED },
		{ "check-version", no_argument, NULL, OPT_IGNORED },
		{ "suppress-handler-errors", no_argument, NULL, OPT_IGNORED },
		{ "suppress-time-limits", no_argument, NULL, OPT_IGNORED },
		{ "ldd", no_argument, NULL, OPT_LDD },
		{ "all-modules", no_argument, NULL, OPT_IGNORED },
		{ "rlimit-as", required_argument, NULL, OPT_IGNORED_ARG },
		{ "rlimit-cpu", required_argument, NULL, OPT_IGNORED_ARG },
		{ "rlimit-nproc", required_argument, NULL, OPT_IGNORED_ARG },
		{ "rlimit-stack", required_argument, NULL, OPT_IGNORED_ARG },
		{ "rlimit-fsize", required_argument, NULL, OPT_IGNORED_ARG },
		{ "monitor", optional_argument, NULL, OPT_UNSUPPORTED },
		{ "interactive", no_argument, NULL, OPT_UNSUPPORTED },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	/*
	 * GNU getopt permutes, as SystemTap's does: options anywhere until
	 * "--", so "stap FILE -c CMD" works; the non-options left, in order,
	 * are the script file (unless -e) and its arguments.
	 */
	while ((opt = getopt_long(argc, argv, "p:e:E:vkguwWr:m:o:c:x:D:G:B:R:S:I:l:L:Vhs:bT:td:PiF",
				  longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': {
			char *end;
			long p = strtol(optarg, &end, 10);
			if (*end || p < 1 || p > 5) {
				fprintf(stderr, "stap: error: -p takes a pass "
					"number from 1 to 5\n");
				return 1;
			}
			s->last_pass = (int)p;
			break;
		}
		case 'e':
			if (c->script) {
				fprintf(stderr, "stap: error: only one -e script "
					"is allowed\n");
				return 1;
			}
			c->script = optarg;
			break;
		case 'W':
			s->warnings_as_errors = true;
			break;
		case 'E':
			VEC_PUSH(c->extra_scripts, c->nextra, c->extra_cap,
				 optarg);
			break;
		case 'G':
			if (!global_setting(s, optarg))
				return 1;
			break;
		case 'V':
		case OPT_VERSION:
			print_version(s);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 's':
			s->buffer_mb = (int)number_arg("-s", optarg, 1, 4095);
			break;
		case 'T':
			if (!timeout_ms(optarg, &c->timeout))
				return 1;
			break;
		case 't':
			s->timing = true;
			break;
		case 'd':
			s->unwind_objs = xrealloc(s->unwind_objs,
						  (size_t)(s->nunwind_objs + 1) *
						  sizeof(*s->unwind_objs));
			s->unwind_objs[s->nunwind_objs++] = optarg;
			break;
		case 'b': case 'P':
			break;		/* nothing to do here (--help says why) */
		case 'F':
			fprintf(stderr, "stap: error: -F (flight recorder) is not "
				"supported yet: run with -o FILE in the "
				"background instead\n");
			return 1;
		case 'S': {
			unsigned long long size;
			int keep;

			/* SystemTap 4.8's check and message */
			if (out_files_parse_size(optarg, &size, &keep)) {
				fprintf(stderr, "ERROR: Safety pattern mismatch "
					"for -S parameter ('%s' vs. "
					"'^[0-9]+(,[0-9]+)?$') rc=1\n", optarg);
				return 1;
			}
			s->size_option = optarg;
			break;
		}
		case 'B':
			if (!add_make_arg(s, m, optarg))
				return 1;
			break;
		case 'R': {
			/* kbuild runs elsewhere: an absolute path */
			char *real = realpath(optarg, NULL);
			m->runtime_opt = real ? arena_strdup(&s->arena, real) : optarg;
			free(real);
			break;
		}
		case OPT_TMPDIR:
			d->tmpdir_opt = optarg;
			break;
		case OPT_SIGN_MODULE:
			m->sign_module = true;
			m->sign_keydir = optarg;
			break;
		case OPT_POISON_CACHE:
			m->poison_cache = true;
			break;
		case OPT_VP:
			if (!pass_verbosity(s, optarg))
				return 1;
			break;
		case 'i':
			fprintf(stderr, "stap: error: interactive mode (-i) is "
				"not supported\n");
			return 1;
		case OPT_COMPATIBLE:
			s->compatible = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "stap: error: --format takes text "
					"or json, not '%s'\n", optarg);
				return 1;
			}
			s->format_json = !strcmp(optarg, "json");
			break;
		case OPT_PROLOGUE:
			if (optarg && strcmp(optarg, "always") &&
			    strcmp(optarg, "never") && strcmp(optarg, "auto")) {
				fprintf(stderr, "stap: error: --prologue-searching "
					"takes always, never or auto\n");
				return 1;
			}
			break;
		case OPT_LDD:
			s->ldd = true;
			break;
		case OPT_IGNORED:
			break;
		case OPT_IGNORED_ARG:
			number_arg("--rlimit-*", optarg, 0, 0x7fffffffL);
			break;
		case OPT_UNSUPPORTED:
			fprintf(stderr, "stap: error: %s is not supported\n",
				argv[optind - 1]);
			return 1;
		case 'v':
			s->verbose++;
			break;
		case 'k':
			s->keep_tmpdir = true;
			break;
		case 'g':
			s->guru = true;
			break;
		case 'u':
			s->unoptimized = true;
			break;
		case 'w':
			s->suppress_warnings = true;
			break;
		case 'r':
			s->release = optarg;
			break;
		case 'm':
			if (!valid_module_name(optarg)) {
				fprintf(stderr, "stap: error: invalid module name "
					"'%s' (letters, digits and '_', at most "
					"55)\n", optarg);
				return 1;
			}
			s->module_name = optarg;
			break;
		case 'o':
			s->output_file = optarg;
			break;
		case 'c':
			s->target_cmd = optarg;
			break;
		case 'x': {
			char *end;
			errno = 0;
			s->target_pid = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || s->target_pid <= 0 ||
			    s->target_pid > INT_MAX) {
				fputs("Invalid target process ID number.\n", stderr);
				return 1;
			}
			break;
		}
		case 'D':
			if (!add_define(s, optarg))
				return 1;
			break;
		case 'I':
			s->include_dirs = xrealloc(s->include_dirs,
						   (size_t)(s->ninclude_dirs + 1) *
						   sizeof(*s->include_dirs));
			s->include_dirs[s->ninclude_dirs++] = optarg;
			break;
		case 'l':
		case 'L':
			c->list_spec = optarg;
			c->list_vars = opt == 'L';
			break;
		case OPT_VM:
			m->force_vm = true;
			break;
		case OPT_RUNTIME:
		case OPT_BPF:
			c->runtime_given = true;
			d->backend = backend_named(opt == OPT_BPF ? "bpf" :
						  optarg);
			if (!d->backend)
				return 1;
			break;
		case OPT_VM_MEMORY:
			m->vm_memory_mb = (int)number_arg("--vm-memory", optarg,
							 128, 65536);
			break;
		case OPT_VM_CPUS:
			m->vm_cpus = (int)number_arg("--vm-cpus", optarg, 1, 64);
			break;
		case OPT_VM_KEEP:
			/* a guest kept: pass 5 in a guest, as with --vm */
			m->force_vm = true;
			m->vm_keep_s = optarg ? (int)number_arg("--vm-keep",
					optarg, 0, 86400) : 60;
			m->vm_keep = true;
			break;
		case OPT_FLAME:
			d->flame_svg = optarg;
			break;
		case OPT_GRAPH:
			c->graph = graph_script(s, optarg);
			if (!c->graph)
				return 1;
			break;
		case OPT_DUMP_TYPES:
		case OPT_DUMP_ALIASES:
		case OPT_DUMP_FUNCTIONS:
			c->dump = opt;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		default:
			/* getopt said what was wrong (its program name is
			 * argv[0]); the rest is SystemTap 4.8's two lines
			 * (the second's "[" "man foo]" is split so that
			 * tests/man-pages.sh takes it for no tag) */
			fputs("Try '--help' for more information. [man stap]\n"
			      "A message like [" "man foo] means for more "
			      "info, run % man foo\n", stderr);
			return 1;
		}
	}

	if (s->target_cmd && s->target_pid) {
		fprintf(stderr, "stap: error: -c and -x cannot be used together\n");
		return 1;
	}
	/* pass 2 refuses what the backend cannot run */
	s->backend = d->backend;
	if (c->runtime_given)
		s->runtime = d->backend->name;
	s->backends = backends;
	return -1;
}

/* The cache directory, checked: 0, or 1 after a message. */
static int use_cache_dir(struct session *s)
{
	/*
	 * The caches hold what is compiled into and loaded as kernel code:
	 * only a directory of the user's own on a path nobody else can
	 * change (a root user's HOME or XDG_CACHE_HOME of another user's,
	 * or a link of another user's on the way, is refused: lib/files.h).
	 */
	s->cache_dir = cache_dir(&s->arena);
	if (s->cache_dir) {
		char why[4400];
		char *checked = cache_dir_resolve(s->cache_dir, why,
						  sizeof(why));

		if (!checked) {
			fprintf(stderr, "stap: error: cache directory %s: %s "
				"(STAP_CACHE chooses another)\n", s->cache_dir,
				why);
			return 1;
		}
		/* the path checked, not the one given: a symbolic link
		 * on the way, changed later, changes nothing */
		s->cache_dir = arena_strdup(&s->arena, checked);
		free(checked);
		if (s->verbose > 1)
			fprintf(stderr, "stap: caches in %s\n", s->cache_dir);
	} else if (s->verbose) {
		fprintf(stderr, "stap: no home directory: caches off\n");
	}
	return 0;
}

/* The script, read whole into c->text (an empty one for -l, -L and the
 * dumps), and its arguments: 0, or 1 after a message. */
static int read_script(struct session *s, struct driver *d,
		       struct cmdline *c, int argc, char **argv)
{
	/* The script: -e, a file, or - for stdin; the rest are $1... */
	const char *file = NULL;
	if (d->flame_svg)
		flame_setup(s, d, &c->script, optind >= argc);
	if (c->graph && !c->script && optind >= argc)
		c->script = c->graph;		/* the whole script */
	else if (c->graph)
		VEC_PUSH(c->extra_scripts, c->nextra, c->extra_cap, c->graph);
	if (!c->script && !c->list_spec && !c->dump) {
		if (optind >= argc) {
			fprintf(stderr, "stap: error: no script given (a file, "
				"-e SCRIPT or -)\n");
			usage(stderr);
			return 1;
		}
		file = argv[optind++];
	}
	s->script_args = argv + optind;
	s->nscript_args = argc - optind;

	/* a script is read whole before pass 1: SCRIPT_MAX_BYTES bounds it */
	const size_t script_max = SCRIPT_MAX_BYTES;
	if (c->list_spec || c->dump) {
		c->text = xstrdup("");
		c->len = 0;
		c->name = "<input>";
	} else if (c->script) {
		c->text = xstrdup(c->script);
		c->len = strlen(c->text);
		c->name = "<input>";
	} else {
		bool in = strcmp(file, "-") == 0;

		c->text = in ? read_stream_max(stdin, script_max, &c->len) :
			    read_file_max(file, script_max, &c->len);
		if (!c->text && errno == EFBIG) {
			fprintf(stderr, "stap: error: script '%s' is larger "
				"than %zu MiB, the limit\n",
				in ? "<stdin>" : file, script_max >> 20);
			return 1;
		}
		if (!c->text) {
			fprintf(stderr, "stap: error: cannot read '%s': %s\n",
				in ? "<stdin>" : file, strerror(errno));
			return 1;
		}
		c->name = in ? "<input>" : file;
	}
	return 0;
}

/* -x PID where the run would go to a guest: the error (1). why: what
 * kept the run off the BPF backend (the auto choice), or NULL. */
static int target_pid_in_guest(struct session *s, const struct module_run *m,
			       const char *why)
{
	fprintf(stderr, "stap: error: -x %ld: the script would run in a "
		"qemu guest (%s), which has no process of this host; "
		"use -c CMD to run CMD in the guest as the target\n",
		s->target_pid, m->force_vm ? "--vm" :
		why ? arena_printf(&s->arena, "the host cannot load modules "
				   "and the bpf backend cannot run %s", why) :
		m->host_refusal ? arena_printf(&s->arena, "the host "
					      "cannot load modules: %s",
					      m->host_refusal) :
		arena_printf(&s->arena, "%s is not the running "
			     "kernel", s->release));
	return 1;
}

/* The target kernel, and whether pass 5 runs in a guest of it: 0, or 1
 * after a message. */
static int choose_kernel(struct session *s, struct driver *d,
			 struct module_run *m, struct cmdline *c)
{
	/*
	 * The target kernel (the preprocessor's kernel_v and CONFIG_* need
	 * it): -r, else the host when it can load modules, else the newest
	 * installed Debian kernel (run in a guest). Passes 1 and 2 work
	 * without one.
	 */
	bool host_ok = vm_host_can_load_modules(&m->host_refusal,
						 m->sign_module);
	c->auto_backend = !c->runtime_given && !s->release && !m->force_vm &&
			  s->last_pass >= 5 && !c->list_spec && !c->dump;
	bool release_given = s->release != NULL;
	if (!s->release) {
		struct utsname u;
		if (host_ok && uname(&u) == 0)
			s->release = arena_strdup(&s->arena, u.release);
		else
			s->release = target_newest_installed();
	}
	if (!s->release && s->last_pass >= 3) {
		fprintf(stderr, "stap: error: no kernel to build for: install "
			"linux-image-cloud-amd64 and linux-headers-cloud-amd64, "
			"or give -r\n");
		return 1;
	}
	if (s->release) {
		s->target = target_new(s->release, NULL);
		target_set_cache_dir(s->target, s->cache_dir);
		s->build_dir = s->target->build_dir;
	}
	m->use_vm = m->force_vm || !host_ok;
	/*
	 * BPF runs on the running kernel; with -r of another kernel, or
	 * --vm, it is built against that kernel's BTF and run in a guest of
	 * it (-r alone keeps meaning the module backend: --runtime decides
	 * the backend, -r the kernel).
	 */
	if (d->backend == &bpf_backend) {
		struct utsname u;
		m->use_vm = false;
		if (s->target && (m->force_vm ||
		    (release_given && uname(&u) == 0 &&
		     strcmp(u.release, s->release) != 0)))
			bpf_set_guest_kernel(s->target);
		if (bpf_in_guest() && s->target_pid && s->last_pass >= 5 &&
		    !c->dump && !c->list_spec) {
			fprintf(stderr, "stap: error: -x %ld: the script would "
				"run in a qemu guest of %s, which has no process "
				"of this host; use -c CMD to run CMD in the guest "
				"as the target\n", s->target_pid, s->release);
			return 1;
		}
		struct vm_options shared = { 0 };
		if (bpf_in_guest() && s->last_pass >= 5 && !c->dump &&
		    !c->list_spec && !vm_host_shared(&shared)) {
			fprintf(stderr, "stap: error: the bpf backend in a guest "
				"of %s needs this machine's files in it (virtio-fs: "
				"root, and virtiofsd): its loader and libbpf are "
				"there\n", s->release);
			return 1;
		}
		if (bpf_in_guest() && m->vm_keep && s->last_pass >= 5)
			fprintf(stderr, "stap: --vm-keep keeps a guest for the "
				"kernel backend only: booting one for this "
				"run\n");
		return 0;
	}
	if (!m->use_vm && s->release) {
		struct utsname u;
		if (uname(&u) == 0 && strcmp(u.release, s->release) != 0)
			m->use_vm = true;	/* another kernel: run it in a guest */
	}

	/*
	 * -x PID names a process of this host; a guest has none of them
	 * (its own processes are busybox, the loader and -c's command).
	 * Said before passes 1-4 rather than after the build.
	 */
	if (s->target_pid && m->use_vm && s->last_pass >= 5 && !c->dump &&
	    !c->list_spec && !c->auto_backend)
		return target_pid_in_guest(s, m, NULL);
	return 0;
}

/*
 * A run with no -r, no --runtime and no --vm goes where the user is: the
 * module backend where the running kernel loads modules; else the BPF
 * backend on the running kernel when it runs every probe of the script
 * (pass 2 elaborated it for the module backend, which refuses nothing, so
 * the BPF backend is asked here); else a guest. -v says which and why.
 */
static int choose_backend(struct session *s, struct driver *d,
			   struct module_run *m, const struct cmdline *c,
			   struct program *prog)
{
	const char *why = NULL, *pp = NULL;

	if (!c->auto_backend)
		return 0;
	if (!m->use_vm) {
		if (s->verbose)
			fprintf(stderr, "stap: the kernel backend on the "
				"running kernel %s (it loads modules)\n",
				s->release);
		return 0;
	}
	if (geteuid() != 0)
		why = "BPF needs root";
	else if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		why = "the running kernel has no BTF";
	else
		why = bpf_defines_refusal(s);
	for (int i = 0; !why && i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		if (backend_skips(&bpf_backend, prog, dp))
			continue;
		why = bpf_backend.refuses(dp);
		pp = dp->pp;
	}
	if (!why) {
		backend_drop_skipped(s, prog, &bpf_backend);
		d->backend = s->backend = &bpf_backend;
		m->use_vm = false;
		if (s->verbose)
			fprintf(stderr, "stap: the bpf backend on the running "
				"kernel (it cannot load modules: %s)\n",
				m->host_refusal ? m->host_refusal : "refused");
		return 0;
	}
	const char *what = arena_printf(&s->arena, "%s%s%s", pp ? "probe " :
					"this: ", pp ? pp : why, pp ?
					arena_printf(&s->arena, ": %s", why) :
					"");
	/* -x names a process of this host, which a guest does not have */
	if (s->target_pid)
		return target_pid_in_guest(s, m, what);
	if (s->verbose)
		fprintf(stderr, "stap: the kernel backend in a guest: the bpf "
			"backend cannot run %s\n", what);
	return 0;
}

/* Everything but the session's lifetime, so every exit path frees it. */
static int stap_main(struct session *s, int argc, char **argv)
{
	struct driver d = { .s = s, .backend = backends[0] };
	/* the module backend's options, parsed whatever --runtime says, as
	 * SystemTap parses them; its own part of the run when chosen */
	struct module_run mrun = { 0 };
	struct cmdline c = { 0 };
	int rc = parse_options(s, &d, &mrun, &c, argc, argv);

	if (rc >= 0)
		return rc;
	const char *tmpbase = tmp_base();
	if (!tmpbase || use_cache_dir(s) ||
	    read_script(s, &d, &c, argc, argv) ||
	    choose_kernel(s, &d, &mrun, &c))
		return 1;

	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	d.exe_dir = dir_of(s, n > 0 ? exe : argv[0]);

	set_tapset_path(s, d.exe_dir);
	if (c.dump) {
		free(c.text);
		library_load_macros(s);
		return dump_library(s, c.dump);
	}
	if (c.list_spec) {
		free(c.text);
		library_load_macros(s);
		if (list_points(s, c.list_spec, c.list_vars) > 0)
			return 0;
		/* SystemTap is silent here; an empty list reads as a hang */
		fprintf(stderr, "stap: no probe point matches '%s'\n",
			c.list_spec);
		return 1;
	}

	/* Pass 1: the library's macro files, then the script */
	struct pass_timer t;
	timer_start(&t);
	library_load_macros(s);
	/* SystemTap reads the whole library in pass 1: its syntax errors
	 * show even with -p1 (as warnings; -W makes them errors) */
	struct library lib;
	library_load(s, &lib, s->cache_dir);
	/* the script, then each -E script as <input1>, <input2>... */
	int nfiles = 1 + c.nextra, nuser = nfiles;
	/* library_resolve() grows the array at each power of two */
	size_t files_cap = 1;
	while (files_cap < (size_t)nfiles + 1)
		files_cap <<= 1;
	struct ast_file **files = arena_alloc(&s->arena, files_cap *
					      sizeof(*files));
	int fid = session_add_source(s, c.name, c.text, c.len, false);
	free(c.text);
	files[0] = parse_source(s, fid);
	if (!files[0]->decls && !s->nerrors)
		diag_error(s, (struct srcloc){ .file = fid, .line = 1, .col = 1 },
			   "the script has no "
			   "probes, functions or globals");
	for (int i = 0; i < c.nextra; i++) {
		const char *extra_name = arena_printf(&s->arena, "<input%d>", i + 1);
		fid = session_add_source(s, extra_name, c.extra_scripts[i],
					 strlen(c.extra_scripts[i]), false);
		files[1 + i] = parse_source(s, fid);
	}
	free(c.extra_scripts);
	timer_report(s, &t, 1, "parsed user script");
	if (s->nerrors) {
		fprintf(stderr, "Pass 1: parse failed.\n");
		return 1;
	}
	if (s->last_pass == 1) {
		fputs("# parse tree dump\n", stdout);
		for (int i = 0; i < nuser; i++)
			ast_unparse_file(stdout, s, files[i]);
		return 0;
	}
	if (c.timeout) {
		/* -T: SystemTap's own way, a probe that ends the script */
		const char *end_probe = arena_printf(&s->arena,
			"probe timer.ms(%ld) { exit() }\n", c.timeout);
		fid = session_add_source(s, "<timeout>", end_probe,
					 strlen(end_probe), false);
		files[nfiles++] = parse_source(s, fid);
	}

	/* Pass 2: the library files the script needs, then elaboration */
	timer_start(&t);
	struct program prog;
	library_resolve(s, &lib, &files, &nfiles);
	if (!s->nerrors)
		sema_run(s, files, nfiles, &prog);
	timer_report(s, &t, 2, "analyzed script");
	if (!s->nerrors && !check_global_settings(s, &prog))
		return 1;
	if (s->nerrors) {
		fprintf(stderr, "Pass 2: analysis failed.\n");
		return 1;
	}
	if (s->last_pass == 2) {
		sema_dump(stdout, &prog);
		return 0;
	}

	if (choose_backend(s, &d, &mrun, &c, &prog))
		return 1;
	struct bpf_run brun = {
		.vm_memory_mb = mrun.vm_memory_mb,
		.vm_cpus = mrun.vm_cpus,
		.forced = mrun.force_vm,
	};
	d.own = d.backend == &module_backend ? (void *)&mrun :
		d.backend == &bpf_backend ? (void *)&brun : NULL;
	return passes_3_to_5(&d, &mrun, &prog, tmpbase);
}

int main(int argc, char **argv)
{
	struct session s;

	session_init(&s);
	int rc = stap_main(&s, argc, argv);
	session_free(&s);
	return rc;
}
