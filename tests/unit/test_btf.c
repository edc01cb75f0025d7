// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of target/btf.c on the installed Debian kernels: the newest
 * 6.1 and 6.12 releases found under /boot (vmlinuz) or
 * /usr/lib/debug/boot (the -dbg vmlinux). For each: BTF from the bzImage,
 * from the -dbg vmlinux and from the cache (timings printed, not
 * asserted), members through typedefs, pointers and anonymous unions,
 * bitfields, the C spellings btf_find_type() takes, SystemTap's type
 * names, and every tracepoint argument type of the catalog read back
 * through btf_find_type() and btf_type_name(). Also the failures: no such
 * kernel, not BTF, unknown kinds, truncation, a stale cache. Exit 0 pass,
 * 1 fail, 77 (skip) when no release has a vmlinuz or -dbg vmlinux.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/arena.h"
#include "lib/files.h"
#include "target/btf.h"
#include "target/target.h"
#include "target/tracepoints.h"
#include "tests/unit/check.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The newest release named by /boot/vmlinuz-PREFIX* or the -dbg
 * vmlinux-PREFIX*, or NULL. */
static char *find_release(const char *prefix)
{
	static const char *const dirs[] = { "/boot/vmlinuz-",
					    "/usr/lib/debug/boot/vmlinux-" };
	char *best = NULL;

	for (int d = 0; d < 2; d++) {
		char pat[256];
		glob_t g;

		snprintf(pat, sizeof(pat), "%s%s*", dirs[d], prefix);
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc) {
			const char *rel = g.gl_pathv[g.gl_pathc - 1] +
					  strlen(dirs[d]);

			if (!best || strverscmp(rel, best) > 0) {
				free(best);
				best = strdup(rel);
			}
		}
		globfree(&g);
	}
	return best;
}

static void check_name(const struct btf *b, int id, const char *want)
{
	char *got = btf_type_name(b, id);

	CHECK_STR(got, want);
	free(got);
}

/* member NAME of STRUCT_ID: its type id (0 and a failed check if none) */
static int member(const struct btf *b, int struct_id, const char *name,
		  unsigned *bit_offset, unsigned *bits)
{
	unsigned off = 0, bf = 0;
	int tid = 0;

	if (btf_member(b, struct_id, name, &tid, &off, &bf) != 0) {
		fprintf(stderr, "no member %s\n", name);
		CHECK(!"member not found");
		return 0;
	}
	if (bit_offset)
		*bit_offset = off;
	if (bits)
		*bits = bf;
	return tid;
}

static void check_task_struct(const struct btf *b, bool char_signed)
{
	int ts = btf_find_type((struct btf *)b, "struct task_struct");
	struct btf_info i, e;
	unsigned off, bits;
	int t;

	CHECK(ts > 0);
	btf_resolve(b, ts, &i);
	CHECK(i.cls == BTF_CLASS_STRUCT && i.id == ts && i.size > 1000);
	check_name(b, ts, "struct task_struct");

	t = member(b, ts, "pid", &off, &bits);
	check_name(b, t, "pid_t");
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_INT && i.size == 4 && i.is_signed &&
	      !i.is_char && i.id != t);
	check_name(b, i.id, "int");
	CHECK(off % 32 == 0 && bits == 0);

	t = member(b, ts, "comm", &off, NULL);
	check_name(b, t, "char[]");	/* SystemTap prints no bound */
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_ARRAY && i.nelems == 16 && i.size == 16 &&
	      i.is_char);
	btf_resolve(b, i.target, &e);
	CHECK(e.cls == BTF_CLASS_INT && e.size == 1 && e.is_char);
	/* Linux 6.2 builds with -funsigned-char */
	CHECK(e.is_signed == char_signed);
	check_name(b, i.target, "char");

	t = member(b, ts, "real_parent", NULL, NULL);
	check_name(b, t, "struct task_struct*");
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_PTR && i.size == 8 && !i.is_char);
	btf_resolve(b, i.target, &e);
	CHECK(e.cls == BTF_CLASS_STRUCT && e.id == ts);

	/* a bitfield: unsigned sched_reset_on_fork:1 */
	t = member(b, ts, "sched_reset_on_fork", &off, &bits);
	check_name(b, t, "unsigned int");
	CHECK(bits == 1);
	CHECK(btf_member(b, ts, "no_such_member", &t, &off, &bits) == -1);
	CHECK(btf_member(b, t = btf_find_type((struct btf *)b, "int"), "x",
			 &t, &off, &bits) == -1);
}

