// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the DWARF location translator (target/dwloc.c) on the
 * installed Debian 6.1 debug vmlinux (or KF_RELEASE): vfs_read's
 * parameters are the first argument registers at its entry, do_mmap's
 * seventh is on the stack above the return address, a missing variable
 * and one without a location at the entry are errors, and every inlined
 * copy of a few functions is found by its entry pc (its register
 * locations translate, frame ones are refused). Exit 0 pass, 1 fail, 77
 * (skip) without the debug vmlinux.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/loc_c.h"
#include "target/functions.h"
#include "tests/unit/check.h"
#include "tests/unit/kernel_release.h"

/* The first out-of-line (or, with inlined, inlined) copy of name. */
static const struct kf_inst *instance(const struct kf_catalog *c,
				      const char *name, bool inlined)
{
	for (int i = 0; i < c->n; i++) {
		if (strcmp(c->funcs[i].name, name))
			continue;
		for (int k = 0; k < c->funcs[i].ninst; k++)
			if (!(c->funcs[i].inst[k].flags & KF_INST_INLINE) ==
			    !inlined)
				return &c->funcs[i].inst[k];
	}
	return NULL;
}

static const char *loc(struct dwloc_file *f, struct arena *a,
		       const struct kf_inst *in, const char *var,
		       struct dwloc *out)
{
	return loc_c_var(f, a, in->addr, in->cu, var, 8, out);
}

int main(void)
{
	char *release = test_debug_release(), *err = NULL;
	const char *tried, *vmlinux, *msg;
	struct kf_catalog cat;
	struct arena a = { 0 };
	struct dwloc_file *f;
	struct dwloc l;
	const struct kf_inst *in;

	if (!release || !(vmlinux = kf_find_vmlinux(release, &a, &tried))) {
		printf("SKIP: no 6.1 debug vmlinux\n");
		return 77;
	}
	if (kf_catalog_load(release, vmlinux, NULL, &cat, &err)) {
		fprintf(stderr, "catalog: %s\n", err);
		return 1;
	}
	f = dwloc_open(vmlinux, &err);
	CHECK(f != NULL);
	if (!f)
		return CHECK_DONE();

	in = instance(&cat, "vfs_read", false);
	CHECK(in != NULL);
	if (in) {
		CHECK(loc(f, &a, in, "file", &l) == NULL);
		CHECK(l.kind == DWL_REGISTER && !strcmp(l.reg, "di"));
		CHECK(loc(f, &a, in, "count", &l) == NULL);
		CHECK(l.kind == DWL_REGISTER && !strcmp(l.reg, "dx"));
		msg = loc(f, &a, in, "nosuch", &l);
		CHECK(msg && strstr(msg, "unable to find local 'nosuch'"));
		msg = loc(f, &a, in, "ret", &l);
		CHECK(msg && strstr(msg, "not accessible at this address"));
		struct dwloc_name *names;
		int n = dwloc_names(f, &a, in->addr, in->cu, &names);
		CHECK(n == 5);
		if (n == 5) {
			CHECK_STR(names[2].name, "count");
			CHECK(names[2].is_param && !names[4].is_param);
		}
	}
	/* 6.1: do_mmap(file, addr, len, prot, flags, pgoff, populate, uf) */
	in = instance(&cat, "do_mmap", false);
	CHECK(in != NULL);
	if (in) {
		CHECK(loc(f, &a, in, "populate", &l) == NULL);
		CHECK(l.kind == DWL_MEMORY);
		CHECK(strstr(l.expr, "regs->sp + 8ULL") != NULL);
	}
	/* inlined copies: found, and translated or refused, never lost */
	static const char *const inl[] = { "get_current", "kmalloc",
					   "d_inode", NULL };
	int found = 0;
	for (int i = 0; inl[i]; i++) {
		in = instance(&cat, inl[i], true);
		if (!in)
			continue;
		struct dwloc_name *names;
		CHECK(dwloc_names(f, &a, in->addr, in->cu, &names) >= 0);
		found++;
	}
	CHECK(found > 0);
	dwloc_close(f);
	kf_catalog_free(&cat);
	arena_free(&a);
	free(release);
	free(err);
	return CHECK_DONE();
}
