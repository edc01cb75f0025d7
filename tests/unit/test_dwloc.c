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

/* p run both ways: the message (NULL: none), the same both ways. */
static const char *both_ways(struct arena *a, const struct elf_loc_op *ops,
			     int n, unsigned size, struct dwloc *c)
{
	struct elf_loc l = { .ops = ops, .n = n };
	struct dwloc_prog p = { .loc = &l };
	struct dwloc_value v;
	const char *checked = dwloc_eval(a, &p, size, NULL, NULL, &v);
	const char *rendered = loc_c(a, &p, size, c);

	CHECK(!checked == !rendered);
	if (checked && rendered)
		CHECK_STR(checked, rendered);
	if (!checked && !rendered)
		CHECK(v.kind == c->kind);
	return rendered;
}

static void synthetic(void)
{
	struct arena a = { 0 };
	struct dwloc c;
	const struct elf_loc_op rdx[] = { { .kind = ELF_LOC_REG, .reg = 1 } };
	const struct elf_loc_op r17[] = { { .kind = ELF_LOC_REG, .reg = 17 } };
	const struct elf_loc_op sp_deref[] = {
		{ .kind = ELF_LOC_BREG, .reg = 7, .offset = 8 },
		{ .kind = ELF_LOC_DEREF, .size = 8 },
	};
	const struct elf_loc_op wide[] = {
		{ .kind = ELF_LOC_BREG, .reg = 7 },
		{ .kind = ELF_LOC_DEREF, .size = 16 },
	};
	const struct elf_loc_op piece[] = {
		{ .kind = ELF_LOC_REG, .reg = 0 },
		{ .kind = ELF_LOC_PIECE, .size = 4 },
	};
	const struct elf_loc_op under[] = {
		{ .kind = ELF_LOC_DEREF, .size = 8 },
	};

	CHECK(both_ways(&a, rdx, 1, 8, &c) == NULL);
	CHECK(c.kind == DWL_REGISTER && !strcmp(c.reg, "dx"));
	CHECK(both_ways(&a, sp_deref, 2, 8, &c) == NULL);
	CHECK(c.kind == DWL_MEMORY && !strcmp(c.expr, "stp_dw0") &&
	      strstr(c.code, "((u64)regs->sp) + (u64)8LL") != NULL);
	CHECK_STR(both_ways(&a, r17, 1, 8, &c),
		  "DWARF register 17 is not a general purpose register");
	CHECK_STR(both_ways(&a, wide, 2, 8, &c),
		  "DW_OP_deref_size of an unsupported size");
	CHECK_STR(both_ways(&a, piece, 2, 8, &c),
		  "a value split into pieces is not supported yet");
	CHECK(both_ways(&a, piece, 2, 4, &c) == NULL);
	CHECK_STR(both_ways(&a, under, 1, 8, &c),
		  "malformed DWARF expression (stack underflow)");
	arena_free(&a);
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

	synthetic();
	if (!release || !(vmlinux = kf_find_vmlinux(release, &a, &tried))) {
		printf("SKIP: no 6.1 debug vmlinux\n");
		return check_failures ? CHECK_DONE() : 77;
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
