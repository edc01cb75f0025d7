// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line's values: --help's text, and the checks and meanings
 * of the options that are more than a flag (-D and -G with SystemTap's
 * safety patterns, -T, -x, numbers) and of those that make a script
 * (--graph, --flame). stap/main.c parses the line and runs the passes.
 */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/semantic.h"
#include "semantic/backend.h"
#include "module/backend.h"
#include "flame/flame.h"
#include "stap/options.h"

void usage(FILE *out)
{
	fputs("Usage: stap [OPTIONS] FILE.stp [ARGS...]     run the script in FILE\n"
	      "   or: stap [OPTIONS] -e SCRIPT [ARGS...]     run the given script\n"
	      "   or: stap [OPTIONS] - [ARGS...]             run the script on stdin\n"
	      "   or: stap [OPTIONS] -l PROBE                list matching probes\n"
	      "   or: stap [OPTIONS] -L PROBE                ... and their variables\n"
	      "   or: stap --dump-probe-types | --dump-probe-aliases | --dump-functions\n"
	      "\n"
	      "Options may come before or after the script, as with SystemTap;\n"
	      "the non-options after the script are its arguments ($1, @1, $#).\n"
	      "\n"
	      "  --             end of options: what follows is the script and its\n"
	      "                 arguments, even if it starts with '-'\n"
	      "  -h, --help     this text\n"
	      "  -V, --version  the version\n"
	      "  -p N           stop after pass N: 1 parse, 2 elaborate, 3 translate,\n"
	      "                 4 build the module, 5 run (default)\n"
	      "  -v             report each pass and its time (repeat for more)\n"
	      "  -k             keep the temporary directory\n"
	      "  -u             no elision of unused code\n"
	      "  -w             suppress warnings\n"
	      "  -W             turn warnings into errors\n"
	      "  -g             guru mode (embedded C, writing $variables)\n"
	      "  -e SCRIPT      run SCRIPT given on the command line\n"
	      "  -E SCRIPT      run SCRIPT as well as the main script (repeatable)\n"
	      "  -l PROBE       list the probe points PROBE matches\n"
	      "  -L PROBE       ... with their context variables\n"
	      "  -I DIR         look in DIR for tapsets too\n"
	      "  -D NAME[=VAL]  define NAME for the module build (MAXACTION=...)\n"
	      "  -G VAR=VAL     set the script's global VAR to VAL when it loads\n"
	      "  -r RELEASE     build for this kernel release\n"
	      "  -m NAME        module name; with -p4 the .ko is copied here\n"
	      "  -o FILE        send the script's output to FILE (switch_file():\n"
	      "                 FILE.1, FILE.2 ...)\n"
	      "  -S SIZE[,N]    with -o: FILE.0, FILE.1 ..., the next one started\n"
	      "                 past SIZE MB; keep the last N\n"
	      "  -c CMD         run CMD once the probes are armed; exit when it ends\n"
	      "  -x PID         set target() to PID\n"
	      "  -T SECONDS     end the script (end probes run) after SECONDS\n"
	      "  -B NAME=VALUE  pass NAME=VALUE to kbuild's make\n"
	      "  -R DIR         the runtime (runtime.h) in DIR\n"
	      "  --tmpdir=DIR   the temporary directory (created; kept with -k)\n"
	      "  --poison-cache build the module even if it is cached\n"
	      "  --sign-module[=KEYDIR]\n"
	      "                 sign the module (for kernels that enforce signatures)\n"
	      "                 with the key in KEYDIR (default: made in the cache)\n"
	      "  --vp ABCDE     verbosity per pass; here the largest, for all\n"
	      "  -s MB          per-CPU output buffer in MiB (rounded up to a power\n"
	      "                 of two; default 1)\n"
	      "  -t             report each probe's hits and cycles at the end\n"
	      "  -d OBJECT      carry OBJECT's (a program's or library's) symbols\n"
	      "                 and unwind tables for user stacks and symbols\n"
	      "  --ldd          and those of the shared libraries the -d objects,\n"
	      "                 process(\"PATH\") programs and -c's program need\n"
	      "  -P, -b         accepted for SystemTap scripts; no effect here\n"
	      "                 (function probes are at the entry, the output is\n"
	      "                 always per CPU)\n"
	      "  -F, -i, --monitor\n"
	      "                 refused: not supported yet\n"
	      "  --compatible=VERSION\n"
	      "                 the SystemTap language version to follow\n"
	      "  --prologue-searching[=always|never|auto]\n"
	      "                 accepted; function probes are at the entry here\n"
	      "  --dump-probe-types, --dump-probe-aliases, --dump-functions\n"
	      "                 list the probe families, the library's aliases, "
	      "its functions\n"
	      "  --graph PATTERN\n"
	      "                 no script needed: a function graph (ftrace's\n"
	      "                 function_graph layout) of kernel.function(PATTERN)\n"
	      "  --flame FILE.svg\n"
	      "                 a flame graph: no script needed (kernel stacks of\n"
	      "                 timer.profile, of the -c/-x target if any); with a\n"
	      "                 script, its output (flame_print()'s folded stacks)\n"
	      "  --format=text|json\n"
	      "                 json: the end-of-run display of written-only\n"
	      "                 globals as JSON lines (as @json_print prints them)\n"
	      "  --runtime=kernel|bpf, --bpf\n"
	      "                 the backend: a kernel module, or BPF on the running\n"
	      "                 kernel (with -r of another, or --vm: in a guest of\n"
	      "                 it); pass 2 says what BPF cannot run\n"
	      "  --vm           run pass 5 in a qemu guest of the target kernel\n"
	      "                 (busybox and the loader: -c runs busybox commands)\n"
	      "  --vm-memory MB, --vm-cpus N\n"
	      "                 the guest's memory (default 512) and CPUs (default 1)\n"
	      "  --vm-keep[=SECONDS]\n"
	      "                 run in a guest kept up between runs (booted by the\n"
	      "                 first, reused by the next ones of the same kernel,\n"
	      "                 memory and CPUs), powered off SECONDS (default 60)\n"
	      "                 after its last job; implies --vm\n"
	      "  --skip-badvars, --disable-cache, --check-version,\n"
	      "  --suppress-handler-errors, --suppress-time-limits, --all-modules,\n"
	      "  --rlimit-{as,cpu,nproc,stack,fsize}=N\n"
	      "                 accepted for SystemTap scripts; no effect here\n",
	      out);
}