static void check_members(const struct btf *b)
{
	int skb = btf_find_type((struct btf *)b, "struct sk_buff");
	int file = btf_find_type((struct btf *)b, "struct file");
	int page = btf_find_type((struct btf *)b, "struct page");
	int t, path, dentry, qstr;
	unsigned off, bits, base;
	struct btf_info i;

	CHECK(skb > 0 && file > 0 && page > 0);
	t = member(b, skb, "len", NULL, NULL);
	check_name(b, t, "unsigned int");
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_INT && i.size == 4 && !i.is_signed);

	/* union { struct { next, prev, union { dev, dev_scratch } };
	 * rbnode; list; ... } at the start of sk_buff */
	t = member(b, skb, "next", &off, NULL);
	check_name(b, t, "struct sk_buff*");
	CHECK(off == 0);
	member(b, skb, "prev", &off, NULL);
	CHECK(off == 64);
	t = member(b, skb, "dev", &off, NULL);
	check_name(b, t, "struct net_device*");
	CHECK(off == 128);
	member(b, skb, "dev_scratch", &off, NULL);
	CHECK(off == 128);
	t = member(b, skb, "rbnode", &off, NULL);
	check_name(b, t, "struct rb_node");
	CHECK(off == 0);

	/* flags; union { struct { union { lru; struct { __filler;
	 * mlock_count } ... }; mapping; ... } ... } */
	member(b, page, "flags", &off, NULL);
	CHECK(off == 0);
	t = member(b, page, "mapping", &off, NULL);
	check_name(b, t, "struct address_space*");
	CHECK(off == 192);
	t = member(b, page, "mlock_count", &off, NULL);
	check_name(b, t, "unsigned int");
	CHECK(off == 128);

	/* file->f_path.dentry->d_name.name */
	t = member(b, file, "f_path", &base, NULL);
	check_name(b, t, "struct path");
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_STRUCT && i.size == 16);
	path = i.id;
	t = member(b, path, "dentry", &off, NULL);
	check_name(b, t, "struct dentry*");
	CHECK(off == 64 && base % 64 == 0);
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_PTR);
	btf_resolve(b, i.target, &i);
	CHECK(i.cls == BTF_CLASS_STRUCT);
	dentry = i.id;
	t = member(b, dentry, "d_name", NULL, NULL);
	check_name(b, t, "struct qstr");
	btf_resolve(b, t, &i);
	qstr = i.id;
	t = member(b, qstr, "name", &off, &bits);
	check_name(b, t, "unsigned char const*");
	btf_resolve(b, t, &i);
	CHECK(i.cls == BTF_CLASS_PTR && i.is_char);
	btf_resolve(b, i.target, &i);	/* through the const */
	CHECK(i.cls == BTF_CLASS_INT && i.is_char && !i.is_signed);
	/* qstr { union { struct { hash, len }; hash_len }; name } */
	CHECK(off == 64 && bits == 0);
	member(b, qstr, "len", &off, NULL);
	CHECK(off == 32);
}

