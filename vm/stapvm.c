// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stapvm.c - run compiled probe modules in a qemu guest from the command
 * line: batches for the test suite and benchmarks, or one streamed run.
 *
 *   stapvm [OPTIONS] --batch OUTDIR [LOADER=>]MODULE.ko[,NAME=VALUE...][::CMD]...
 *   stapvm [OPTIONS] --stream MODULE.ko [-c CMD]
 *
 * OPTIONS: -r RELEASE, --kernel IMAGE, --staprun PATH (default $STAPRUN),
 * --busybox PATH, --icount, --timeout S, --cpus N, --memory MB,
 * --kernel-args ARGS (more of the guest kernel's command line, e.g.
 * module.sig_enforce=1), -k (keep the work dir), -v (repeat for more),
 * --file HOST (into the guest's /bin) or --file HOST:/GUEST (at /GUEST),
 * --staprun-arg ARG (for every job's loader), --no-host-files (the
 * busybox world alone: without it, as root, the guest mounts this
 * machine's files read-only over virtio-fs, vm.h's no_host_share).
 *
 * LOADER=> runs that job with LOADER, a path in the guest (e.g. SystemTap
 * 4.8's staprun placed with --file), instead of /bin/staprun; it gets the
 * same arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vm/vm.h"
#include "target/target.h"

static void vm_usage(void)
{
	fputs("usage: stapvm [-r RELEASE] [--kernel IMAGE] [--staprun PATH]\n"
	      "              [--busybox PATH] [--icount] [--timeout S]\n"
	      "              [--no-host-files]\n"
	      "              [--cpus N] [--memory MB] [--kernel-args ARGS]\n"
	      "              [-k] [-v]\n"
	      "              [--file HOST[:/GUEST]]... [--staprun-arg ARG]...\n"
	      "              (--batch OUTDIR [LOADER=>]MODULE.ko[,NAME=VALUE...][::CMD]... |\n"
	      "               --stream MODULE.ko [-c CMD])\n", stderr);
	exit(1);
}

static int vm_rm_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static int vm_copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(from, O_RDONLY), out, err = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		err = write(out, buf, n) != n;
	close(in);
	if (close(out) || n < 0)
		err = 1;
	return err ? -1 : 0;
}

static int vm_write_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	err = fputs(text, f) < 0;
	return fclose(f) || err ? -1 : 0;
}

static const char *const *staprun_args;	/* --staprun-arg, for every job */

static int vm_batch(const struct vm_options *o, const char *outdir,
		    char **specs, int n)
{
	struct vm_job *jobs = calloc(n, sizeof(*jobs));
	struct vm_result *res = calloc(n, sizeof(*res));
	char path[4096], num[32], *problems;
	int i, ret;

	if (!jobs || !res) {
		fputs("stapvm: out of memory\n", stderr);
		return 1;
	}
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "stapvm: cannot create %s: %s\n", outdir,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		char *arrow = strstr(specs[i], "=>");
		char *cmdsep = strstr(specs[i], "::");

		/* LOADER=>: this job's loader, a path in the guest */
		if (arrow && (!cmdsep || arrow < cmdsep)) {
			*arrow = '\0';
			jobs[i].loader = specs[i];
			specs[i] = arrow + 2;
		}
		char *sep = strstr(specs[i], "::");

		if (sep) {
			*sep = '\0';
			jobs[i].cmd = sep + 2;
		}
		/* ,NAME=VALUE: module parameters (stap -G), for staprun */
		char *comma = strchr(specs[i], ',');
		if (comma) {
			int nargs = 0;
			for (char *c = comma; c; c = strchr(c + 1, ','))
				nargs++;
			const char **margs = calloc((size_t)nargs + 1, sizeof(*margs));
			if (!margs) {
				fputs("stapvm: out of memory\n", stderr);
				return 1;
			}
			nargs = 0;
			for (char *c = comma; c; c = strchr(c, ',')) {
				*c++ = '\0';
				margs[nargs++] = c;
			}
			jobs[i].module_args = margs;
		}
		jobs[i].module = specs[i];
		jobs[i].staprun_args = staprun_args;
	}
	ret = vm_run_batch(o, jobs, n, res) ? 1 : 0;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d.stdout", outdir, i);
		vm_copy(res[i].stdout_path, path);
		snprintf(path, sizeof(path), "%s/%d.stderr", outdir, i);
		vm_copy(res[i].stderr_path, path);
		snprintf(path, sizeof(path), "%d.rc", i);
		snprintf(num, sizeof(num), "%d\n", res[i].status);
		vm_write_text(outdir, path, num);
	}
	vm_write_text(outdir, "dmesg.txt", vm_last_dmesg());
	problems = vm_dmesg_problems(vm_last_dmesg());
	if (problems) {
		fprintf(stderr, "stapvm: guest kernel problem: %.*s "
			"(see %s/dmesg.txt)\n",
			(int)strcspn(problems, "\n"), problems, outdir);
		free(problems);
		ret = 2;
	}
	vm_results_free(res, n);
	free(res);
	free(jobs);
	return ret;
}