/*
 * -D NAME[=VALUE]: SystemTap's safety pattern (case-insensitive). The
 * definition goes into the module's Kbuild file, where anything else
 * could run a command ($(shell ...)) or add compiler flags (a quote).
 */
#define DEFINE_PATTERN "^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?$"

static bool safe_define(const char *def)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, DEFINE_PATTERN, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		return false;
	ok = regexec(&re, def, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

/* One more -D for the module build. */
static void append_define(struct session *s, const char *name,
			  const char *value)
{
	s->defines = xrealloc(s->defines, (size_t)(s->ndefines + 1) *
			      sizeof(*s->defines));
	s->defines[s->ndefines++] = (struct define_opt){ name, value };
}

/* -D NAME[=VALUE], checked; false (with SystemTap's message) if unsafe. */
bool add_define(struct session *s, const char *arg)
{
	if (!safe_define(arg)) {
		fprintf(stderr, "ERROR: Safety pattern mismatch for -D parameter "
			"('%s' vs. '%s') rc=1\n", arg, DEFINE_PATTERN);
		return false;
	}
	const char *eq = strchr(arg, '=');
	append_define(s, eq ? arena_strndup(&s->arena, arg, (size_t)(eq - arg)) :
		      arg, eq ? eq + 1 : NULL);
	return true;
}

bool valid_module_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 55)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(name[i] == '_' || (name[i] >= '0' && name[i] <= '9') ||
		      (name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= 'A' && name[i] <= 'Z')))
			return false;
	return !(name[0] >= '0' && name[0] <= '9');
}

/* A positive number option (-s, -T, --rlimit-*): exits on a bad value. */
long number_arg(const char *opt, const char *arg, long min, long max)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < min || v > max) {
		fprintf(stderr, "stap: error: %s takes a number from %ld to %ld, "
			"not '%s'\n", opt, min, max, arg);
		exit(1);
	}
	return v;
}

/*
 * -G VAR=VALUE: SystemTap's safety pattern, since the value reaches the
 * module's parameters; the type is checked against the global after pass 2.
 */