static void check_spellings(struct btf *b)
{
	static const char *const round_trip[] = {
		"struct task_struct*", "char const*", "unsigned int",
		"long int", "long unsigned int", "pid_t", "bool", "u64",
		"void*", "void const*", "struct rpc_task const*",
		"struct task_struct const*", "char**", "short unsigned int",
		"long long int", "signed char", "_Bool", "enum pid_type",
		"union bpf_attr*", "__u64", "gfp_t",
		"int (*) (unsigned int, struct hlist_node*)",
		"void (*) (void)", "int (*) (struct seq_file*, void*)",
		"unsigned char (*) (char const*, unsigned int const)",
	};
	struct btf_info i, e;
	int ts = btf_find_type(b, "struct task_struct"), id;

	for (size_t k = 0; k < sizeof(round_trip) / sizeof(*round_trip);
	     k++) {
		id = btf_find_type(b, round_trip[k]);
		if (!id)
			fprintf(stderr, "not found: %s\n", round_trip[k]);
		CHECK(id > 0);
		check_name(b, id, round_trip[k]);
		/* found again: the same id, nothing added twice */
		CHECK(btf_find_type(b, round_trip[k]) == id);
	}

	id = btf_find_type(b, "struct task_struct*");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_PTR && i.target == ts);

	/* C's spellings */
	CHECK(btf_find_type(b, "const char *") ==
	      btf_find_type(b, "char const*"));
	CHECK(btf_find_type(b, "unsigned long") ==
	      btf_find_type(b, "long unsigned int"));
	CHECK(btf_find_type(b, "signed short") ==
	      btf_find_type(b, "short int"));
	CHECK(btf_find_type(b, "unsigned") ==
	      btf_find_type(b, "unsigned int"));
	CHECK(btf_find_type(b, "struct task_struct *p") ==
	      btf_find_type(b, "struct task_struct*"));
	CHECK(btf_find_type(b, "int (*fn)(unsigned int cpu, "
			       "struct hlist_node *node)") ==
	      btf_find_type(b, "int (*) (unsigned int, struct hlist_node*)"));

	id = btf_find_type(b, "char[16]");
	check_name(b, id, "char[]");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_ARRAY && i.nelems == 16 && i.size == 16 &&
	      i.is_char);
	id = btf_find_type(b, "int[2][3]");
	btf_resolve(b, id, &i);
	btf_resolve(b, i.target, &e);
	CHECK(i.nelems == 2 && i.size == 24 && e.nelems == 3 &&
	      e.size == 12);
	check_name(b, id, "int[]");
	id = btf_find_type(b, "char[]");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_ARRAY && i.nelems == 0);

	id = btf_find_type(b, "bool");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_INT && i.size == 1 && !i.is_signed);
	id = btf_find_type(b, "u64");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_INT && i.size == 8 && !i.is_signed);
	id = btf_find_type(b, "void*");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_PTR && i.target == 0 && i.size == 8);
	btf_resolve(b, 0, &i);
	CHECK(i.cls == BTF_CLASS_VOID);
	check_name(b, 0, "void");
	id = btf_find_type(b, "int (*) (unsigned int, struct hlist_node*)");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_FUNC_PTR && i.size == 8 && i.target > 0);
	id = btf_find_type(b, "enum pid_type");
	btf_resolve(b, id, &i);
	CHECK(i.cls == BTF_CLASS_ENUM && i.size == 4);

	/* unknown or not understood: 0 */
	CHECK(btf_find_type(b, "struct no_such_struct*") == 0);
	CHECK(btf_find_type(b, "no_such_t") == 0);
	CHECK(btf_find_type(b, "unsigned char long") == 0);
	CHECK(btf_find_type(b, "int (") == 0);
	CHECK(btf_find_type(b, "int [x]") == 0);
	CHECK(btf_find_type(b, "") == 0);
	check_name(b, -1, "<unknown>");
	check_name(b, 1 << 30, "<unknown>");
	btf_resolve(b, 1 << 30, &i);
	CHECK(i.cls == BTF_CLASS_OTHER);
}

/* Every argument type of the tracepoint catalog, through btf_find_type()
 * and back through btf_type_name(), when the release's headers are
 * installed. Types defined only in modules (btrfs, sunrpc, afs, ...: about
 * a fifth of them) are not in vmlinux's BTF and give 0. */
