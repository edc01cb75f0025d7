// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * target/tp_syms.c on a made-up kernel: a "vmlinux" and modules compiled
 * here (gcc -c), plain and compressed with xz, gzip and zstd, a build
 * link that must not be followed, a module that only uses another's
 * tracepoint; each module tracepoint's module file; then the cache (written, read back, invalidated by a
 * changed module, a symbolic link planted as the cache file) and a
 * damaged module (the set unknown, not smaller).
 * Without gcc, xz, gzip or zstd the test is skipped.
 */
#define _GNU_SOURCE
#include "target/tp_syms.h"
#include "tests/unit/check.h"
#include "lib/arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/test_tp_syms.XXXXXX";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	rc = system(cmd);
	free(cmd);
	return rc;
}

/* An object file OUT defining the C in SRC. */
static int object(const char *out, const char *src)
{
	return sh("cd %s && printf '%%s\\n' '%s' | gcc -c -x c -o %s - "
		  ">/dev/null 2>&1", dir, src, out);
}

static int load(struct tp_syms *s, const char *cache)
{
	char *vm = xasprintf("%s/vmlinux", dir);
	char *mods = xasprintf("%s/lib/modules/R", dir);
	char *why = NULL;
	int rc = tp_syms_load(vm, mods, cache, s, &why);

	if (rc != 0) {
		printf("tp_syms_load: %s\n", why);
		free(why);
	}
	free(vm);
	free(mods);
	return rc;
}

/* Whether name's module file is the one under lib/modules/R ending in
 * tail (NULL: the vmlinux's). */
static bool module_is(const struct tp_syms *s, const char *name,
		      const char *tail)
{
	const char *m = tp_syms_module(s, name);
	char *want;
	bool ok;

	if (!tail)
		return m == NULL;
	want = xasprintf("%s/lib/modules/R/kernel/%s", dir, tail);
	ok = m && !strcmp(m, want);
	free(want);
	return ok;
}

/* Each module's tracepoints name their module file. */
static void check_modules(const struct tp_syms *s)
{
	CHECK(module_is(s, "vm_one", NULL));
	CHECK(module_is(s, "other", NULL));
	CHECK(module_is(s, "mod_plain", "plain.ko"));
	CHECK(module_is(s, "mod_xz", "fs/x.ko.xz"));
	CHECK(module_is(s, "mod_gz", "fs/g.ko.gz"));
	CHECK(module_is(s, "mod_zst", "fs/z.ko.zst"));
	CHECK(module_is(s, "mod_two", "fs/x.ko.xz"));
}

