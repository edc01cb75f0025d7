// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The direct pass 4: a module built with kbuild's own commands, run
 * without make. Once per kernel and set of flags (the ccflags of -D, -t,
 * -s, the runtime's directory, -B's make variables) a small module of the
 * same shape as ours (MOD_src.o and stp_runtime.o linked into MOD.o) is
 * built with kbuild (V=1); the commands it ran are read from the .cmd
 * files kbuild writes (compile with objtool, the composite link, the
 * .mod.c compile, the final link with the kernel's module.lds) and its
 * log (the BTF step, which leaves no .cmd), with the capture's directory
 * and module name made placeholders, and kept in the cache, sealed, as
 * kbuild-HASH.cmds (with .module-common.o where the kernel has one, 6.12).
 * modpost's part (modpost.c) is ours: the capture checks it by writing
 * the capture module's MOD.mod.c and comparing it with modpost's, byte
 * for byte; a kernel where they differ keeps kbuild.
 *
 * Per script: compile MOD_src.c (and a split module's MOD_src1.c ...,
 * side by side), link with the cached runtime object,
 * check and write MOD.mod.c, compile it, link the .ko, add BTF as
 * kbuild would. Each command runs through /bin/sh in the build tree, as
 * make runs it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module/build.h"
#include "target/target.h"
#include "lib/arena.h"
#include "lib/files.h"
#include "lib/hash.h"

/* bump when the capture module or the file's form changes */
#define RECIPE_VERSION "stap-recipe-2"
#define CAP_NAME "stpcapture_mod"

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Characters a path may have to go into a command unquoted (as kbuild
 * puts M= and its own paths in its commands). */
static bool shell_safe(const char *s)
{
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789/._+,=:-", *s))
			return false;
	return true;
}

/* text with each from replaced by to (from not empty) */
static char *replace_all(const char *text, const char *from, const char *to)
{
	struct strbuf b = { 0 };
	size_t n = strlen(from);

	while (*text) {
		if (!strncmp(text, from, n)) {
			sb_puts(&b, to);
			text += n;
		} else {
			sb_putc(&b, *text++);
		}
	}
	char *r = xstrdup(sb_str(&b));
	sb_free(&b);
	return r;
}

/*
 * The command of a kbuild .cmd file: its first line, "cmd_T := CMD"
 * (6.1) or "savedcmd_T := CMD" (6.12), make's escapes undone ($$, and
 * $(pound) for #), the capture's directory and name made placeholders.
 */
static char *read_cmd(const char *capdir, const char *file)
{
	char path[4096];
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", capdir, file);
	char *text = read_file(path, &len);
	if (!text)
		return NULL;
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	char *p = strstr(text, " := ");
	if (!p || strstr(text, "@@") ||
	    !(starts(text, "cmd_") || starts(text, "savedcmd_"))) {
		free(text);
		return NULL;
	}
	char *a = replace_all(p + 4, "$(pound)", "#");
	char *b = replace_all(a, "$$", "$");
	char *c = replace_all(b, capdir, "@@DIR@@");
	char *cmd = replace_all(c, CAP_NAME, "@@MOD@@");
	free(text);
	free(a);
	free(b);
	free(c);
	return cmd;
}

/*
 * The BTF step of kbuild's log (V=1): "if [ ! -f vmlinux ]; then printf
 * ...; else LLVM_OBJCOPY=... pahole ... --btf_base vmlinux KO;
 * resolve_btfids -b vmlinux KO; fi;" kept as "if [ -f vmlinux ]; then
 * ...; fi". NULL when there is none (no CONFIG_DEBUG_INFO_BTF_MODULES).
 */
static char *read_btf(const char *capdir, const char *log)
{
	size_t len;
	char *text = read_file(log, &len);
	char *res = NULL;

	if (!text)
		return NULL;
	char *base = strstr(text, "--btf_base vmlinux");
	if (base) {
		char *start = base;
		while (start > text && start[-1] != '\n' &&
		       !starts(start, "else "))
			start--;
		char *end = strstr(base, " fi;");
		char *nl = strchr(base, '\n');
		if (starts(start, "else ") && end && (!nl || end < nl)) {
			start += 5;
			struct strbuf b = { 0 };
			sb_puts(&b, "if [ -f vmlinux ]; then ");
			sb_append(&b, start, (size_t)(end - start));
			sb_puts(&b, " fi");
			char *c = replace_all(sb_str(&b), capdir, "@@DIR@@");
			res = replace_all(c, CAP_NAME, "@@MOD@@");
			free(c);
			sb_free(&b);
		}
	}
	free(text);
	return res;
}

/*
 * What make adds to the environment of its commands: the variables of
 * "env -0" run by make that we do not have with the same value, as
 * "export NAME='VALUE' ...; " for the shell (its own and make's
 * bookkeeping left out).
 */
static char *read_env(const char *capdir, const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	struct strbuf b = { 0 };

	if (!text)
		return NULL;
	for (char *p = text; p < text + len; p += strlen(p) + 1) {
		char *eq = strchr(p, '=');
		if (!eq || eq == p || strchr(p, '\n') || strstr(p, "@@"))
			continue;
		*eq = 0;
		const char *mine = getenv(p);
		bool skip = (mine && !strcmp(mine, eq + 1)) ||
			    starts(p, "MAKE") || starts(p, "MFLAGS") ||
			    !strcmp(p, "PWD") || !strcmp(p, "OLDPWD") ||
			    !strcmp(p, "SHLVL") || !strcmp(p, "_");
		for (const char *c = p; *c && !skip; c++)
			skip = !(*c == '_' || (*c >= 'A' && *c <= 'Z') ||
				 (*c >= 'a' && *c <= 'z') ||
				 (c > p && *c >= '0' && *c <= '9'));
		if (!skip) {
			sb_printf(&b, "%s%s='", b.len ? " " : "export ", p);
			for (const char *v = eq + 1; *v; v++)
				if (*v == '\'')
					sb_puts(&b, "'\\''");
				else
					sb_putc(&b, *v);
			sb_putc(&b, '\'');
		}
		*eq = '=';
	}
	free(text);
	if (b.len)
		sb_puts(&b, "; ");
	char *c = replace_all(sb_str(&b), capdir, "@@DIR@@");
	char *res = replace_all(c, CAP_NAME, "@@MOD@@");
	free(c);
	sb_free(&b);
	return res;
}

/* The recipe as its cache file holds it: "NAME CMD" lines, then "modc"
 * and the template to the end. */
static char *recipe_text(const struct recipe *r)
{
	struct strbuf b = { 0 };

	sb_printf(&b, "%s\n", RECIPE_VERSION);
	sb_printf(&b, "src %s\nrt %s\nlink %s\nmodo %s\nko %s\n", r->src,
		  r->rt, r->link, r->modo, r->ko);
	if (r->btf)
		sb_printf(&b, "btf %s\n", r->btf);
	sb_printf(&b, "extra %s\n", r->extra);
	sb_printf(&b, "env %s\n", r->env);
	sb_printf(&b, "modc\n%s", r->modc);
	char *t = xstrdup(sb_str(&b));
	sb_free(&b);
	return t;
}

static struct recipe *recipe_parse(char *text)
{
	struct recipe *r = xrealloc(NULL, sizeof(*r));
	char *line = text;

	memset(r, 0, sizeof(*r));
	if (!starts(line, RECIPE_VERSION "\n"))
		goto bad;
	line += strlen(RECIPE_VERSION "\n");
	while (*line) {
		if (!strcmp(line, "modc") || starts(line, "modc\n")) {
			r->modc = xstrdup(line[4] ? line + 5 : "");
			break;
		}
		char *nl = strchr(line, '\n');
		if (!nl)
			goto bad;
		*nl = 0;
		char *sp = strchr(line, ' ');
		if (!sp)
			goto bad;
		*sp = 0;
		char **slot = !strcmp(line, "src") ? &r->src :
			      !strcmp(line, "rt") ? &r->rt :
			      !strcmp(line, "link") ? &r->link :
			      !strcmp(line, "modo") ? &r->modo :
			      !strcmp(line, "ko") ? &r->ko :
			      !strcmp(line, "btf") ? &r->btf :
			      !strcmp(line, "extra") ? &r->extra :
			      !strcmp(line, "env") ? &r->env : NULL;
		if (!slot)
			goto bad;
		*slot = xstrdup(sp + 1);
		line = nl + 1;
	}
	if (r->src && r->rt && r->link && r->modo && r->ko && r->extra &&
	    r->env && r->modc)
		return r;
bad:
	free(r);
	return NULL;
}

/* A recipe command for module mod in dir, make's environment first. */
static char *expand(const struct recipe *r, const char *tmpl, const char *dir,
		    const char *mod)
{
	struct strbuf full = { 0 };

	sb_puts(&full, r->env);
	sb_puts(&full, tmpl);
	char *a = replace_all(sb_str(&full), "@@DIR@@", dir);
	char *cmd = replace_all(a, "@@MOD@@", mod);
	free(a);
	sb_free(&full);
	return cmd;
}

/* Run a shell command in the build tree (its output appended to log). */
static int run_shell(struct driver *d, char *cmd, const char *log)
{
	struct session *s = d->s;

	if (s->verbose > 1)
		fprintf(stderr, "Pass 4: %s\n", cmd);
	char *const argv[] = { "/bin/sh", "-c", cmd, NULL };
	int rc = run_command_in(argv, s->build_dir, log, true);
	free(cmd);
	return rc;
}

static int run_step(struct driver *d, const struct recipe *r,
		    const char *tmpl, const char *dir, const char *mod,
		    const char *log)
{
	return run_shell(d, expand(r, tmpl, dir, mod), log);
}

static int write_text(const char *path, const char *text)
{
	return write_file_atomic(path, text, strlen(text));
}

/* The small module whose build is captured. */
static const char cap_src[] =
	"#include <linux/module.h>\n"
	"#include <linux/init.h>\n"
	"int stpcapture_part(void);\n"
	"static int __init stpcapture_init(void)\n"
	"{\n\treturn stpcapture_part();\n}\n"
	"static void __exit stpcapture_exit(void)\n{\n}\n"
	"module_init(stpcapture_init);\n"
	"module_exit(stpcapture_exit);\n"
	"MODULE_LICENSE(\"GPL\");\n";
static const char cap_rt[] =
	"#include <linux/kernel.h>\n"
	"#include <linux/printk.h>\n"
	"int stpcapture_part(void);\n"
	"int stpcapture_part(void)\n"
	"{\n\tprintk(KERN_INFO \"stpcapture\\n\");\n\treturn 0;\n}\n";

/* Build the capture module with kbuild and read its commands. */
static struct recipe *capture(struct driver *d, const char *ccflags,
			      bool features, const char *common_path,
			      bool *lasting, char *why, size_t n)
{
	struct session *s = d->s;
	struct arena *A = &s->arena;
	const char *dir = arena_printf(A, "%s/kbuild-capture", d->tmpdir);
	struct recipe *r = NULL;

	if (make_dirs(arena_strdup(A, dir)) != 0) {
		snprintf(why, n, "cannot make %s", dir);
		return NULL;
	}
	struct strbuf kb = { 0 };
	sb_printf(&kb, "obj-m := %s.o\n%s-y := %s_src.o stp_runtime.o\n%s",
		  CAP_NAME, CAP_NAME, CAP_NAME, ccflags);
	/* the environment make gives its commands (6.12's objtool reads
	 * SRCARCH from it) */
	sb_printf(&kb, "$(obj)/%s_src.o: $(obj)/%s.env\n"
		  "$(obj)/%s.env:\n\tenv -0 > $@\n", CAP_NAME, CAP_NAME,
		  CAP_NAME);
	if (features)
		sb_printf(&kb, "ccflags-y += -include %s/stp_features.h\n", dir);
	int bad = write_text(arena_printf(A, "%s/Kbuild", dir), sb_str(&kb));
	sb_free(&kb);
	bad |= write_text(arena_printf(A, "%s/%s_src.c", dir, CAP_NAME),
			  cap_src);
	bad |= write_text(arena_printf(A, "%s/stp_runtime.c", dir), cap_rt);
	if (features)
		bad |= write_text(arena_printf(A, "%s/stp_features.h", dir),
				  "/* the capture module's */\n");
	if (bad) {
		snprintf(why, n, "cannot write the capture module in %s", dir);
		return NULL;
	}
	const char *log = arena_printf(A, "%s/build.log", dir);
	char **argv = arena_alloc(A, (size_t)(module_run(d)->nmake_args + 8) *
				  sizeof(*argv));
	int argc = 0;
	argv[argc++] = "make";
	argv[argc++] = "-C";
	argv[argc++] = (char *)s->build_dir;
	argv[argc++] = arena_printf(A, "M=%s", dir);
	argv[argc++] = "V=1";
	for (int i = 0; i < module_run(d)->nmake_args; i++)
		argv[argc++] = module_run(d)->make_args[i];
	argv[argc++] = "modules";
	argv[argc] = NULL;
	if (s->verbose)
		fprintf(stderr, "Pass 4: capturing kbuild's commands for %s "
			"(once for this kernel and these options)\n",
			s->release);
	if (run_command_in(argv, NULL, log, false) != 0) {
		snprintf(why, n, "kbuild of the capture module failed (%s)",
			 log);
		return NULL;
	}

	/* kbuild did its part: what fails now fails again */
	*lasting = true;
	r = xrealloc(NULL, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->src = read_cmd(dir, "." CAP_NAME "_src.o.cmd");
	r->rt = read_cmd(dir, ".stp_runtime.o.cmd");
	r->link = read_cmd(dir, "." CAP_NAME ".o.cmd");
	r->modo = read_cmd(dir, "." CAP_NAME ".mod.o.cmd");
	r->ko = read_cmd(dir, "." CAP_NAME ".ko.cmd");
	r->btf = read_btf(dir, log);
	r->env = read_env(dir, arena_printf(A, "%s/%s.env", dir, CAP_NAME));
	if (!r->src || !r->rt || !r->link || !r->modo || !r->ko || !r->env) {
		snprintf(why, n, "kbuild's .cmd files in %s are not in the "
			 "form expected", dir);
		goto fail;
	}
	/* the link names its objects in MOD.mod, which we write */
	if (!strstr(r->link, "@@@DIR@@/@@MOD@@.mod")) {
		snprintf(why, n, "kbuild's module link does not read "
			 "MOD.mod: %s", r->link);
		goto fail;
	}
	if (strstr(r->ko, "@@DIR@@/.module-common.o")) {
		const char *obj = arena_printf(A, "%s/.module-common.o", dir);
		size_t len;
		char *data = read_file(obj, &len);
		if (!data || !common_path ||
		    cache_write_sealed(common_path, data, len) != 0) {
			free(data);
			*lasting = false;
			snprintf(why, n, "cannot keep kbuild's "
				 ".module-common.o");
			goto fail;
		}
		free(data);
		r->common = xstrdup(common_path);
	}
	size_t len;
	const char *obj = arena_printf(A, "%s/%s.o", dir, CAP_NAME);
	char *modc = read_file(arena_printf(A, "%s/%s.mod.c", dir, CAP_NAME),
			       &len);
	if (!modc) {
		snprintf(why, n, "no %s.mod.c from modpost", CAP_NAME);
		goto fail;
	}
	r->modc = modpost_template(modc, obj, &r->extra, why, n);
	if (!r->modc) {
		free(modc);
		goto fail;
	}
	/* the check: our MOD.mod.c of the capture module is modpost's */
	struct strbuf err = { 0 };
	const char *special;
	char *ours = modpost_modc(r, obj, arena_printf(A, "%s/Module.symvers",
						       s->build_dir),
				  s->release, &err, &special);
	bool same = ours && !strcmp(ours, modc);
	if (!same)
		snprintf(why, n, "our MOD.mod.c for the capture module is not "
			 "modpost's (%s)%s%s", dir, err.len ? ": " : "",
			 sb_str(&err));
	sb_free(&err);
	free(ours);
	free(modc);
	if (same)
		return r;
fail:
	free(r);
	return NULL;
}

struct recipe *direct_recipe(struct driver *d, const char *ccflags,
			     bool features, char *why, size_t n)
{
	struct session *s = d->s;
	struct arena *A = &s->arena;
	unsigned long long h = FNV_OFFSET;

	h = fnv1a(h, PACKAGE_VERSION, sizeof(PACKAGE_VERSION));
	h = fnv1a(h, RECIPE_VERSION, sizeof(RECIPE_VERSION));
	h = fnv1a(h, s->release, strlen(s->release) + 1);
	h = fnv1a(h, s->build_dir, strlen(s->build_dir) + 1);
	h = fnv1a(h, ccflags, strlen(ccflags) + 1);
	h = fnv1a(h, features ? "f" : "-", 2);
	for (int i = 0; i < module_run(d)->nmake_args; i++)
		h = fnv1a(h, module_run(d)->make_args[i], strlen(module_run(d)->make_args[i]) + 1);
	/* the kernel's configuration, its Makefile (the commands) and its
	 * symbols: a kernel rebuilt under the same release string is
	 * captured again */
	static const char *const files[] = {
		"include/generated/autoconf.h", "Makefile", "Module.symvers",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		char *text = read_file(arena_printf(A, "%s/%s", s->build_dir,
						    files[i]), &len);
		if (text)
			h = fnv1a(h, text, len);
		free(text);
	}
	const char *cdir = s->target->cache_dir ? arena_printf(A, "%s/%s",
				s->target->cache_dir, s->release) : NULL;
	const char *path = cdir ? arena_printf(A, "%s/kbuild-%016llx.cmds",
					       cdir, h) : NULL;
	const char *common = cdir ? arena_printf(A, "%s/kbuild-%016llx.common.o",
						 cdir, h) : NULL;
	/* a kernel whose commands could not be used: kbuild, at once */
	const char *refused = cdir ? arena_printf(A, "%s/kbuild-%016llx.refused",
						  cdir, h) : NULL;
	size_t len;
	char *text = refused ? cache_fetch(d, refused, "kbuild refusal", &len) :
		     NULL;
	if (text) {
		snprintf(why, n, "kbuild's commands could not be used before "
			 "(%s): %.*s", refused, (int)len, text);
		free(text);
		return NULL;
	}
	text = path ? cache_fetch(d, path, "kbuild commands", &len) : NULL;
	if (text) {
		struct recipe *r = recipe_parse(text);
		free(text);
		if (r && strstr(r->ko, "/.module-common.o")) {
			/* its object must be there too, sealed */
			char *obj = cache_fetch(d, common, "kbuild object", &len);
			if (obj)
				r->common = xstrdup(common);
			else
				r = NULL;
			free(obj);
		}
		if (r) {
			r->path = path;
			return r;
		}
	}
	if (cdir && make_dirs(cdir) != 0)
		cdir = path = common = refused = NULL;
	bool lasting = false;
	struct recipe *r = capture(d, ccflags, features, common, &lasting,
				   why, n);
	if (!r) {
		if (lasting && refused)
			(void)cache_write_sealed(refused, why, strlen(why));
		return NULL;
	}
	if (path) {
		char *t = recipe_text(r);
		if (cache_write_sealed(path, t, strlen(t)) == 0)
			r->path = path;
		free(t);
	}
	return r;
}

int direct_module(struct driver *d, const struct recipe *r,
		  const char *rt_cached, char *why, size_t n)
{
	struct session *s = d->s;
	struct arena *A = &s->arena;
	const char *dir = d->tmpdir, *mod = module_run(d)->module_name;
	const char *log = arena_printf(A, "%s/build.log", dir);
	size_t len;
	char *data;

	if (!shell_safe(dir) || !shell_safe(mod) || !shell_safe(s->build_dir)) {
		snprintf(why, n, "a path has characters kbuild's commands "
			 "cannot take unquoted");
		return 1;
	}
	(void)unlink(log);
	/* the runtime object: cached, or compiled now and kept */
	const char *rt = arena_printf(A, "%s/stp_runtime.o", dir);
	bool have_rt = false;
	if (rt_cached && (data = cache_fetch(d, rt_cached, "runtime object",
					     &len))) {
		have_rt = write_file_atomic(rt, data, len) == 0;
		free(data);
	}
	if (s->verbose) {
		long kb = (long)(module_run(d)->c_bytes / 1024);
		char units[48] = "";
		if (module_run(d)->nunits > 1)
			snprintf(units, sizeof(units), " (%d units, in "
				 "parallel)", module_run(d)->nunits);
		fprintf(stderr, "Pass 4: compiling %ld KB of C%s%s with kbuild's "
			"commands for %s, without make (%s)\n", kb, units,
			have_rt ? "" : " and the runtime (once for this kernel "
			"and these options)", s->release,
			r->path ? r->path : "captured now");
	}
	/* the units, and the runtime when it is not cached, side by side as
	 * make -j would (one process group, the watchdog's to kill) */
	struct strbuf all = { 0 };
	int njobs = 0;
	if (!have_rt) {
		if (write_text(arena_printf(A, "%s/stp_runtime.c", dir),
			       "#include \"runtime.c\"\n"))
			goto failed;
		char *rtc = expand(r, r->rt, dir, mod);
		sb_printf(&all, "( %s\n) & stp_j%d=$!; ", rtc, njobs++);
		free(rtc);
	}
	for (int k = 1; k < module_run(d)->nunits; k++) {
		char unit[32];
		snprintf(unit, sizeof(unit), "@@MOD@@_src%d", k);
		char *tmpl = replace_all(r->src, "@@MOD@@_src", unit);
		char *cc = expand(r, tmpl, dir, mod);
		sb_printf(&all, "( %s\n) & stp_j%d=$!; ", cc, njobs++);
		free(tmpl);
		free(cc);
	}
	char *srcc = expand(r, r->src, dir, mod);
	sb_printf(&all, "( %s\n); stp_rc=$?", srcc);
	free(srcc);
	for (int j = 0; j < njobs; j++)
		sb_printf(&all, "; wait $stp_j%d || stp_rc=1", j);
	sb_puts(&all, "; exit $stp_rc");
	int rc = run_shell(d, xstrdup(sb_str(&all)), log);
	sb_free(&all);
	if (rc != 0 || !path_exists(rt))
		goto failed;
	if (!have_rt && rt_cached)
		cache_store(rt, rt_cached);
	for (int k = 0; k < module_run(d)->nunits; k++)
		if (!path_exists(arena_printf(A, "%s/%s.o", dir,
					      unit_base(d, k))))
			goto failed;
	/* MOD.mod: the objects of the module, as kbuild lists them */
	const char *obj = arena_printf(A, "%s/%s.o", dir, mod);
	if (write_text(arena_printf(A, "%s/%s.mod", dir, mod),
		       arena_printf(A, "%s\n%s\n", unit_objects(d, dir, "\n"),
				    rt)) ||
	    run_step(d, r, r->link, dir, mod, log) != 0 || !path_exists(obj))
		goto failed;

	/* modpost */
	struct strbuf err = { 0 };
	const char *special;
	char *modc = modpost_modc(r, obj, arena_printf(A, "%s/Module.symvers",
						       s->build_dir),
				  s->release, &err, &special);
	if (!modc && special) {
		snprintf(why, n, "%s, which modpost handles", special);
		return 1;
	}
	if (!modc) {
		fprintf(stderr, "stap: error: building the module failed (pass "
			"4 for %s, as modpost checks it):\n%s", s->release,
			sb_str(&err));
		sb_free(&err);
		return -1;
	}
	int bad = write_text(arena_printf(A, "%s/%s.mod.c", dir, mod), modc);
	free(modc);
	if (bad || run_step(d, r, r->modo, dir, mod, log) != 0)
		goto failed;
	if (r->common) {
		data = cache_fetch(d, r->common, "kbuild object", &len);
		bad = !data || write_file_atomic(arena_printf(A,
				"%s/.module-common.o", dir), data, len) != 0;
		free(data);
		if (bad)
			goto failed;
	}
	const char *ko = arena_printf(A, "%s/%s.ko", dir, mod);
	if (run_step(d, r, r->ko, dir, mod, log) != 0 || !path_exists(ko) ||
	    (r->btf && run_step(d, r, r->btf, dir, mod, log) != 0))
		goto failed;
	if (s->verbose > 1)
		print_file(log);
	return 0;
failed:
	fprintf(stderr, "stap: error: building the module failed (pass 4 "
		"for %s, with kbuild's commands):\n", s->release);
	print_file(log);
	return -1;
}