static void check_catalog(struct btf *b, const char *release)
{
	struct tp_catalog c;
	char *err = NULL;
	int n = 0, found = 0, same = 0;

	if (tp_catalog_load(release, NULL, NULL, &c, &err) != 0) {
		printf("  catalog: skipped (%s)\n", err);
		free(err);
		return;
	}
	for (int t = 0; t < c.n; t++) {
		for (int a = 0; a < c.tps[t].nargs; a++) {
			const char *ct = c.tps[t].args[a].c_type;
			int id = btf_find_type(b, ct);
			char *nm;

			n++;
			if (!id)
				continue;
			found++;
			nm = btf_type_name(b, id);
			if (strcmp(nm, ct) == 0)
				same++;
			else
				fprintf(stderr, "name differs: %s -> %s\n", ct,
					nm);
			free(nm);
		}
	}
	printf("  catalog: %d argument types, %d found in BTF, %d named "
	       "back the same\n", n, found, same);
	CHECK(n > 3000);
	CHECK(found > n * 3 / 4);
	CHECK(same == found);
	tp_catalog_free(&c);
}

static void check_errors(const char *dir)
{
	struct btf *b = NULL;
	char *err = NULL, path[4096];
	/* header + one INT + one type of kind 25 */
	unsigned char blob[24 + 16 + 12 + 8] = { 0x9f, 0xeb, 1, 0, 24 };
	FILE *f;

	CHECK(btf_load("0.0-no-such-release", NULL, &b, &err) == -1);
	CHECK(b == NULL && err && strstr(err, "no BTF") != NULL);
	free(err);
	CHECK(btf_load_file("/etc/passwd", &b, &err) == -1);
	CHECK(err && strstr(err, "neither BTF") != NULL);
	free(err);
	CHECK(btf_load_file("/no/such/file", &b, &err) == -1);
	free(err);

	/* type_off 0, type_len 28, str_off 28, str_len 8 */
	blob[12] = 28;
	blob[16] = 28;
	blob[20] = 8;
	blob[24] = 1;			/* INT, 4 bytes, "x" */
	blob[24 + 4 + 3] = 1;
	blob[24 + 8] = 4;
	blob[24 + 12] = 32;
	blob[24 + 16 + 4 + 3] = 25;	/* kind 25 */
	memcpy(blob + 24 + 28, "\0x\0abc\0\0", 8);
	snprintf(path, sizeof(path), "%s/bad.btf", dir);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	fwrite(blob, sizeof(blob), 1, f);
	fclose(f);
	CHECK(btf_load_file(path, &b, &err) == -1);
	CHECK(err && strstr(err, "unknown kind 25") != NULL);
	free(err);

	/* the same with a pointer to "x" there: loads; cut short: not */
	blob[24 + 16 + 4 + 3] = 2;
	blob[24 + 16 + 8] = 1;
	f = fopen(path, "wb");
	fwrite(blob, sizeof(blob), 1, f);
	fclose(f);
	CHECK(btf_load_file(path, &b, &err) == 0);
	if (b) {
		check_name(b, btf_find_type(b, "x"), "x");
		CHECK(btf_find_type(b, "x*") == 2);
		CHECK(btf_find_type(b, "struct task_struct") == 0);
		btf_free(b);
	}
	f = fopen(path, "wb");
	fwrite(blob, sizeof(blob) - 10, 1, f);
	fclose(f);
	CHECK(btf_load_file(path, &b, &err) == -1);
	free(err);
	unlink(path);
}

/* NAME's module file under drivers/watchdog, or NULL. */
static char *watchdog_module(const char *release, const char *name)
{
	static const char *const ends[] = { ".ko", ".ko.xz", ".ko.zst",
					    ".ko.gz" };

	for (int i = 0; i < 4; i++) {
		char *p = xasprintf("/lib/modules/%s/kernel/drivers/watchdog/"
				    "%s%s", release, name, ends[i]);

		if (exists(p))
			return p;
		free(p);
	}
	return NULL;
}