int main(int argc, char **argv)
{
	struct vm_options o = { 0 };
	char workdir[] = "/tmp/stapvm.XXXXXX";
	/* at most one --file or --staprun-arg an argument */
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	const char **sargs = calloc((size_t)argc + 1, sizeof(*sargs));
	int nfiles = 0, nsargs = 0;
	const char *batch = NULL, *stream = NULL, *cmd = NULL;
	int i, keep = 0, ret;

	o.staprun = getenv("STAPRUN");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v")) {
			o.verbose++;
		} else if (!strcmp(a, "-k")) {
			keep = 1;
		} else if (!strcmp(a, "--icount")) {
			o.icount = 1;
		} else if (!strcmp(a, "--no-host-files")) {
			o.no_host_share = true;
		} else if (!v) {
			vm_usage();
		} else if (!strcmp(a, "-r")) {
			o.release = v;
			i++;
		} else if (!strcmp(a, "--kernel")) {
			o.kernel_image = v;
			i++;
		} else if (!strcmp(a, "--staprun")) {
			o.staprun = v;
			i++;
		} else if (!strcmp(a, "--busybox")) {
			o.busybox = v;
			i++;
		} else if (!strcmp(a, "--timeout")) {
			o.timeout_s = atoi(v);
			i++;
		} else if (!strcmp(a, "--cpus")) {
			o.cpus = atoi(v);
			i++;
		} else if (!strcmp(a, "--kernel-args")) {
			o.kernel_args = v;	/* appended to the command line */
			i++;
		} else if (!strcmp(a, "--memory")) {
			o.memory_mb = atoi(v);
			i++;
		} else if (!strcmp(a, "--file")) {
			files[nfiles++] = v;	/* /bin or HOST:/GUEST */
			o.extra_files = files;
			i++;
		} else if (!strcmp(a, "--staprun-arg")) {
			sargs[nsargs++] = v;	/* e.g. -o /dev/null */
			staprun_args = sargs;
			i++;
		} else if (!strcmp(a, "--batch")) {
			batch = v;
			i += 2;
			break;
		} else if (!strcmp(a, "--stream")) {
			stream = v;
			i += 2;
			if (i + 1 < argc && !strcmp(argv[i], "-c")) {
				cmd = argv[i + 1];
				i += 2;
			}
			break;
		} else {
			vm_usage();
		}
	}
	if ((!batch && !stream) || (batch && i >= argc) ||
	    (stream && i != argc))
		vm_usage();
	if (!o.staprun) {
		fputs("stapvm: no loader: use --staprun or $STAPRUN\n",
		      stderr);
		return 1;
	}
	if (!o.release && !o.kernel_image) {
		o.release = target_newest_installed();
		if (!o.release) {
			fputs("stapvm: no kernel with a build tree in /boot\n",
			      stderr);
			return 1;
		}
	}
	if (!mkdtemp(workdir)) {
		perror("stapvm: mkdtemp");
		return 1;
	}
	o.workdir = workdir;

	if (batch) {
		ret = vm_batch(&o, batch, argv + i, argc - i);
	} else {
		struct vm_job job = { .module = stream, .cmd = cmd };

		ret = vm_run_stream(&o, &job, 1, 2);
		if (ret < 0)
			ret = 1;
	}
	if (keep)
		fprintf(stderr, "stapvm: work dir kept: %s\n", workdir);
	else
		nftw(workdir, vm_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}
