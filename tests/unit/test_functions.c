// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the kernel function catalog (target/functions.c) and the
 * kernel.function listing, on the installed Debian 6.1 debug vmlinux
 * (/usr/lib/debug/boot/vmlinux-6.1.*, or KF_RELEASE). The expected texts
 * are SystemTap 4.8's -L output for that kernel, without the decl line
 * numbers (they move between 6.1 stable releases). Exit 0 pass, 1 fail,
 * 77 (skip) without the debug vmlinux.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "target/functions.h"
#include "probes/listing.h"
#include "tests/unit/check.h"
#include "tests/unit/kernel_release.h"

static char *listing(const struct kf_catalog *c, const char *spec, bool vars,
		     bool guru, int *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*n = list_kernel_functions(c, spec, vars, guru, f);
	fclose(f);
	return buf;
}

/*
 * One -L line: 'kernel.function("NAME@FILE:<any line>")SUFFIX VARS'; want
 * is the line with the number left out: 'kernel.function("NAME@FILE:")...'.
 */
static void check_line(const struct kf_catalog *c, const char *spec,
		       const char *want)
{
	int n;
	char *got = listing(c, spec, true, false, &n), *colon, *end;

	CHECK(n == 1);
	colon = strstr(got, ":");
	if (colon && colon[1] >= '0' && colon[1] <= '9') {
		end = colon + 1;
		while (*end >= '0' && *end <= '9')
			end++;
		memmove(colon + 1, end, strlen(end) + 1);
	}
	CHECK_STR(got, want);
	free(got);
}

static int count(const struct kf_catalog *c, const char *spec, bool guru)
{
	int n;

	free(listing(c, spec, false, guru, &n));
	return n;
}

static const struct kfunc *find(const struct kf_catalog *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->funcs[i].name, name) == 0)
			return &c->funcs[i];
	return NULL;
}

static void check_spec_parsing(void)
{
	struct kf_query q;
	const char *sfx;
	char *mem;

	CHECK(parse_kfunc_spec("kernel.function(\"vfs_*@fs/*.c:12\").call",
			       &q, &sfx, &mem));
	CHECK_STR(q.func, "vfs_*");
	CHECK_STR(q.file, "fs/*.c");
	CHECK(q.line == 12 && q.kind == KF_CALL);
	CHECK_STR(sfx, ".call");
	free(mem);
	CHECK(parse_kfunc_spec("kernel.function(\"f\").return.maxactive(9)",
			       &q, &sfx, &mem));
	CHECK(q.kind == KF_RETURN && !q.file && q.line == -1);
	free(mem);
	CHECK(parse_kfunc_spec("kernel.function(\"f\").inline", &q, &sfx,
			       &mem) && q.kind == KF_INLINE);
	free(mem);
	CHECK(parse_kfunc_spec("kernel.function(\"f\").exported", &q, &sfx,
			       &mem) && q.kind == KF_EXPORTED_ONLY);
	free(mem);
	CHECK(!parse_kfunc_spec("kernel.function(\"f\").label(\"x\")", &q,
				&sfx, &mem));
	CHECK(!parse_kfunc_spec("kernel.function(\"f\").return.maxactive()",
				&q, &sfx, &mem));
	CHECK(!parse_kfunc_spec("kernel.function(0x1234)", &q, &sfx, &mem));
	CHECK(!parse_kfunc_spec("kernel.trace(\"sched_switch\")", &q, &sfx,
				&mem));
	CHECK(!parse_kfunc_spec("kernel.function(\"\")", &q, &sfx, &mem));
}

static void check_blocklist(void)
{
	CHECK(kf_blocklisted("_raw_spin_lock", "kernel/locking/spinlock.c",
			     false));
	CHECK(kf_blocklisted("atomic_inc", "include/linux/atomic.h", false));
	CHECK(kf_blocklisted("do_int3", "arch/x86/kernel/traps.c", false));
	CHECK(kf_blocklisted("register_kprobe", "kernel/kprobes.c", false));
	CHECK(kf_blocklisted("readl", "arch/x86/include/asm/io.h", false));
	CHECK(!kf_blocklisted("readl", "arch/x86/include/asm/io.c", false));
	CHECK(kf_blocklisted("do_exit", "kernel/exit.c", true));
	CHECK(!kf_blocklisted("do_exit", "kernel/exit.c", false));
	CHECK(!kf_blocklisted("vfs_read", "fs/read_write.c", true));
	/* anchored: the whole name must match */
	CHECK(!kf_blocklisted("my_get_current", "x.c", false));
	CHECK(kf_blocklisted("get_current", "x.c", false));
}