/*
 * Modules' split BTF added to vmlinux's (target_module_btf): watchdog.ko
 * defines struct watchdog_device, and softdog.ko, split on vmlinux alone,
 * repeats it: two scopes with their own ids, vmlinux's types through
 * both, scope 0 unchanged; then the same from the cache (CACHE/RELEASE/
 * btf-NAME).
 */
static void check_modules(const char *release, const char *dir)
{
	struct target *t = target_new(release, NULL);
	char *wd = watchdog_module(release, "watchdog");
	char *sd = watchdog_module(release, "softdog");
	const char *err = NULL;
	struct btf *b;
	int s1, s2, w1, w2, ts, mt;
	unsigned off, bits;
	char *why = NULL;
	uint8_t *junk;

	target_set_cache_dir(t, dir);
	b = target_btf(t, &err);
	if (!b || !wd || !sd) {
		printf("  SKIP modules: %s\n", b ? "no watchdog.ko or "
		       "softdog.ko" : err);
		goto out;
	}
	ts = btf_find_type(b, "struct task_struct");
	CHECK(btf_find_type(b, "struct watchdog_device") == 0);
	s1 = target_module_btf(t, wd, &err);
	s2 = target_module_btf(t, sd, &err);
	CHECK(s1 > 0 && s2 > 0 && s1 != s2);
	CHECK(target_module_btf(t, wd, &err) == s1);	/* remembered */
	w1 = btf_find_type_in(b, "struct watchdog_device", s1);
	w2 = btf_find_type_in(b, "struct watchdog_device", s2);
	CHECK(w1 > 0 && w2 > 0 && w1 != w2);
	CHECK(btf_find_type(b, "struct watchdog_device") == 0);
	CHECK(btf_find_type_in(b, "struct task_struct", s1) == ts);
	CHECK(btf_find_type(b, "struct task_struct") == ts);
	check_name(b, w1, "struct watchdog_device");
	CHECK(member(b, w1, "timeout", &off, &bits) ==
	      btf_find_type(b, "unsigned int") && off == 52 * 8);
	CHECK(member(b, w2, "timeout", &off, &bits) > 0 && off == 52 * 8);
	mt = member(b, w1, "parent", &off, &bits);
	check_name(b, mt, "struct device*");
	mt = member(b, w1, "info", &off, &bits);
	check_name(b, mt, "struct watchdog_info const*");
	{
		struct btf_info in;
		int p = btf_find_type_in(b, "struct watchdog_device *", s1);

		btf_resolve(b, p, &in);
		CHECK(in.cls == BTF_CLASS_PTR);
		btf_resolve(b, in.target, &in);
		CHECK(in.cls == BTF_CLASS_STRUCT && in.id == w1 &&
		      in.size >= 56);
	}
	/* not split BTF: refused, the scopes as they were */
	junk = xmalloc(8);
	memset(junk, 0, 8);
	CHECK(btf_add_module(b, "junk", junk, 8, &why) == 0);
	CHECK(why && strstr(why, "junk"));
	free(why);
	CHECK(btf_find_type_in(b, "struct watchdog_device", s2) == w2);
	/* a second run reads the module's blob from the cache */
	target_free(t);
	t = target_new(release, NULL);
	target_set_cache_dir(t, dir);
	b = target_btf(t, &err);
	{
		char *cached = xasprintf("%s/%s/btf-watchdog", dir, release);

		CHECK(exists(cached));
		s1 = b ? target_module_btf(t, wd, &err) : 0;
		CHECK(s1 > 0 && btf_find_type_in(b, "struct watchdog_device",
						 s1) == w1);
		unlink(cached);
		free(cached);
		cached = xasprintf("%s/%s/btf-softdog", dir, release);
		unlink(cached);
		free(cached);
		cached = xasprintf("%s/%s", dir, release);
		rmdir(cached);
		free(cached);
	}
out:
	free(wd);
	free(sd);
	target_free(t);
}

