// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stap: options, then passes 1 to 5 in order, stopping after -pN or after
 * a pass that reported errors. Exit status: 0 success, 1 any error.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "parser/parser.h"
#include "semantic/semantic.h"
#include "stap/driver.h"
#include "stap/vm.h"

static void usage(FILE *out)
{
	fputs("Usage: stap [OPTIONS] FILE.stp [ARGS...]\n"
	      "       stap [OPTIONS] -e SCRIPT [ARGS...]\n"
	      "       stap [OPTIONS] - [ARGS...]        (script on stdin)\n"
	      "\n"
	      "Options:\n"
	      "  -e SCRIPT      run SCRIPT given on the command line\n"
	      "  -p N           stop after pass N: 1 parse, 2 elaborate, 3 translate,\n"
	      "                 4 build the module, 5 run (default)\n"
	      "  -v             report each pass and its time (repeat for more)\n"
	      "  -k             keep the temporary directory\n"
	      "  -g             guru mode (embedded C)\n"
	      "  -u             no elision of unused code\n"
	      "  -w             suppress warnings\n"
	      "  -r RELEASE     build for this kernel release\n"
	      "  -m NAME        module name; with -p4 the .ko is copied here\n"
	      "  -o FILE        send the script's output to FILE\n"
	      "  -c CMD         run CMD once the probes are armed; exit when it ends\n"
	      "  -x PID         set target() to PID\n"
	      "  -D NAME[=VAL]  define NAME for the module build (MAXACTION=...)\n"
	      "  -I DIR         add a tapset directory\n"
	      "  --vm           run pass 5 in a qemu guest of the target kernel\n"
	      "  --help         this text\n"
	      "  --version      the version\n", out);
}

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

static char *read_stream(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);

	for (;;) {
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		if (got == 0)
			break;
		n += got;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path);
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

static bool valid_module_name(const char *name)
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

static const char *kernel_build_dir(struct session *s, const char *release)
{
	const char *a = arena_printf(&s->arena, "/lib/modules/%s/build", release);
	const char *b = arena_printf(&s->arena, "/usr/src/linux-headers-%s", release);

	if (path_exists(arena_printf(&s->arena, "%s/Makefile", a)))
		return a;
	if (path_exists(arena_printf(&s->arena, "%s/Makefile", b)))
		return b;
	return NULL;
}

enum { OPT_VM = 256, OPT_HELP, OPT_VERSION };