static void check_catalog(const struct kf_catalog *c)
{
	const struct kfunc *f;
	char *s;
	int n;

	/* 6.1.0-56: 74710 functions, 356223 instances, 2172 CUs */
	CHECK(c->n > 50000 && c->n < 150000);
	CHECK(c->ncus > 1000);
	CHECK(c->ninline > c->ninst / 2);
	for (int i = 1; i < c->n; i++) {
		int r = strcmp(c->funcs[i - 1].name, c->funcs[i].name);

		if (!r)
			r = strcmp(c->funcs[i - 1].file, c->funcs[i].file);
		if (!r)
			r = c->funcs[i - 1].line < c->funcs[i].line ? -1 : 1;
		if (r >= 0) {
			CHECK(r < 0);
			break;
		}
	}

	check_line(c, "kernel.function(\"vfs_read\")",
		   "kernel.function(\"vfs_read@fs/read_write.c:\") "
		   "$file:struct file* $buf:char* $count:size_t "
		   "$pos:loff_t*\n");
	check_line(c, "kernel.function(\"vfs_read\").return",
		   "kernel.function(\"vfs_read@fs/read_write.c:\").return "
		   "$return:ssize_t $file:struct file* $buf:char* "
		   "$count:size_t $pos:loff_t*\n");
	check_line(c, "kernel.function(\"__x64_sys_openat\")",
		   "kernel.function(\"__x64_sys_openat@fs/open.c:\") "
		   "$regs:struct pt_regs const*\n");
	/* function pointers, va_list, a static local's array type */
	check_line(c, "kernel.function(\"kthread_create_on_node\")",
		   "kernel.function(\"kthread_create_on_node@"
		   "kernel/kthread.c:\") $threadfn:int (*) (void*) "
		   "$data:void* $node:int $namefmt:char const* "
		   "$args:va_list\n");
	check_line(c, "kernel.function(\"call_rcu\")",
		   "kernel.function(\"call_rcu@kernel/rcu/tree.c:\") "
		   "$head:struct callback_head* $func:rcu_callback_t "
		   "$__func__:char const[] const\n");
	/* anonymous struct, volatile */
	check_line(c, "kernel.function(\"clwb\")",
		   "kernel.function(\"clwb@arch/x86/include/asm/"
		   "special_insns.h:\") $__p:void volatile* "
		   "$p:struct {...} volatile*\n");
	/* an inline-only function: the variables all copies have */
	check_line(c, "kernel.function(\"task_pid_nr_ns\")",
		   "kernel.function(\"task_pid_nr_ns@include/linux/"
		   "sched.h:\") $tsk:struct task_struct*\n");
	/* @file, also as a suffix of the path */
	check_line(c, "kernel.function(\"vfs_read@read_write.c\")",
		   "kernel.function(\"vfs_read@fs/read_write.c:\") "
		   "$file:struct file* $buf:char* $count:size_t "
		   "$pos:loff_t*\n");

	f = find(c, "vfs_read");
	CHECK(f && (f->flags & KF_EXTERNAL) && (f->flags & KF_EXPORTED));
	CHECK(f && f->ninst == 1 && !(f->inst[0].flags & KF_INST_INLINE));
	CHECK(f && f->inst[0].addr >= 0xffffffff81000000ULL);
	CHECK(f && f->ret_type && strcmp(f->ret_type, "ssize_t") == 0);
	f = find(c, "task_pid_nr_ns");
	CHECK(f && f->ninst > 10);
	for (int i = 0; f && i < f->ninst; i++)
		if (!(f->inst[i].flags & KF_INST_INLINE)) {
			CHECK(f->inst[i].flags & KF_INST_INLINE);
			break;
		}
	CHECK(count(c, "kernel.function(\"task_pid_nr_ns\").call", false) ==
	      0);
	CHECK(count(c, "kernel.function(\"task_pid_nr_ns\").return", false) ==
	      0);
	CHECK(count(c, "kernel.function(\"vfs_read\").inline", false) == 0);

	/* refused: by name (-g lifts it), and the .init.text section */
	CHECK(count(c, "kernel.function(\"do_int3\")", false) == 0);
	CHECK(count(c, "kernel.function(\"do_int3\")", true) == 1);
	CHECK(count(c, "kernel.function(\"*_raw_spin_lock*\")", false) == 0);
	CHECK(count(c, "kernel.function(\"start_kernel\")", false) == 0);
	f = find(c, "start_kernel");
	CHECK(f && f->ninst == 1 && (f->inst[0].flags & KF_INST_REFUSED));
	CHECK(count(c, "kernel.function(\"do_exit\")", false) == 1);
	CHECK(count(c, "kernel.function(\"do_exit\").return", false) == 0);

	/* sorted as strings; wildcards on the name */
	s = listing(c, "kernel.function(\"do_sys_open*\")", false, false, &n);
	CHECK(n == 2);
	CHECK(strncmp(s, "kernel.function(\"do_sys_open@fs/open.c:", 39) ==
	      0);
	CHECK(strstr(s, "\nkernel.function(\"do_sys_openat2@fs/open.c:") !=
	      NULL);
	free(s);

	/* no DWARF: symbol-table functions without @file */
	s = listing(c, "kernel.function(\"__kernel_read*\")", true, false,
		    &n);
	CHECK(n == 2);
	CHECK(strncmp(s, "kernel.function(\"__kernel_read.cold\")\n", 38) ==
	      0);
	free(s);
	f = find(c, "__kernel_read.cold");
	CHECK(f && (f->flags & KF_SYMTAB) && !*f->file && f->ninst == 1);

	/* an alias finds the DWARF function at the same address */
	s = listing(c, "kernel.function(\"memcpy\")", false, false, &n);
	CHECK(n == 1);
	CHECK(strncmp(s, "kernel.function(\"__memcpy@", 26) == 0);
	free(s);

	CHECK(count(c, "kernel.function(\"nosuchfunction\")", false) == 0);
	CHECK(count(c, "kernel.function(\"vfs_*@fs/read_write.c\").call",
		    false) == 11);
}