static int test_release(const char *release, const char *dir)
{
	char vmlinuz[512], dbg[512], cache[1024];
	struct btf *b = NULL, *w = NULL;
	char *err = NULL;
	unsigned major = 0, minor = 0;
	bool char_signed;
	double t0;
	int ts_id = 0;

	snprintf(vmlinuz, sizeof(vmlinuz), "/boot/vmlinuz-%s", release);
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/boot/vmlinux-%s", release);
	sscanf(release, "%u.%u", &major, &minor);
	char_signed = major < 6 || (major == 6 && minor < 2);
	printf("%s:\n", release);

	if (exists(vmlinuz)) {
		t0 = now();
		CHECK(btf_load_file(vmlinuz, &b, &err) == 0);
		printf("  cold, from %s: %.3f s\n", vmlinuz, now() - t0);
		if (!b) {
			fprintf(stderr, "%s\n", err);
			free(err);
		} else {
			check_task_struct(b, char_signed);
			ts_id = btf_find_type(b, "struct task_struct");
			btf_free(b);
		}
	} else {
		printf("  SKIP: no %s\n", vmlinuz);
	}
	if (exists(dbg)) {
		t0 = now();
		CHECK(btf_load_file(dbg, &b, &err) == 0);
		printf("  from the -dbg vmlinux: %.3f s\n", now() - t0);
		if (!b) {
			fprintf(stderr, "%s\n", err);
			free(err);
		} else {
			/* the same BTF as the bzImage's */
			CHECK(!ts_id ||
			      btf_find_type(b, "struct task_struct") == ts_id);
			btf_free(b);
		}
	} else {
		printf("  SKIP: no %s\n", dbg);
	}

	/* btf_load: fills the cache, then reads it */
	t0 = now();
	CHECK(btf_load(release, dir, &b, &err) == 0);
	printf("  btf_load, cache empty (%s): %.3f s\n",
	       b ? btf_source(b) : err, now() - t0);
	if (!b) {
		free(err);
		return 0;
	}
	CHECK(strncmp(btf_source(b), "cache ", 6) != 0);
	t0 = now();
	CHECK(btf_load(release, dir, &w, &err) == 0);
	printf("  warm, from the cache: %.3f s\n", now() - t0);
	if (!w) {
		free(err);
		btf_free(b);
		return 0;
	}
	CHECK(strncmp(btf_source(w), "cache ", 6) == 0);
	check_task_struct(w, char_signed);
	check_members(w);
	check_spellings(w);
	check_catalog(w, release);
	check_modules(release, dir);
	btf_free(w);
	btf_free(b);

	/* a cache whose source's mtime differs is not used */
	snprintf(cache, sizeof(cache), "%s/btf-%s", dir, release);
	{
		FILE *f = fopen(cache, "r+b");

		CHECK(f != NULL);
		if (f) {
			fseek(f, 16, SEEK_SET);		/* src_mtime_sec */
			fputc(0x55, f);
			fclose(f);
		}
	}
	CHECK(btf_load(release, dir, &b, &err) == 0);
	if (b) {
		CHECK(strncmp(btf_source(b), "cache ", 6) != 0);
		btf_free(b);
	} else {
		free(err);
	}
	CHECK(btf_load(release, dir, &b, &err) == 0);	/* rewritten */
	if (b) {
		CHECK(strncmp(btf_source(b), "cache ", 6) == 0);
		btf_free(b);
	} else {
		free(err);
	}
	unlink(cache);
	return 1;
}

int main(void)
{
	static const char *const prefixes[] = { "6.1.", "6.12." };
	char dir[] = "/tmp/test_btf.XXXXXX";
	int tested = 0;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	check_errors(dir);
	for (int i = 0; i < 2; i++) {
		char *rel = find_release(prefixes[i]);

		if (!rel) {
			printf("SKIP: no Linux %s* vmlinuz or -dbg vmlinux\n",
			       prefixes[i]);
			continue;
		}
		tested += test_release(rel, dir);
		free(rel);
	}
	rmdir(dir);
	if (!tested) {
		printf("SKIP: no kernel to read BTF from\n");
		return 77;
	}
	return CHECK_DONE();
}
