// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF backend's steps (--runtime=bpf): refuses (pass 2, refuse.c),
 * translate (pass 3, emit.c: one C file, two halves), build (pass 4: clang
 * -target bpf for the kernel half, cc -shared for the loader's) and run
 * (pass 5, loader.c, on the running kernel with no module; or stapbpf in
 * a qemu guest of -r's kernel, bpf_run_guest).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/bpf.h"
#include "lib/files.h"
#include "lib/hash.h"
#include "lib/outfiles.h"
#include "semantic/semantic.h"
#include "vm/vm.h"

/* After pass 2: the -D limits this backend honours, the others said. */
static int bpf_prepare(struct driver *d)
{
	return bpf_defines_check(d->s);
}

static int bpf_translate(struct driver *d, struct program *prog)
{
	char *src = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&src, &len);

	if (!f)
		return 1;
	int rc = bpf_emit(d->s, prog, f);
	fclose(f);
	if (rc) {
		free(src);
		return 1;
	}
	d->source = src;
	d->source_len = len;
	return 0;
}

/* Run argv, its output to stderr; 0 when it succeeded. */
static int run_tool(char *const argv[], bool verbose)
{
	if (verbose) {
		fputs("Running", stderr);
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fputc('\n', stderr);
	}
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "stap: error: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * The build cache: a program's two objects under CACHE/bpf/HASH.{bpf.o,so},
 * keyed by its C (which names the kernel's types and functions, relocated
 * at load) and the tools' commands, sealed as the module cache's files
 * are. A second run of a script skips pass 4 (clang's ~0.2 s). from_cache:
 * copy the cached objects to o and so (1 when they are there); else store
 * o and so.
 */
static int build_cache(struct driver *d, const char *o, const char *so,
		       bool from_cache, const char **cached_so)
{
	struct session *s = d->s;
	const char *const suffix[2] = { "bpf.o", "so" };
	const char *const path[2] = { o, so };
	char why[256];

	if (!s->cache_dir || getenv("STAP_BPF_NO_CACHE"))
		return 0;
	uint64_t h = fnv1a(FNV_OFFSET, d->source, d->source_len);
	h = fnv1a(h, "clang -O2 -g; cc -shared -O1 v2", 32);
	const char *dir = arena_printf(&s->arena, "%s/bpf", s->cache_dir);
	if (!from_cache && make_dirs(dir))
		return 0;
	for (int i = 0; i < 2; i++) {
		const char *c = arena_printf(&s->arena, "%s/%016llx.%s", dir,
					     (unsigned long long)h, suffix[i]);
		size_t len;
		char *data = from_cache ? cache_read_sealed(c, &len, why,
							    sizeof(why)) :
			     read_file(path[i], &len);
		if (!data)
			return 0;
		int rc = from_cache ? write_file_atomic(path[i], data, len) :
			 cache_write_sealed(c, data, len);
		free(data);
		if (rc)
			return 0;
		if (i == 1 && cached_so)
			*cached_so = c;
	}
	return from_cache;
}

static int bpf_build(struct driver *d)
{
	struct session *s = d->s;
	bool verbose = s->verbose > 1;
	const char *c = arena_printf(&s->arena, "%s/prog.c", d->tmpdir);
	const char *o = arena_printf(&s->arena, "%s/prog.bpf.o", d->tmpdir);
	const char *so = arena_printf(&s->arena, "%s/prog.so", d->tmpdir);
	FILE *f = fopen(c, "w");

	if (!f || fwrite(d->source, 1, d->source_len, f) != d->source_len) {
		fprintf(stderr, "stap: error: writing %s: %s\n", c,
			strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	const char *cached = NULL;
	if (build_cache(d, o, so, true, &cached)) {
		if (verbose)
			fprintf(stderr, "stap: the BPF objects from the cache\n");
		d->ko_path = arena_strdup(&s->arena, cached);
		return 0;
	}
	/* the kernel half goes inside the user half (the loader opens it
	 * from memory): one file is the whole program, which a guest's
	 * loader gets as a module file */
	const char *embed = arena_printf(&s->arena, "%s/prog_obj.s",
					 d->tmpdir);
	f = fopen(embed, "w");
	/* the object's path as an assembler string (--tmpdir may name any) */
	char *quoted = arena_alloc(&s->arena, 2 * strlen(o) + 1), *q = quoted;
	for (const char *p = o; *p; p++) {
		if (*p == '"' || *p == '\\')
			*q++ = '\\';
		*q++ = *p;
	}
	*q = '\0';
	if (!f || fprintf(f, "\t.section .rodata\n\t.balign 8\n"
			  "\t.globl stp_bpf_object\nstp_bpf_object:\n"
			  "\t.incbin \"%s\"\n\t.globl stp_bpf_object_end\n"
			  "stp_bpf_object_end:\n"
			  "\t.section .note.GNU-stack,\"\",@progbits\n",
			  quoted) < 0) {
		fprintf(stderr, "stap: error: writing %s: %s\n", embed,
			strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	char *clang[] = { "clang", "-target", "bpf", "-O2", "-g",
			  "-D__TARGET_ARCH_x86", "-w",
			  "-I/usr/include/x86_64-linux-gnu", "-c", (char *)c,
			  "-o", (char *)o, NULL };
	/* the user half's regular expressions use runtime/regex.h */
	const char *inc = arena_printf(&s->arena, "-iquote%s",
				       d->runtime_dir);
	char *cc[] = { "cc", "-shared", "-fPIC", "-O1", "-w", (char *)inc,
		       (char *)c, (char *)embed, "-o", (char *)so, "-lbpf",
		       NULL };
	if (run_tool(clang, verbose) || run_tool(cc, verbose)) {
		fprintf(stderr, "stap: error: compiling the BPF program failed "
			"(a bug of the bpf backend: please report it)\n");
		return 1;
	}
	/* -p4 prints the program's file: the cache's when it is stored */
	d->ko_path = arena_strdup(&s->arena, so);
	if (build_cache(d, o, so, false, &cached) == 0 && cached)
		d->ko_path = arena_strdup(&s->arena, cached);
	return 0;
}

/*
 * Pass 5 in a qemu guest of the target kernel (bpf_in_guest): the guest
 * runs the loader stapbpf (beside stap) from this machine's files, which
 * it mounts read-only (virtio-fs: root only), with the program's one
 * file (the user half with the kernel half inside) as its module.
 */
static int bpf_run_guest(struct driver *d, int out_fd)
{
	struct session *s = d->s;
	const struct bpf_run *r = d->own;

	if (!r->forced)
		fprintf(stderr, "stap: %s is not the running kernel: running "
			"in a qemu guest of it\n", s->release);
	const char *workdir = arena_printf(&s->arena, "%s/vm", d->tmpdir);
	if (mkdir(workdir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "stap: error: cannot create %s: %s\n", workdir,
			strerror(errno));
		return 1;
	}
	struct vm_options o = {
		.release = s->release,
		.staprun = arena_printf(&s->arena, "%s/staprun", d->exe_dir),
		.workdir = workdir,
		.verbose = s->verbose > 1,
		.memory_mb = r->vm_memory_mb,
		.cpus = r->vm_cpus,
	};
	if (!vm_host_shared(&o)) {
		fprintf(stderr, "stap: error: the bpf backend in a guest needs "
			"this machine's files in it (virtio-fs, as root, with "
			"%s): its loader and libbpf are there\n",
			"virtiofsd");
		return 1;
	}
	const char **args = arena_alloc(&s->arena, 4 * sizeof(*args));
	int nargs = 0;
	for (int i = 0; i < s->verbose - 1 && i < 3; i++)
		args[nargs++] = "-v";
	args[nargs] = NULL;
	struct vm_job job = {
		.module = d->ko_path,
		.cmd = s->target_cmd,
		.staprun_args = nargs ? args : NULL,
		.loader = arena_printf(&s->arena, "/host%s/stapbpf",
				       d->exe_dir),
	};
	return vm_run_stream(&o, &job, out_fd, 2) == 0 ? 0 : 1;
}

/* Pass 5: here or in a guest; the script's output to stdout, or to -o's
 * file (its name as staprun makes it: lib/outfiles.h; -S's rotation is
 * the module backend's). */
static int bpf_run(struct driver *d)
{
	struct session *s = d->s;
	struct out_files of = { .name = s->output_file, .fd = -1 };
	char path[PATH_MAX];
	int saved = -1, rc;

	if (s->size_option) {
		fprintf(stderr, "stap: error: -S (output files by size) is not "
			"on the bpf backend yet (the kernel backend has it: "
			"--runtime=kernel)\n");
		return 1;
	}
	if (s->output_file && out_files_open(&of, path)) {
		fprintf(stderr, "stap: error: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	if (bpf_in_guest()) {
		rc = bpf_run_guest(d, of.fd >= 0 ? of.fd : 1);
	} else {
		if (of.fd >= 0) {
			fflush(stdout);
			saved = dup(1);
			dup2(of.fd, 1);
		}
		rc = bpf_load_and_run(d->tmpdir, s->verbose > 1,
				      s->target_cmd, s->target_pid);
		fflush(stdout);
		if (saved >= 0) {
			dup2(saved, 1);
			close(saved);
		}
	}
	if (of.fd >= 0 && out_files_close(&of) && !rc) {
		fprintf(stderr, "stap: error: writing %s: %s\n", path,
			strerror(errno));
		rc = 1;
	}
	return rc;
}

const struct backend bpf_backend = {
	.name = "bpf",
	.refuses = bpf_refuses,
	.unplaceable = bpf_unplaceable,
	.prepare = bpf_prepare,
	.translate = bpf_translate,
	.build = bpf_build,
	.run = bpf_run,
	.translated = "translated to BPF C",
	.built = "compiled by clang -target bpf",
};