static char *all_vars(const struct kf_catalog *c, int *n)
{
	return listing(c, "kernel.function(\"*\")", true, false, n);
}

int main(void)
{
	char *rel = test_debug_release(), *err = NULL, *all1, *all2;
	char dir[] = "/tmp/test_functions.XXXXXX";
	struct arena a = { 0 };
	struct kf_catalog c, c2;
	const char *vmlinux, *tried;
	int n1, n2;

	check_spec_parsing();
	check_blocklist();
	if (!rel) {
		printf("SKIP: no debug vmlinux "
		       "/usr/lib/debug/boot/vmlinux-6.1.* (install "
		       "linux-image-6.1.0-N-cloud-amd64-dbg or run "
		       "scripts/setup.sh)\n");
		return 77;
	}
	vmlinux = kf_find_vmlinux(rel, &a, &tried);
	if (!vmlinux) {
		printf("SKIP: missing %s\n", tried);
		return 77;
	}
	CHECK(kf_catalog_load(rel, "/nonexistent/vmlinux", NULL, &c, &err) ==
	      -1);
	CHECK(err && strstr(err, "/nonexistent/vmlinux"));
	free(err);
	err = NULL;

	/* built (into a fresh cache), then read back from it */
	CHECK(mkdtemp(dir) != NULL);
	if (kf_catalog_load(rel, vmlinux, dir, &c, &err) != 0) {
		printf("FAIL: %s\n", err);
		return 1;
	}
	CHECK(!c.from_cache);
	/* the cold build's peak RSS: 526 MB when libdw's decoded line
	 * tables, its parsed locations and the mapped DWARF stayed in
	 * memory to the end; about 105 MB since (target/functions.c,
	 * "Memory") */
	{
		struct rusage ru;

		CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
		if (ru.ru_maxrss >= 250 * 1024)
			printf("cold build peak RSS %ld KB, over 250 MB\n",
			       ru.ru_maxrss);
		CHECK(ru.ru_maxrss < 250 * 1024);
	}
	check_catalog(&c);
	CHECK(kf_catalog_load(rel, vmlinux, dir, &c2, &err) == 0);
	CHECK(c2.from_cache);
	check_catalog(&c2);
	CHECK(c2.n == c.n && c2.ninst == c.ninst && c2.ninline == c.ninline);
	all1 = all_vars(&c, &n1);
	all2 = all_vars(&c2, &n2);
	CHECK(n1 == n2 && n1 > 50000);
	CHECK(strcmp(all1, all2) == 0);
	free(all1);
	free(all2);
	kf_catalog_free(&c2);
	kf_catalog_free(&c);
	{
		char *cmd;

		if (asprintf(&cmd, "rm -rf '%s'", dir) > 0) {
			CHECK(system(cmd) == 0);
			free(cmd);
		}
	}
	arena_free(&a);
	free(rel);
	return CHECK_DONE();
}
