// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 5: run the module. On a host that can load modules, staprun runs
 * it here; otherwise (or with --vm) a throwaway qemu guest of the target
 * kernel runs staprun and the output streams back (stap/vm.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stap/driver.h"
#include "stap/vm.h"

/* -G settings as staprun's NAME=VALUE arguments, NULL-terminated. */
static const char **module_args(struct session *s)
{
	const char **args = arena_alloc(&s->arena, (size_t)(s->nglobal_settings + 1) *
					sizeof(*args));
	for (int i = 0; i < s->nglobal_settings; i++)
		args[i] = arena_printf(&s->arena, "%s=%s",
				       s->global_settings[i].name,
				       s->global_settings[i].value);
	args[s->nglobal_settings] = NULL;
	return args;
}

static int run_local(struct driver *d)
{
	struct session *s = d->s;
	const char **settings = module_args(s);
	char **argv = arena_alloc(&s->arena, (size_t)(16 + s->nglobal_settings) *
				  sizeof(*argv));
	int n = 0;
	char pid[32];

	argv[n++] = (char *)d->staprun;
	for (int i = 0; i < s->verbose && i < 3; i++)
		argv[n++] = "-v";	/* the module reports its attach */
	if (s->output_file) {
		argv[n++] = "-o";
		argv[n++] = (char *)s->output_file;
	}
	if (s->target_cmd) {
		argv[n++] = "-c";
		argv[n++] = (char *)s->target_cmd;
	}
	if (s->target_pid) {
		snprintf(pid, sizeof(pid), "%ld", s->target_pid);
		argv[n++] = "-x";
		argv[n++] = pid;
	}
	argv[n++] = d->ko_path;
	for (int i = 0; settings[i]; i++)
		argv[n++] = (char *)settings[i];
	argv[n] = NULL;
	int rc = run_command(argv, NULL, false);
	return rc == 0 ? 0 : 1;
}

static int run_vm(struct driver *d)
{
	struct session *s = d->s;
	int out_fd = 1;

	if (!d->force_vm)
		fprintf(stderr, "stap: the host kernel cannot load modules: "
			"running in a qemu guest of %s\n", s->release);
	if (s->verbose)
		fprintf(stderr, "stap: the guest: %d MB, %d CPU(s), busybox "
			"and the loader only (-c runs busybox's commands)\n",
			d->vm_memory_mb ? d->vm_memory_mb : 512,
			d->vm_cpus ? d->vm_cpus : 1);
	if (s->target_pid) {
		fprintf(stderr, "stap: error: -x PID has no meaning in a guest\n");
		return 1;
	}
	if (s->output_file) {
		out_fd = open(s->output_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "stap: error: cannot open %s: %s\n",
				s->output_file, strerror(errno));
			return 1;
		}
	}
	const char *workdir = arena_printf(&s->arena, "%s/vm", d->tmpdir);
	if (mkdir(workdir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "stap: error: cannot create %s: %s\n", workdir,
			strerror(errno));
		return 1;
	}
	struct vm_options o = {
		.release = s->release,
		.staprun = d->staprun,
		.workdir = workdir,
		.verbose = s->verbose > 1,
		.memory_mb = d->vm_memory_mb,
		.cpus = d->vm_cpus,
	};
	static const char *const verbose_args[] = { "-v", "-v", "-v", NULL };
	int nv = s->verbose < 3 ? s->verbose : 3;
	struct vm_job job = {
		.module = d->ko_path,
		.cmd = s->target_cmd,
		.staprun_args = nv ? verbose_args + 3 - nv : NULL,
		.module_args = module_args(s),
	};
	int rc = vm_run_stream(&o, &job, out_fd, 2);
	if (out_fd != 1)
		close(out_fd);
	return rc == 0 ? 0 : 1;
}

int run_module(struct driver *d)
{
	return d->use_vm ? run_vm(d) : run_local(d);
}
