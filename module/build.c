// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 4: build the generated C into a .ko with the kernel's kbuild.
 * Modules are cached by a hash of everything that goes into them (the
 * generated C, the runtime, the release and -D options), so a script that
 * did not change is not rebuilt.
 *
 * Kernel API differences are found by compiling runtime/features/NAME.c
 * against the target's headers (once per release and version of those
 * tests, cached as CACHE/RELEASE/features-HASH.h): each one that compiles
 * is STP_HAVE_NAME in the header every module is built with.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "module/build.h"
#include "lib/guard.h"
#include "target/target.h"
#include "lib/files.h"
#include "lib/hash.h"
#include "lib/strbuf.h"

/*
 * Run argv in cwd (NULL: ours); its output goes to log_path (appended to
 * with append; NULL: our own output).
 */
int run_command_in(char *const argv[], const char *cwd, const char *log_path,
		   bool append)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = -1;
		setpgid(0, 0);	/* the watchdog's to kill if we die */
		if (log_path)
			fd = open(log_path, O_WRONLY | O_CREAT |
				  (append ? O_APPEND : O_TRUNC), 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		if (cwd && chdir(cwd) != 0) {
			fprintf(stderr, "stap: cannot enter %s: %s\n", cwd,
				strerror(errno));
			_exit(127);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "stap: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	int status, rc;
	setpgid(pid, pid);	/* before we name it, whichever runs first */
	tmpdir_guard_group(pid);
	while ((rc = (int)waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	tmpdir_guard_group(0);
	if (rc < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run argv; its output goes to log_path (or is discarded when quiet). */
int run_command(char *const argv[], const char *log_path, bool quiet)
{
	return run_command_in(argv, NULL, log_path ? log_path :
			      quiet ? "/dev/null" : NULL, false);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Hash every file of a directory, in name order. */
unsigned long long hash_dir(unsigned long long h, const char *dir)
{
	DIR *dp = opendir(dir);
	char *names[512];
	int n = 0;

	if (!dp)
		return h;
	struct dirent *de;
	while ((de = readdir(dp)) && n < 512)
		if (de->d_name[0] != '.')
			names[n++] = xstrdup(de->d_name);
	closedir(dp);
	qsort(names, (size_t)n, sizeof(names[0]), name_cmp);
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		h = fnv1a(h, names[i], strlen(names[i]) + 1);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			h = hash_dir(h, path);
		} else {
			size_t len;
			char *text = read_file(path, &len);
			if (text)
				h = fnv1a(h, text, len);
			free(text);
		}
		free(names[i]);
	}
	return h;
}

/*
 * The -D flags of both objects: the user's, then what -t and -s ask of the
 * runtime (timing, the ring's size: a power of two, as it is indexed by a
 * mask; a -D STP_BUFFER_SIZE of the user's wins).
 */
static void add_flag_defines(struct driver *d, struct strbuf *flags)
{
	struct session *s = d->s;
	bool user_size = false;

	for (int i = 0; i < s->ndefines; i++) {
		if (s->defines[i].value)
			sb_printf(flags, "ccflags-y += '-D%s=%s'\n",
				  s->defines[i].name, s->defines[i].value);
		else
			sb_printf(flags, "ccflags-y += -D%s\n",
				  s->defines[i].name);
		if (!strcmp(s->defines[i].name, "STP_BUFFER_SIZE"))
			user_size = true;
	}
	if (s->timing)
		sb_puts(flags, "ccflags-y += -DSTP_TIMING=1\n");
	if (s->buffer_mb && !user_size) {
		long bytes = 1L << 20;
		while (bytes < (long)s->buffer_mb << 20)
			bytes <<= 1;
		sb_printf(flags, "ccflags-y += -DSTP_BUFFER_SIZE=%ldL\n", bytes);
	}
}

unsigned long long build_hash(struct driver *d, const char *c_source,
			      size_t len)
{
	struct session *s = d->s;
	unsigned long long h = FNV_OFFSET;

	h = fnv1a(h, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	h = fnv1a(h, c_source, len);
	h = fnv1a(h, s->release, strlen(s->release) + 1);
	/* the -D flags as the build passes them (-D, and what -t and -s
	 * ask of the runtime object: not in the C) */
	struct strbuf flags = { 0 };
	add_flag_defines(d, &flags);
	h = fnv1a(h, sb_str(&flags), strlen(sb_str(&flags)) + 1);
	sb_free(&flags);
	for (int i = 0; i < module_run(d)->nmake_args; i++)	/* -B changes the build */
		h = fnv1a(h, module_run(d)->make_args[i], strlen(module_run(d)->make_args[i]) + 1);
	/* signed, and with which key (an unsigned module's key is as it
	 * was before signing existed: the cache keeps its entries) */
	if (module_run(d)->sign_module) {
		h = fnv1a(h, "signed", 7);
		h = fnv1a(h, module_run(d)->sign_cert_data, module_run(d)->sign_cert_len);
	}
	return hash_dir(h, d->runtime_dir);
}


/* Copy a file (from the private work directory) to a new file at to. */
static int copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file_nofollow(from, &len);
	int rc = data ? write_file_atomic(to, data, len) : -1;

	free(data);
	return rc;
}

/* Keep a file of the work directory in the cache, sealed (files.h). */
void cache_store(const char *from, const char *to)
{
	size_t len;
	char *data = read_file_nofollow(from, &len);

	if (data)
		(void)cache_write_sealed(to, data, len);
	free(data);
}

/*
 * A file of the cache, only when its seal says it is what was stored
 * (NULL otherwise). A file that is there but does not match is refused
 * aloud: something replaced it, and it is made again.
 */
char *cache_fetch(struct driver *d, const char *path, const char *what,
			 size_t *len)
{
	char why[512];
	struct stat st;
	char *data;

	if (module_run(d)->poison_cache || lstat(path, &st) != 0)
		return NULL;
	data = cache_read_sealed(path, len, why, sizeof(why));
	if (!data && why[0])
		fprintf(stderr, "stap: warning: the cached %s %s is refused: "
			"%s; making it again\n", what, path, why);
	else if (!data && d->s->verbose)
		fprintf(stderr, "Pass 4: the cached %s %s has no seal; making "
			"it again\n", what, path);
	return data;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * The feature header for the session's release: made (or found, sealed,
 * in the cache) from the tests in runtime/features; its text. NULL when
 * there are no tests or they did not build; modules then see no
 * STP_HAVE_*.
 */
static char *feature_header(struct driver *d)
{
	struct session *s = d->s;
	const char *tests = arena_printf(&s->arena, "%s/features",
					 d->runtime_dir);
	unsigned long long h = FNV_OFFSET;
	char *names[256];
	int n = 0;

	DIR *dp = opendir(tests);
	if (!dp)
		return NULL;
	struct dirent *de;
	while ((de = readdir(dp)) && n < 256)
		if (de->d_name[0] != '.' && ends_with(de->d_name, ".c"))
			names[n++] = arena_strdup(&s->arena, de->d_name);
	closedir(dp);
	if (!n)
		return NULL;
	qsort(names, (size_t)n, sizeof(names[0]), name_cmp);

	h = fnv1a(h, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	h = fnv1a(h, s->release, strlen(s->release) + 1);
	h = hash_dir(h, tests);
	/* the build tree and its configuration: a kernel rebuilt under the
	 * same release string is tested again */
	h = fnv1a(h, s->build_dir, strlen(s->build_dir) + 1);
	size_t conf_len;
	char *conf = read_file(arena_printf(&s->arena,
				"%s/include/generated/autoconf.h", s->build_dir),
			       &conf_len);
	if (conf)
		h = fnv1a(h, conf, conf_len);
	free(conf);
	const char *dir = s->target->cache_dir ? arena_printf(&s->arena,
				"%s/%s", s->target->cache_dir, s->release) : NULL;
	const char *hdr = dir ? arena_printf(&s->arena, "%s/features-%016llx.h",
					     dir, h) : NULL;
	char *cached = hdr ? cache_fetch(d, hdr, "feature header", NULL) : NULL;
	if (cached)
		return cached;

	/* one kbuild run over all the tests; a test that fails to compile
	 * is a feature the kernel lacks (make -k: the others go on) */
	const char *work = arena_printf(&s->arena, "%s/features", d->tmpdir);
	if (make_dirs(arena_strdup(&s->arena, work)) != 0)
		return NULL;
	const char *kbuild = arena_printf(&s->arena, "%s/Kbuild", work);
	FILE *f = fopen(kbuild, "w");
	if (!f)
		return NULL;
	fputs("obj-m :=", f);
	for (int i = 0; i < n; i++) {
		char *from = arena_printf(&s->arena, "%s/%s", tests, names[i]);
		char *to = arena_printf(&s->arena, "%s/%s", work, names[i]);
		if (copy_file(from, to) != 0) {
			fclose(f);
			return NULL;
		}
		fprintf(f, " %.*s.o", (int)strlen(names[i]) - 2, names[i]);
	}
	/* a module that always compiles: without its .o, make failed for
	 * another reason than a feature (no compiler, full disk, ...) */
	fputs(" stp_feature_control.o", f);
	fputs("\nccflags-y := -Werror\n", f);
	if (fclose(f))
		return NULL;
	const char *log = arena_printf(&s->arena, "%s/build.log", work);
	const char *mdir = arena_printf(&s->arena, "M=%s", work);
	char jobs[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(jobs, sizeof(jobs), "-j%ld", ncpu > 0 ? ncpu + 1 : 2);
	char *const argv[] = {
		"make", "-k", "-C", (char *)s->build_dir, (char *)mdir, jobs,
		"modules", NULL,
	};
	const char *control = arena_printf(&s->arena,
					   "%s/stp_feature_control.c", work);
	FILE *cf = fopen(control, "w");
	if (!cf)
		return NULL;
	fputs("#include <linux/module.h>\nMODULE_LICENSE(\"GPL\");\n", cf);
	if (fclose(cf))
		return NULL;
	(void)run_command(argv, log, true);
	if (!path_exists(arena_printf(&s->arena, "%s/stp_feature_control.o",
				      work))) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: the kernel feature tests did "
				"not build (see %s); not cached\n", log);
		return NULL;
	}

	struct strbuf out = { 0 };
	sb_puts(&out, "/* kernel feature tests (runtime/features) for ");
	sb_c_literal(&out, s->release, strlen(s->release), true);
	sb_puts(&out, " */\n");
	for (int i = 0; i < n; i++) {
		int len = (int)strlen(names[i]) - 2;
		const char *obj = arena_printf(&s->arena, "%s/%.*s.o", work,
					       len, names[i]);
		bool have = path_exists(obj);

		if (s->verbose)
			fprintf(stderr, "Pass 4: kernel feature %.*s: %s\n", len,
				names[i], have ? "yes" : "no");
		sb_puts(&out, have ? "#define STP_HAVE_" : "/* no STP_HAVE_");
		for (int k = 0; k < len; k++)
			sb_putc(&out, (char)toupper((unsigned char)names[i][k]));
		sb_puts(&out, have ? " 1\n" : " */\n");
	}
	char *text = xstrdup(sb_str(&out));
	sb_free(&out);
	if (dir && make_dirs(dir) == 0)
		(void)cache_write_sealed(hdr, text, strlen(text));
	return text;
}

void print_file(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);

	if (text)
		fwrite(text, 1, len, stderr);
	free(text);
}

/*
 * The runtime object (runtime/runtime.c) is the same for every script of
 * one kernel, feature header, runtime and set of flags: it is compiled
 * once, kept in the cache as runtime-HASH.o, and given to later builds as
 * a kbuild "_shipped" file, so a script's build compiles only its own C.
 */
static const char *runtime_object(struct driver *d, const char *flags,
				  const char *features)
{
	struct session *s = d->s;
	unsigned long long h = FNV_OFFSET;

	h = fnv1a(h, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	h = fnv1a(h, s->release, strlen(s->release) + 1);
	h = fnv1a(h, s->build_dir, strlen(s->build_dir) + 1);
	h = fnv1a(h, flags, strlen(flags) + 1);
	if (features)
		h = fnv1a(h, features, strlen(features) + 1);
	for (int i = 0; i < module_run(d)->nmake_args; i++)
		h = fnv1a(h, module_run(d)->make_args[i], strlen(module_run(d)->make_args[i]) + 1);
	h = hash_dir(h, d->runtime_dir);
	if (!s->target->cache_dir)
		return NULL;
	return arena_printf(&s->arena, "%s/%s/runtime-%016llx.o",
			    s->target->cache_dir, s->release, h);
}

/* The kbuild path: make -C BUILD M=DIR -jN [-B NAME=VALUE...] modules */
int kbuild_module(struct driver *d, bool have_rt)
{
	struct session *s = d->s;
	const char *ko = arena_printf(&s->arena, "%s/%s.ko", d->tmpdir,
				      module_run(d)->module_name);
	const char *log = arena_printf(&s->arena, "%s/build.log", d->tmpdir);
	const char *mdir = arena_printf(&s->arena, "M=%s", d->tmpdir);
	char jobs[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(jobs, sizeof(jobs), "-j%ld", ncpu > 0 ? ncpu + 1 : 2);
	char **argv = arena_alloc(&s->arena, (size_t)(module_run(d)->nmake_args + 7) *
				  sizeof(*argv));
	int argc = 0;
	argv[argc++] = "make";
	argv[argc++] = "-C";
	argv[argc++] = (char *)s->build_dir;
	argv[argc++] = (char *)mdir;
	argv[argc++] = jobs;
	for (int i = 0; i < module_run(d)->nmake_args; i++)
		argv[argc++] = module_run(d)->make_args[i];
	argv[argc++] = "modules";
	argv[argc] = NULL;
	if (s->verbose) {
		/* kbuild is silent until it ends: say what the wait is */
		long kb = (long)(module_run(d)->c_bytes / 1024);
		char units[32] = "";
		if (module_run(d)->nunits > 1)
			snprintf(units, sizeof(units), " (%d units)", module_run(d)->nunits);
		fprintf(stderr, "Pass 4: compiling %ld KB of C%s%s with the kbuild "
			"of %s (%s)...\n", kb, units, have_rt ? "" : " and the "
			"runtime (once for this kernel and these options)", s->release,
			kb > 1024 ? "a large script: a minute or more" :
			"a few seconds");
	}
	int rc = run_command(argv, log, false);
	if (rc != 0 || !path_exists(ko)) {
		fprintf(stderr, "stap: error: building the module failed "
			"(kbuild for %s):\n", s->release);
		print_file(log);
		return -1;
	}
	if (s->verbose > 1)
		print_file(log);
	return 0;
}

int usable_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 1 ? (int)(n > 64 ? 64 : n) : 1;
}

const char *unit_base(struct driver *d, int k)
{
	return k ? arena_printf(&d->s->arena, "%s_src%d", module_run(d)->module_name, k) :
		   arena_printf(&d->s->arena, "%s_src", module_run(d)->module_name);
}

static int write_part(const char *path, const char *head, const char *c,
		      size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || (head && fputs(head, f) < 0) ||
	    (len && fwrite(c, 1, len, f) != len) || fclose(f)) {
		fprintf(stderr, "stap: error: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/*
 * A split module's C (module/module.c) is its shared part, then each
 * unit from the line "/\* stap: unit K of N *\/" where pass 3 says it
 * starts (s->unit_start): the shared part goes to stp_units.h, which
 * each unit's file includes first.
 */
int write_sources(struct driver *d, const char *c, size_t len)
{
	struct session *s = d->s;

	module_run(d)->c_bytes = len;
	module_run(d)->nunits = 1;
	if (s->units_out < 1)
		return write_part(arena_printf(&s->arena, "%s/%s.c", d->tmpdir,
					       unit_base(d, 0)), NULL, c, len);
	if (write_part(arena_printf(&s->arena, "%s/stp_units.h", d->tmpdir),
		       NULL, c, (size_t)s->unit_start[0]))
		return -1;
	for (int k = 0; k < s->units_out; k++) {
		size_t from = (size_t)s->unit_start[k];
		size_t to = k + 1 < s->units_out ?
			    (size_t)s->unit_start[k + 1] : len;
		if (write_part(arena_printf(&s->arena, "%s/%s.c", d->tmpdir,
					    unit_base(d, k)),
			       "#include \"stp_units.h\"\n", c + from,
			       to - from))
			return -1;
	}
	module_run(d)->nunits = s->units_out;
	return 0;
}

/* The objects of the script's units, "MOD_src.o MOD_src1.o ..." (dir/
 * before each, when dir is not NULL), in the order kbuild links them. */
const char *unit_objects(struct driver *d, const char *dir, const char *sep)
{
	struct strbuf b = { 0 };

	for (int k = 0; k < module_run(d)->nunits; k++)
		sb_printf(&b, "%s%s%s%s.o", k ? sep : "", dir ? dir : "",
			  dir ? "/" : "", unit_base(d, k));
	const char *r = arena_strdup(&d->s->arena, sb_str(&b));
	sb_free(&b);
	return r;
}

/*
 * Write the Kbuild file of the kbuild path: the module is the script's
 * object and the runtime's (the cached object as a "_shipped" file, or
 * its source).
 */
static int kbuild_prepare(struct driver *d, const char *flags,
			  const char *rt_cached, bool *have_rt)
{
	struct session *s = d->s;
	size_t len;
	char *data;

	const char *rt_shipped = arena_printf(&s->arena,
					      "%s/stp_runtime.o_shipped",
					      d->tmpdir);
	*have_rt = false;
	if (rt_cached && (data = cache_fetch(d, rt_cached, "runtime object",
					     &len))) {
		*have_rt = write_file_atomic(rt_shipped, data, len) == 0;
		free(data);
	}
	if (*have_rt) {
		/* modpost (6.1) reads each object's .cmd for the CRCs of what
		 * it exports: the runtime exports nothing */
		const char *cmd = arena_printf(&s->arena,
					       "%s/.stp_runtime.o.cmd", d->tmpdir);
		FILE *cf = fopen(cmd, "w");
		*have_rt = cf && fputs("# the cached runtime object\n", cf) >= 0;
		if (cf && fclose(cf))
			*have_rt = false;
	}
	if (!*have_rt) {
		const char *rt_src = arena_printf(&s->arena, "%s/stp_runtime.c",
						  d->tmpdir);
		FILE *rf = fopen(rt_src, "w");
		if (!rf || fputs("#include \"runtime.c\"\n", rf) < 0 ||
		    fclose(rf)) {
			fprintf(stderr, "stap: error: cannot write %s\n", rt_src);
			return -1;
		}
	}
	const char *kbuild = arena_printf(&s->arena, "%s/Kbuild", d->tmpdir);
	FILE *f = fopen(kbuild, "w");
	if (!f || fprintf(f, "obj-m := %s.o\n%s-y := %s stp_runtime.o\n%s",
			  module_run(d)->module_name, module_run(d)->module_name,
			  unit_objects(d, NULL, " "), flags) < 0 || fclose(f)) {
		fprintf(stderr, "stap: error: cannot write %s\n", kbuild);
		return -1;
	}
	return 0;
}

/* Whether the environment asks for kbuild: STAP_KBUILD set, not "0". */
static bool kbuild_asked(void)
{
	const char *v = getenv("STAP_KBUILD");

	return v && *v && strcmp(v, "0");
}

int build_module(struct driver *d)
{
	struct session *s = d->s;
	const char *cache = s->target->cache_dir;	/* NULL: none */
	const char *dir = cache ? arena_printf(&s->arena, "%s/%s", cache,
					       s->release) : NULL;
	const char *cached = dir ? arena_printf(&s->arena, "%s/%s.ko", dir,
						module_run(d)->module_name) : NULL;
	const char *ko = arena_printf(&s->arena, "%s/%s.ko", d->tmpdir,
				      module_run(d)->module_name);
	bool named = s->module_name != NULL;
	size_t len;
	char *data;

	/*
	 * A cached module is used only when it matches its seal; pass 5
	 * loads a copy in the private work directory, so the file checked
	 * is the file loaded.
	 */
	if (!named && cached &&
	    (data = cache_fetch(d, cached, "module", &len))) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: using cached %s\n", cached);
		int rc = s->last_pass == 4 ? 0 : write_file_atomic(ko, data, len);
		free(data);
		if (rc == 0) {
			d->ko_path = (char *)(s->last_pass == 4 ? cached : ko);
			return 0;
		}
	}

	/* the flags of both objects: the runtime is found through -I, the
	 * kernel's features through the header of its feature tests (a copy
	 * in the work directory) */
	char *features = feature_header(d);
	const char *features_h = arena_printf(&s->arena, "%s/stp_features.h",
					      d->tmpdir);
	if (features && write_file_atomic(features_h, features,
					  strlen(features)) != 0) {
		fprintf(stderr, "stap: error: cannot write %s\n", features_h);
		free(features);
		return -1;
	}
	struct strbuf flags = { 0 };
	sb_printf(&flags, "ccflags-y := -I%s -Wno-declaration-after-statement\n",
		  d->runtime_dir);
	add_flag_defines(d, &flags);
	const char *rt_cached = runtime_object(d, sb_str(&flags), features);
	char *common_flags = xstrdup(sb_str(&flags));
	if (features)
		sb_printf(&flags, "ccflags-y += -include %s\n", features_h);

	/* the direct path unless asked for kbuild or it cannot be had */
	char why[1024] = "";
	int rc = 1;
	bool have_rt = false;
	if (kbuild_asked()) {
		snprintf(why, sizeof(why), "STAP_KBUILD is set");
	} else {
		struct recipe *r = direct_recipe(d, common_flags, features != NULL,
						 why, sizeof(why));
		if (r)
			rc = direct_module(d, r, rt_cached, why, sizeof(why));
	}
	free(common_flags);
	free(features);
	if (rc > 0) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: building with kbuild: %s\n",
				why);
		rc = kbuild_prepare(d, sb_str(&flags), rt_cached, &have_rt);
		if (rc == 0)
			rc = kbuild_module(d, have_rt);
		if (rc == 0 && !have_rt && rt_cached && make_dirs(dir) == 0)
			cache_store(arena_printf(&s->arena, "%s/stp_runtime.o",
						 d->tmpdir), rt_cached);
	}
	sb_free(&flags);
	if (rc != 0)
		return -1;
	if (module_run(d)->sign_module && sign_module_file(d, ko))
		return -1;

	if (named) {
		/* -m NAME: the module lands in the current directory */
		const char *dest = arena_printf(&s->arena, "%s.ko", module_run(d)->module_name);
		if (copy_file(ko, dest) != 0) {
			fprintf(stderr, "stap: error: cannot copy the module to "
				"%s: %s\n", dest, strerror(errno));
			return -1;
		}
		/* a file of the user's like any other (mkstemp made it 0600) */
		mode_t mask = umask(0);
		umask(mask);
		(void)chmod(dest, 0666 & ~mask);
		/* pass 5 loads the private copy, not one others might swap */
		d->ko_path = (char *)(s->last_pass == 4 ? dest : ko);
		return 0;
	}
	if (cached && make_dirs(dir) == 0)
		cache_store(ko, cached);
	/* -p4 names the cached module; pass 5 loads the one just built */
	d->ko_path = (char *)(s->last_pass == 4 && cached &&
			      path_exists(cached) ? cached : ko);
	return 0;
}