#define GLOBAL_PATTERN "^[a-z_][a-z0-9_]*=[a-z0-9_.-]+$"

bool global_setting(struct session *s, const char *arg)
{
	regex_t re;
	bool ok = false;

	if (!regcomp(&re, GLOBAL_PATTERN, REG_EXTENDED | REG_ICASE | REG_NOSUB)) {
		ok = regexec(&re, arg, 0, NULL, 0) == 0;
		regfree(&re);
	}
	if (!ok) {
		fprintf(stderr, "ERROR: Safety pattern mismatch for -G parameter "
			"('%s' vs. '%s') rc=1\n", arg, GLOBAL_PATTERN);
		return false;
	}
	const char *eq = strchr(arg, '=');
	struct define_opt *g;
	s->global_settings = xrealloc(s->global_settings,
				      (size_t)(s->nglobal_settings + 1) *
				      sizeof(*s->global_settings));
	g = &s->global_settings[s->nglobal_settings++];
	g->name = arena_strndup(&s->arena, arg, (size_t)(eq - arg));
	g->value = eq + 1;
	return true;
}

/*
 * After pass 2: each -G names a scalar global the program keeps, with a
 * value of its type. SystemTap finds these only when the module refuses
 * its parameters at load; here they are errors before the build.
 */
bool check_global_settings(struct session *s, struct program *prog)
{
	bool ok = true;

	for (int i = 0; i < s->nglobal_settings; i++) {
		const struct define_opt *g = &s->global_settings[i];
		const struct symbol *sym = NULL;
		for (int k = 0; k < prog->nglobals && !sym; k++)
			if (!strcmp(prog->globals[k]->name, g->name) &&
			    prog->globals[k]->cname == prog->globals[k]->name)
				sym = prog->globals[k];
		if (!sym) {
			fprintf(stderr, "stap: error: -G %s=%s: no global '%s' "
				"in the script%s\n", g->name, g->value, g->name,
				s->unoptimized ? "" : " (or it is never used)");
			ok = false;
		} else if (sym->nkeys || sym->type == TY_STATS) {
			fprintf(stderr, "stap: error: -G %s=%s: '%s' is an "
				"array or statistic; -G sets numbers and "
				"strings\n", g->name, g->value, g->name);
			ok = false;
		} else if (sym->type == TY_LONG) {
			char *end;
			errno = 0;
			(void)strtoll(g->value, &end, 0);
			if (*end || errno) {
				fprintf(stderr, "stap: error: -G %s=%s: '%s' "
					"is a number, and '%s' is not one\n",
					g->name, g->value, g->name, g->value);
				ok = false;
			}
		}
	}
	return ok;
}

/*
 * -B NAME=VALUE: an assignment on kbuild's make command line (no shell
 * runs it, but make expands $(...) in a value, and a NAME like CC picks
 * the compiler: a name and a plain value only, as -D takes).
 */
bool add_make_arg(struct session *s, struct module_run *m, const char *arg)
{
	const char *eq = strchr(arg, '=');
	bool ok = eq && eq > arg && !strpbrk(eq + 1, "$`'\"\\ \t\n");

	for (const char *p = arg; ok && p < eq; p++)
		ok = *p == '_' || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= 'a' && *p <= 'z') || (p > arg && *p >= '0' && *p <= '9');
	if (!ok) {
		fprintf(stderr, "stap: error: -B takes NAME=VALUE for kbuild's "
			"make (a name, and a value without $, quotes, "
			"backslashes or blanks), not '%s'\n", arg);
		return false;
	}
	/* a few at most: a new array in the arena each time */
	char **args = arena_alloc(&s->arena, (size_t)(m->nmake_args + 1) *
				  sizeof(*args));
	if (m->nmake_args)
		memcpy(args, m->make_args, (size_t)m->nmake_args * sizeof(*args));
	args[m->nmake_args++] = (char *)arg;
	m->make_args = args;
	return true;
}

/*
 * --vp ABCDE: SystemTap's verbosity per pass (a digit each for passes
 * 1-5). This driver has one verbosity for all passes: the largest.
 */
