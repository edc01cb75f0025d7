// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of struct target (target/target.c) and the lib/ helpers it
 * rests on: a fake release with its own build tree (a .config, no
 * headers) for the paths, the .config lookups and the remembered
 * failures; lib/intern.c and lib/files.c's read_file. Exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/target.h"
#include "lib/files.h"
#include "lib/intern.h"
#include "target/btf.h"
#include "target/tracepoints.h"
#include "tests/unit/check.h"
#include "tests/unit/kernel_release.h"

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