int main(int argc, char **argv)
{
	struct session sess;
	struct session *s = &sess;
	struct driver d = { .s = s };
	const char *script = NULL;	/* -e */
	static const struct option longopts[] = {
		{ "vm", no_argument, NULL, OPT_VM },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	session_init(s);
	while ((opt = getopt_long(argc, argv, "+p:e:vkguwr:m:o:c:x:D:I:l:L:",
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
			script = optarg;
			break;
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
		case 'x':
			s->target_pid = strtol(optarg, NULL, 10);
			break;
		case 'D': {
			s->defines = xrealloc(s->defines, (size_t)(s->ndefines + 1) *
					      sizeof(*s->defines));
			char *eq = strchr(optarg, '=');
			struct define_opt *dopt = &s->defines[s->ndefines++];
			dopt->name = eq ? arena_strndup(&s->arena, optarg,
							(size_t)(eq - optarg)) : optarg;
			dopt->value = eq ? eq + 1 : NULL;
			if (!valid_module_name(dopt->name)) {
				fprintf(stderr, "stap: error: invalid -D name "
					"'%s'\n", dopt->name);
				return 1;
			}
			break;
		}
		case 'I':
			/* tapset directories arrive with the tapset library */
			break;
		case 'l':
		case 'L':
			fprintf(stderr, "stap: error: -%c (listing probe points) "
				"is not supported yet\n", opt);
			return 1;
		case OPT_VM:
			d.force_vm = true;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("stap (SystemTap-compatible probe compiler) "
			       PACKAGE_VERSION "\n");
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}

	/* The script: -e, a file, or - for stdin; the rest are $1... */
	const char *file = NULL;
	if (!script) {
		if (optind >= argc) {
			fprintf(stderr, "stap: error: no script given (a file, "
				"-e SCRIPT or -)\n");
			usage(stderr);
			return 1;
		}
		file = argv[optind++];
	}
	if (optind < argc && strcmp(argv[optind], "--") == 0)
		optind++;
	s->script_args = argv + optind;
	s->nscript_args = argc - optind;

	char *text;
	size_t len;
	const char *name;
	if (script) {
		text = xstrdup(script);
		len = strlen(text);
		name = "<input>";
	} else if (strcmp(file, "-") == 0) {
		text = read_stream(stdin, &len);
		name = "<input>";
	} else {
		text = read_file(file, &len);
		if (!text) {
			fprintf(stderr, "stap: error: cannot read '%s': %s\n",
				file, strerror(errno));
			return 1;
		}
		name = file;
	}

	/* Pass 1 */
	struct pass_timer t;
	timer_start(&t);
	int fid = session_add_source(s, name, text, len, false);
	free(text);
	struct ast_file *af = parse_source(s, fid);
	timer_report(s, &t, 1, "parsed user script");
	if (s->nerrors) {
		fprintf(stderr, "Pass 1: parse failed.\n");
		return 1;
	}
	if (s->last_pass == 1) {
		fputs("# parse tree dump\n", stdout);
		ast_unparse_file(stdout, s, af);
		return 0;
	}

	/* Pass 2 */
	timer_start(&t);
	struct program prog;
	sema_run(s, &af, 1, &prog);
	timer_report(s, &t, 2, "analyzed script");
	if (s->nerrors) {
		fprintf(stderr, "Pass 2: analysis failed.\n");
		return 1;
	}
	if (s->last_pass == 2) {
		sema_dump(stdout, &prog);
		return 0;
	}

	/* The target kernel: -r, else the host when it can load modules,
	 * else the newest installed Debian kernel (run in a guest). */
	bool host_ok = vm_host_can_load_modules();
	if (!s->release) {
		struct utsname u;
		if (host_ok && uname(&u) == 0) {
			s->release = arena_strdup(&s->arena, u.release);
		} else {
			s->release = vm_default_release();
			if (!s->release) {
				fprintf(stderr, "stap: error: no kernel to build "
					"for: install linux-image-cloud-amd64 and "
					"linux-headers-cloud-amd64, or give -r\n");
				return 1;
			}
		}
	}
	s->build_dir = kernel_build_dir(s, s->release);
	d.use_vm = d.force_vm || !host_ok;
	if (!d.use_vm) {
		struct utsname u;
		if (uname(&u) == 0 && strcmp(u.release, s->release) != 0)
			d.use_vm = true;	/* another kernel: run it in a guest */
	}

	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	d.exe_dir = dir_of(n > 0 ? exe : argv[0]);
	d.runtime_dir = find_runtime(s, d.exe_dir);
	d.staprun = arena_printf(&s->arena, "%s/staprun", d.exe_dir);
	if (!d.runtime_dir) {
		fprintf(stderr, "stap: error: cannot find the runtime "
			"(runtime/runtime.h); set STAP_RUNTIME\n");
		return 1;
	}

	/* Pass 3 */
	timer_start(&t);
	char *csrc = NULL;
	size_t clen = 0;
	FILE *cf = open_memstream(&csrc, &clen);
	/* the name depends on the code: generate with a placeholder first */
	const char *placeholder = "stap_0000000000000000";
	codegen_module(s, &prog, s->module_name ? s->module_name : placeholder, cf);
	fclose(cf);
	if (s->nerrors) {
		fprintf(stderr, "Pass 3: translation failed.\n");
		return 1;
	}
	if (s->module_name) {
		d.module_name = s->module_name;
	} else {
		unsigned long long h = build_hash(&d, csrc, clen);
		d.module_name = arena_printf(&s->arena, "stap_%016llx", h);
		char *p = strstr(csrc, placeholder);
		if (p)
			memcpy(p, d.module_name, strlen(placeholder));
	}
	timer_report(s, &t, 3, "translated to C");
	if (s->last_pass == 3) {
		fwrite(csrc, 1, clen, stdout);
		return 0;
	}

	char tmpl[] = "/tmp/stapXXXXXX";
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "stap: error: cannot create a temporary "
			"directory: %s\n", strerror(errno));
		return 1;
	}
	d.tmpdir = arena_strdup(&s->arena, tmpl);
	d.c_path = arena_printf(&s->arena, "%s/%s.c", d.tmpdir, d.module_name);
	FILE *out = fopen(d.c_path, "w");
	if (!out || fwrite(csrc, 1, clen, out) != clen || fclose(out)) {
		fprintf(stderr, "stap: error: cannot write %s\n", d.c_path);
		return 1;
	}
	free(csrc);

	/* Pass 4 */
	int status = 1;
	timer_start(&t);
	if (!s->build_dir) {
		fprintf(stderr, "stap: error: no kernel build tree for %s: "
			"install linux-headers-%s\n", s->release, s->release);
		goto done;
	}
	if (build_module(&d) != 0) {
		fprintf(stderr, "Pass 4: compilation failed.\n");
		goto done;
	}
	timer_report(s, &t, 4, "compiled C into a kernel module");
	if (s->last_pass == 4) {
		printf("%s\n", d.ko_path);
		status = 0;
		goto done;
	}

	/* Pass 5 */
	timer_start(&t);
	status = run_module(&d);
	timer_report(s, &t, 5, "run completed");
done:
	if (s->keep_tmpdir) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", d.tmpdir);
	} else {
		char *const rm[] = { "rm", "-rf", (char *)d.tmpdir, NULL };
		run_command(rm, NULL, true);
	}
	session_free(s);
	return status;
}