int main(void)
{
	struct tp_syms s;
	char *cache, *why = NULL, *m;
	size_t len;

	if (sh("command -v gcc >/dev/null && command -v xz >/dev/null && "
	       "command -v gzip >/dev/null && "
	       "command -v zstd >/dev/null") != 0) {
		printf("SKIP: gcc, xz, gzip or zstd missing\n");
		return 77;
	}
	CHECK(mkdtemp(dir) != NULL);
	CHECK(sh("mkdir -p %s/lib/modules/R/kernel/fs %s/elsewhere",
		 dir, dir) == 0);
	/* the kernel: one tracepoint (and its iterator), one other symbol */
	CHECK(object("vmlinux", "int __tracepoint_vm_one = 1; "
		     "void __traceiter_vm_iter(void) {} int other = 2;") == 0);
	/* modules: plain, xz, gzip, zstd; one only uses a tracepoint */
	CHECK(object("lib/modules/R/kernel/plain.ko",
		     "int __tracepoint_mod_plain = 1;") == 0);
	CHECK(object("lib/modules/R/kernel/fs/x.ko",
		     "int __tracepoint_mod_xz = 1; "
		     "int __tracepoint_mod_two = 1;") == 0);
	CHECK(object("lib/modules/R/kernel/fs/g.ko",
		     "int __tracepoint_mod_gz = 1;") == 0);
	CHECK(object("lib/modules/R/kernel/fs/z.ko",
		     "int __tracepoint_mod_zst = 1;") == 0);
	CHECK(object("lib/modules/R/kernel/user.ko",
		     "extern int __tracepoint_mod_used; "
		     "int *p = &__tracepoint_mod_used;") == 0);
	CHECK(object("elsewhere/hidden.ko",
		     "int __tracepoint_behind_link = 1;") == 0);
	CHECK(sh("cd %s/lib/modules/R/kernel/fs && xz x.ko && gzip g.ko && "
		 "zstd -q --rm z.ko && ln -s %s/elsewhere ../../build",
		 dir, dir) == 0);

	/* decompression by magic number */
	m = xasprintf("%s/lib/modules/R/kernel/fs/x.ko.xz", dir);
	{
		char *b = tp_syms_read_module(m, &len, &why);

		CHECK(b && len > 64 && memcmp(b, "\177ELF", 4) == 0);
		free(b);
	}
	free(m);

	CHECK(load(&s, NULL) == 0);
	CHECK(!s.from_cache);
	CHECK(s.n_modules == 5);
	CHECK(tp_syms_has(&s, "vm_one"));
	CHECK(tp_syms_has(&s, "vm_iter"));
	CHECK(tp_syms_has(&s, "mod_plain"));
	CHECK(tp_syms_has(&s, "mod_xz"));
	CHECK(tp_syms_has(&s, "mod_gz"));
	CHECK(tp_syms_has(&s, "mod_zst"));
	CHECK(!tp_syms_has(&s, "mod_used"));
	CHECK(!tp_syms_has(&s, "behind_link"));
	CHECK(!tp_syms_has(&s, "other"));
	/* the vmlinux's own, or a module's only */
	CHECK(!tp_syms_in_module(&s, "vm_one") && !tp_syms_in_module(&s, "vm_iter"));
	CHECK(tp_syms_in_module(&s, "mod_plain") && tp_syms_in_module(&s, "mod_zst"));
	CHECK(!tp_syms_in_module(&s, "other"));
	check_modules(&s);
	tp_syms_free(&s);

	/* the cache: written, read back, rebuilt when a module changes */
	cache = xasprintf("%s/cache/R/tracepoint-symbols.txt", dir);
	CHECK(load(&s, cache) == 0 && !s.from_cache);
	tp_syms_free(&s);
	CHECK(load(&s, cache) == 0 && s.from_cache);
	CHECK(s.n_modules == 5);
	CHECK(tp_syms_has(&s, "mod_zst") && tp_syms_has(&s, "vm_one"));
	CHECK(tp_syms_in_module(&s, "mod_zst") && !tp_syms_in_module(&s, "vm_one"));
	CHECK(!tp_syms_has(&s, "mod_used"));
	check_modules(&s);
	tp_syms_free(&s);
	CHECK(object("lib/modules/R/kernel/plain.ko",
		     "int __tracepoint_mod_new = 1;") == 0);
	CHECK(load(&s, cache) == 0 && !s.from_cache);
	CHECK(tp_syms_has(&s, "mod_new") && !tp_syms_has(&s, "mod_plain"));
	tp_syms_free(&s);
	/* a symbolic link planted as the cache (to a copy with a name
	 * added) is not read, and is replaced: its target stays as it was */
	CHECK(sh("cd %s/cache/R && sed 's/^mod_new$/mod_planted/' "
		 "tracepoint-symbols.txt >planted && "
		 "ln -sf planted tracepoint-symbols.txt", dir) == 0);
	CHECK(load(&s, cache) == 0 && !s.from_cache);
	CHECK(!tp_syms_has(&s, "mod_planted") && tp_syms_has(&s, "mod_new"));
	tp_syms_free(&s);
	CHECK(sh("cd %s/cache/R && test ! -L tracepoint-symbols.txt && "
		 "grep -qx mod_planted planted", dir) == 0);

	/* a damaged module: the set cannot be told */
	CHECK(sh("cd %s/lib/modules/R/kernel && head -c 100 fs/x.ko.xz "
		 ">bad.ko.xz", dir) == 0);
	{
		char *vm = xasprintf("%s/vmlinux", dir);
		char *mods = xasprintf("%s/lib/modules/R", dir);

		CHECK(tp_syms_load(vm, mods, cache, &s, &why) == -1);
		CHECK(why && strstr(why, "bad.ko.xz") &&
		      strstr(why, "bad xz data"));
		free(why);
		CHECK(s.names.n == 0);
		free(vm);
		free(mods);
	}
	free(cache);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return CHECK_DONE();
}
