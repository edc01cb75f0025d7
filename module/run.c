// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 5: run the module. On a host that can load modules, staprun runs
 * it here; otherwise (or with --vm) a throwaway qemu guest of the target
 * kernel runs staprun and the output streams back (vm/vm.c). The
 * driver chose which (d->use_vm).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "module/build.h"
#include "vm/vm.h"

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

static volatile sig_atomic_t loader_pid;

/* SIGINT, SIGTERM, SIGHUP: the loader ends the run (its end probes run);
 * ^C of the terminal reaches it too, and once is enough for it. */
static void forward_signal(int sig)
{
	if (loader_pid > 0)
		kill(loader_pid, sig);
}

/*
 * staprun on this host. We wait for it whatever signal comes (it decides
 * when the run is over and delivers the end probes' output), and it gets
 * SIGTERM -- a normal stop, the module unloaded -- if we die first.
 */
static int run_loader(char *const argv[])
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = forward_signal }, old[3];
	pid_t parent = getpid();
	int status;

	sigemptyset(&sa.sa_mask);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		perror("stap: fork");
		return 1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "stap: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	loader_pid = pid;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	loader_pid = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	return status != -1 && WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
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
	return run_loader(argv);
}

static int run_vm(struct driver *d)
{
	struct session *s = d->s;
	int out_fd = 1;

	if (!d->force_vm && d->host_refusal)
		fprintf(stderr, "stap: the host kernel cannot load modules "
			"(%s): running in a qemu guest of %s\n",
			d->host_refusal, s->release);
	else if (!d->force_vm)
		fprintf(stderr, "stap: %s is not the running kernel: running "
			"in a qemu guest of it\n", s->release);
	if (s->verbose)
		fprintf(stderr, "stap: the guest: %d MB, %d CPU(s), busybox "
			"and the loader only (-c runs busybox's commands)\n",
			d->vm_memory_mb ? d->vm_memory_mb : 512,
			d->vm_cpus ? d->vm_cpus : 1);
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
	/* the loader's options: -v's (the module reports its attach), and
	 * with -o and -c, -E: the guest has one stdout stream, so the
	 * command's output goes to stderr and the file gets the script's */
	const char **args = arena_alloc(&s->arena, 5 * sizeof(*args));
	int nargs = 0;
	if (s->output_file && s->target_cmd)
		args[nargs++] = "-E";
	for (int i = 0; i < s->verbose && i < 3; i++)
		args[nargs++] = "-v";
	args[nargs] = NULL;
	struct vm_job job = {
		.module = d->ko_path,
		.cmd = s->target_cmd,
		.staprun_args = nargs ? args : NULL,
		.module_args = module_args(s),
		.feed_stdin = d->reads_stdin,
	};
	int rc;
	/* warm guests live in STAP_VM_DIR, else CACHE/vm */
	const char *keep_dir = getenv("STAP_VM_DIR");
	if ((!keep_dir || !*keep_dir) && s->cache_dir)
		keep_dir = arena_printf(&s->arena, "%s/vm", s->cache_dir);
	/* a kept guest has no channel for stap's standard input */
	if (d->vm_keep && d->reads_stdin)
		fprintf(stderr, "stap: the script reads stap's standard input "
			"(input.char, input.line), which a kept guest does not "
			"get: booting one for this run\n");
	if (d->vm_keep && !d->reads_stdin && keep_dir && *keep_dir) {
		struct vm_keep keep = {
			.dir = keep_dir,
			.idle_s = d->vm_keep_s,
			.verbose = s->verbose > 0,
		};
		rc = vm_run_warm(&o, &job, &keep, out_fd, 2);
	} else {
		if (d->vm_keep && !d->reads_stdin)
			fprintf(stderr, "stap: no directory to keep a guest "
				"in (no cache directory, STAP_VM_DIR unset): "
				"booting one for this run\n");
		rc = vm_run_stream(&o, &job, out_fd, 2);
	}
	if (out_fd != 1)
		close(out_fd);
	return rc == 0 ? 0 : 1;
}

int run_module(struct driver *d)
{
	return d->use_vm ? run_vm(d) : run_local(d);
}
