// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of struct target (target/target.c) and the lib/ helpers it
 * rests on: a fake release with its own build tree (a .config, no
 * headers) for the paths, the .config lookups and the remembered
 * failures; target_host_refusal() over fake /proc and /sys trees;
 * lib/intern.c and lib/files.c (read_file, the cache directory and its
 * check, atomic writes over a planted symbolic link, sealed cache files).
 * Exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/target.h"
#include "lib/files.h"
#include "lib/intern.h"
#include "target/btf.h"
#include "target/moddebug.h"
#include "target/tracepoints.h"
#include "tests/unit/check.h"
#include "tests/unit/kernel_release.h"

/* root/path with the text (directories made) */
static void put(const char *root, const char *path, const char *text)
{
	char *full = xasprintf("%s%s", root, path);
	char *dir = xstrdup(full);

	*strrchr(dir, '/') = '\0';
	CHECK(make_dirs(dir) == 0);
	FILE *f = fopen(full, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(dir);
	free(full);
}

/* target_host_refusal() over fake /proc and /sys trees */
static void test_host_refusal(const char *dir)
{
	char *root = xasprintf("%s/host", dir);

	CHECK(strstr(target_host_refusal(root, false), "no module support"));
	put(root, "/proc/sys/kernel/modules_disabled", "1\n");
	CHECK(strstr(target_host_refusal(root, false), "kernel.modules_disabled"));
	put(root, "/proc/sys/kernel/modules_disabled", "0\n");
	CHECK(target_host_refusal(root, false) == NULL);
	put(root, "/sys/module/module/parameters/sig_enforce", "Y\n");
	CHECK(strstr(target_host_refusal(root, false), "module.sig_enforce"));
	CHECK(target_host_refusal(root, true) == NULL);	/* --sign-module */
	put(root, "/sys/module/module/parameters/sig_enforce", "N\n");
	put(root, "/sys/kernel/security/lockdown",
	    "[none] integrity confidentiality\n");
	CHECK(target_host_refusal(root, false) == NULL);
	put(root, "/sys/kernel/security/lockdown",
	    "none [integrity] confidentiality\n");
	CHECK(strstr(target_host_refusal(root, false), "locked down"));
	CHECK(target_host_refusal(root, true) == NULL);
	put(root, "/proc/sys/kernel/modules_disabled", "1\n");
	CHECK(strstr(target_host_refusal(root, true), "kernel.modules_disabled"));
	char *rm = xasprintf("rm -rf '%s'", root);
	CHECK(system(rm) == 0);
	free(rm);
	free(root);
}

/* lib/files.c: the cache directory, atomic writes, seals */
static void test_cache_files(const char *dir)
{
	struct arena a = { 0 };
	char why[256];
	char *c = xasprintf("%s/cache", dir), *f = xasprintf("%s/m.ko", c);
	char *victim = xasprintf("%s/victim", dir);
	char *sum = xasprintf("%s.sum", f);
	size_t len;
	char *data;

	/* HOME unset: the passwd entry's home, never /tmp */
	char *home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *xdg = getenv("XDG_CACHE_HOME") ? xstrdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *sc = getenv("STAP_CACHE") ? xstrdup(getenv("STAP_CACHE")) : NULL;
	unsetenv("HOME");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("STAP_CACHE");
	const char *cd = cache_dir(&a);
	CHECK(cd == NULL || strncmp(cd, "/tmp", 4) != 0);
	setenv("STAP_CACHE", c, 1);
	CHECK_STR(cache_dir(&a), c);
	if (home)
		setenv("HOME", home, 1);
	if (xdg)
		setenv("XDG_CACHE_HOME", xdg, 1);
	if (sc)
		setenv("STAP_CACHE", sc, 1);
	else
		unsetenv("STAP_CACHE");

	/* made 0700 and accepted; group-writable refused */
	CHECK(cache_dir_check(c, why, sizeof(why)) == 0);
	CHECK(chmod(c, 0770) == 0);
	CHECK(cache_dir_check(c, why, sizeof(why)) == -1);
	CHECK(strstr(why, "writable by group (mode 0770)"));
	CHECK(chmod(c, 0700) == 0);

	/* a symbolic link at the path is replaced, its target untouched */
	put(victim, "", "precious");
	CHECK(symlink(victim, f) == 0);
	CHECK(write_file_atomic(f, "new", 3) == 0);
	data = read_file(victim, NULL);
	CHECK(data && !strcmp(data, "precious"));
	free(data);
	data = read_file_nofollow(f, &len);
	CHECK(data && len == 3);
	free(data);

	/* seals: no seal (quiet), a match, a change, a link */
	CHECK(cache_read_sealed(f, &len, why, sizeof(why)) == NULL && !why[0]);
	CHECK(cache_write_sealed(f, "module", 6) == 0);
	data = cache_read_sealed(f, &len, why, sizeof(why));
	CHECK(data && len == 6 && !memcmp(data, "module", 6));
	free(data);
	put(f, "", "modulX");
	CHECK(cache_read_sealed(f, &len, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "does not match its seal"));
	CHECK(unlink(f) == 0 && symlink(victim, f) == 0);
	CHECK(cache_read_sealed(f, &len, why, sizeof(why)) == NULL);
	CHECK_STR(why, "it is a symbolic link");
	CHECK(read_file_nofollow(f, NULL) == NULL && errno == ELOOP);

	/* a sealed file in a directory others may write: refused there */
	CHECK(unlink(f) == 0 && cache_write_sealed(f, "module", 6) == 0);
	CHECK(chmod(c, 0777) == 0);
	CHECK(cache_read_sealed(f, &len, why, sizeof(why)) == NULL);
	CHECK(strstr(why, "its directory ") && strstr(why, "writable by group and others"));
	CHECK(chmod(c, 0700) == 0);

	/* the path walked: an own link followed, the result has none; a
	 * parent others may write (not sticky) refused, sticky accepted */
	char *link = xasprintf("%s/link", dir), *open_dir = xasprintf("%s/open", dir);
	char *under = xasprintf("%s/sub", open_dir);
	CHECK(symlink(c, link) == 0);
	char *walked = cache_dir_resolve(link, why, sizeof(why));
	CHECK(walked && !strcmp(walked + strlen(walked) - 6, "/cache") &&
	      !strstr(walked, "/link"));
	free(walked);
	CHECK(mkdir(open_dir, 0777) == 0 && chmod(open_dir, 0777) == 0);
	CHECK(cache_dir_check(under, why, sizeof(why)) == -1);
	CHECK(strstr(why, "its parent ") && strstr(why, "writable by group and others (mode 0777)"));
	CHECK(chmod(open_dir, 01777) == 0);
	CHECK(cache_dir_check(under, why, sizeof(why)) == 0);
	rmdir(under);
	rmdir(open_dir);
	unlink(link);
	free(under);
	free(open_dir);
	free(link);

	unlink(f);
	unlink(sum);
	unlink(victim);
	rmdir(c);
	free(home);
	free(xdg);
	free(sc);
	free(c);
	free(f);
	free(victim);
	free(sum);
	arena_free(&a);
}

static void test_intern(void)
{
	struct arena a = { 0 };
	struct intern t = { .arena = &a };
	char name[32];

	CHECK(intern_find(&t, "x", 1) == -1);
	CHECK(intern_add(&t, "abc", 3) == 0);
	CHECK(intern_add(&t, "abcdef", 3) == 0);	/* the first 3 bytes */
	CHECK(intern_add(&t, "abd", 3) == 1);
	for (int i = 0; i < 5000; i++) {	/* grows several times */
		snprintf(name, sizeof(name), "n%d", i);
		CHECK(intern_add(&t, name, strlen(name)) == i + 2);
	}
	CHECK(intern_find(&t, "n4999", 5) == 5001);
	CHECK_STR(t.s[1], "abd");
	intern_free(&t);
	arena_free(&a);
}

int main(void)
{
	char dir[] = "/tmp/test_target.XXXXXX";
	const char *err = NULL, *name, *value;
	struct target *t;
	size_t len;
	char *p, *text;
	FILE *f;

	test_intern();
	if (!mkdtemp(dir))
		return 1;
	test_host_refusal(dir);
	test_cache_files(dir);
	p = xasprintf("%s/.config", dir);
	f = fopen(p, "w");
	fputs("# comment\nCONFIG_A=y\n# CONFIG_B is not set\n"
	      "CONFIG_C=\"str\"\nCONFIG_D=12\nCONFIG_A=m\nNOT_CONFIG=1\n", f);
	fclose(f);

	text = read_file(p, &len);
	CHECK(text && len == 94 && text[len] == '\0');
	free(text);
	CHECK(read_file("/no/such/file", NULL) == NULL);

	t = target_new("0.0-test", dir);
	CHECK_STR(t->release, "0.0-test");
	CHECK_STR(t->build_dir, dir);
	CHECK_STR(t->config_path, p);
	CHECK_STR(t->image, "/boot/vmlinuz-0.0-test");
	CHECK(t->debug_vmlinux == NULL);
	CHECK_STR(t->debug_tried, "/usr/lib/debug/boot/vmlinux-0.0-test");
	CHECK(t->cache_dir != NULL);
	target_set_cache_dir(t, NULL);
	CHECK(t->cache_dir == NULL);

	/* .config: the last value wins, "not set" is unset, quotes kept */
	CHECK_STR(target_config(t, "CONFIG_A"), "m");
	CHECK(target_config(t, "CONFIG_B") == NULL);
	CHECK_STR(target_config(t, "CONFIG_C"), "\"str\"");
	CHECK_STR(target_config(t, "CONFIG_D"), "12");
	CHECK(target_config(t, "NOT_CONFIG") == NULL);
	CHECK(target_config_at(t, 0, &name, &value));
	CHECK_STR(name, "CONFIG_A");
	CHECK(target_config_at(t, 2, &name, &value));
	CHECK_STR(name, "CONFIG_D");
	CHECK(!target_config_at(t, 3, &name, &value));

	/* catalogs that cannot load: NULL, the same reason every time */
	CHECK(target_functions(t, &err) == NULL);
	CHECK(err && strstr(err, "linux-image-0.0-test-dbg"));
	CHECK(target_dwarf(t, &err) == NULL && err);
	CHECK(target_btf(t, &err) == NULL && err);
	const char *first = err;
	CHECK(target_btf(t, &err) == NULL && err == first);
	CHECK(target_tracepoints(t, &err) == NULL);
	CHECK(err && strstr(err, "no trace headers found under"));
	target_release_functions(t);
	CHECK(target_functions(t, &err) == NULL && err);

	/* module("M") points: the release's modules by name ('-' and '_'
	 * alike), and a module without debuginfo names the package */
	const char **mods;
	put(dir, "/mods/kernel/drivers/x/fake-mod.ko.xz", "");
	put(dir, "/mods/kernel/fs/other.ko", "");
	put(dir, "/mods/build/skipped.ko", "");
	t->modules_dir = xasprintf("%s/mods", dir);
	CHECK(target_modules_matching(t, "fake_*", &mods) == 1);
	CHECK_STR(mods[0], "fake_mod");
	CHECK(target_modules_matching(t, "*", &mods) == 2);
	CHECK(target_modules_matching(t, "skipped", &mods) == 0);
	CHECK(target_module_debug(t, "fake-mod", &err) == NULL);
	CHECK(err && strstr(err, "install linux-image-0.0-test-dbg") &&
	      strstr(err, "/usr/lib/debug/lib/modules/0.0-test/kernel/drivers/"
		     "x/fake-mod.ko"));
	CHECK(target_module_functions(t, "fake_mod", &err) == NULL && err &&
	      strstr(err, "linux-image-0.0-test-dbg"));
	CHECK(target_module_dwarf(t, "nope", &err) == NULL && err &&
	      strstr(err, "no module 'nope'"));
	char *rm = xasprintf("rm -rf '%s'", t->modules_dir);
	CHECK(system(rm) == 0);
	free(rm);
	free((char *)t->modules_dir);
	target_free(t);

	/* no build tree: no configuration */
	t = target_new("0.0-no-such-release", NULL);
	CHECK(t->build_dir == NULL && t->config_path == NULL);
	CHECK(target_config(t, "CONFIG_A") == NULL);
	target_free(t);

	/* an installed release: catalogs load once and are remembered */
	char *rel = test_debug_release();
	if (rel) {
		const struct tp_catalog *c;

		t = target_new(rel, NULL);
		target_set_cache_dir(t, NULL);
		CHECK(t->build_dir && t->debug_vmlinux);
		CHECK(target_config(t, "CONFIG_64BIT") &&
		      !strcmp(target_config(t, "CONFIG_64BIT"), "y"));
		CHECK((c = target_tracepoints(t, &err)) && c->n > 1000);
		CHECK(target_tracepoints(t, &err) == c);
		/* only what the kernel defines: afs is built neither in nor
		 * as a module, btrfs is a module, sched in vmlinux */
		CHECK(c->n_dropped > 100 && c->defined_from &&
		      strstr(c->defined_from, " modules"));
		CHECK(!tp_catalog_find(c, "afs", "afs_call"));
		CHECK(tp_catalog_find(c, "btrfs", "btrfs_sync_fs"));
		CHECK(tp_catalog_find(c, "sched", "sched_switch"));
		target_release_tracepoints(t);
		CHECK(target_tracepoints(t, &err) && !err);
		CHECK(target_btf(t, &err) && !err);
		CHECK(target_dwarf(t, &err) && !err);
		target_free(t);
		free(rel);
	}

	unlink(p);
	free(p);
	rmdir(dir);
	return CHECK_DONE();
}