bool pass_verbosity(struct session *s, const char *arg)
{
	size_t n = strlen(arg);

	if (!n || n > 5 || strspn(arg, "0123456789") != n) {
		fprintf(stderr, "stap: error: --vp takes up to five digits, one "
			"per pass, not '%s'\n", arg);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (arg[i] - '0' > s->verbose)
			s->verbose = arg[i] - '0';
	return true;
}

/* -T SECONDS (fractions too): the timer.ms period of the ending probe. */
bool timeout_ms(const char *arg, long *ms)
{
	char *end;
	double sec = strtod(arg, &end);

	if (!*arg || *end || !(sec * 1000 >= 1) || sec * 1000 > 1e9) {
		fputs("Invalid timeout interval.\n", stderr);
		return false;
	}
	*ms = (long)(sec * 1000 + 0.5);
	return true;
}

/*
 * --graph PATTERN: the script of function_graph.stp for the kernel
 * functions PATTERN names (any kernel.function pattern, "vfs_*" or a
 * source file's functions); -p1 prints it.
 */
const char *graph_script(struct session *s, const char *pattern)
{
	if (!*pattern || strpbrk(pattern, "\"\\\n")) {
		fprintf(stderr, "stap: error: --graph takes a kernel function "
			"pattern without quotes, backslashes or newlines, "
			"not '%s'\n", pattern);
		return NULL;
	}
	return arena_printf(&s->arena,
		"probe kernel.function(\"%s\").call { fgraph_entry() }\n"
		"probe kernel.function(\"%s\").return { fgraph_return() }\n",
		pattern, pattern);
}

/* A -D the driver adds unless the user gave NAME. */
static void default_define(struct session *s, const char *name,
			   const char *value)
{
	for (int i = 0; i < s->ndefines; i++)
		if (!strcmp(s->defines[i].name, name))
			return;
	append_define(s, name, value);
}

/*
 * --flame FILE.svg: the script's output is folded stacks (flame.stp's
 * flame_print()), rendered into FILE when the run ends. Without a script,
 * flame.stp's profile of kernel stacks (of the target set with -c or -x).
 * The end probe prints every stack at once while the loader waits for
 * it: room for them in the ring and in the end probe's action budget.
 */
void flame_setup(struct session *s, struct driver *d,
			const char **script, bool no_file)
{
	if (!*script && no_file)
		*script = "probe timer.profile {\n"
			  "  if (!target() || target_set_pid(pid()))\n"
			  "    flame_sample()\n"
			  "}\n"
			  "probe end { flame_print() }\n";
	if (!s->buffer_mb)
		s->buffer_mb = 8;
	default_define(s, "MAXACTION_INTERRUPTIBLE", "1000000");
	d->flame_title = s->target_cmd ?
		arena_printf(&s->arena, "stap --flame -c '%s'", s->target_cmd) :
		"stap --flame";
}

const char *flame_folded_path(struct driver *d)
{
	struct session *s = d->s;

	/* the stacks go to -o FILE if given, else a file of ours */
	if (!s->output_file)
		s->output_file = arena_printf(&s->arena, "%s/flame.folded",
					      d->tmpdir);
	return s->output_file;
}

int flame_write(struct driver *d, const char *folded_path)
{
	struct flame_options opt = { .title = d->flame_title };
	struct flame_result res;
	FILE *in = fopen(folded_path, "re");
	FILE *out = in ? fopen(d->flame_svg, "we") : NULL;
	int rc = in && out ? flame_render(in, out, &opt, &res) : -1;

	if (out && fclose(out) && rc == 0) {
		snprintf(res.error, sizeof(res.error), "%s", strerror(errno));
		rc = -1;
	}
	if (in)
		fclose(in);
	if (!in || !out) {
		fprintf(stderr, "stap: error: --flame: cannot %s %s: %s\n",
			in ? "write" : "read", in ? d->flame_svg : folded_path,
			strerror(errno));
		return 1;
	}
	if (rc) {
		fprintf(stderr, "stap: error: --flame: %s\n", res.error);
		return 1;
	}
	fprintf(stderr, "stap: flame graph of %llu samples in %lu stacks "
		"written to %s%s\n", res.samples, res.stacks, d->flame_svg,
		res.skipped ? " (lines that are not folded stacks skipped)" : "");
	return 0;
}

void print_version(const struct session *s)
{
	printf("stap (SystemTap-compatible probe compiler) " PACKAGE_VERSION
	       "\nlanguage and tapsets of SystemTap %s\n", s->compatible);
}

