// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 5: run the module. On a host that can load modules, staprun runs
 * it here; otherwise (or with --vm) a throwaway qemu guest of the target
 * kernel runs staprun and the output streams back (vm/vm.c). The
 * driver chose which (module_run(d)->use_vm).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/outfiles.h"
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

	argv[n++] = (char *)module_run(d)->staprun;
	for (int i = 0; i < s->verbose && i < 3; i++)
		argv[n++] = "-v";	/* the module reports its attach */
	if (s->output_file) {
		argv[n++] = "-o";
		argv[n++] = (char *)s->output_file;
	}
	if (s->size_option) {
		argv[n++] = "-S";
		argv[n++] = (char *)s->size_option;
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

/* Read exactly len bytes: 0, or -1 at the end of the stream or an error. */
static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The -o files of a run in a guest: the loader's framed output
 * (lib/outfiles.h) from fd, written and switched as staprun does for a
 * run here. Returns the exit status for the writer process.
 */
static int write_files(struct out_files *of, int fd)
{
	static char buf[65536];
	char path[PATH_MAX];
	unsigned char hdr[4];
	bool failed = false;
	int type;

	for (;;) {
		unsigned char t;

		if (read_full(fd, &t, 1))
			break;
		type = t;
		if (type == OUT_FRAME_NEXT) {
			if (failed || !out_files_next(of, path))
				continue;
			fprintf(stderr, "ERROR: Couldn't open output file %s: "
				"%s\n", path, strerror(errno));
			failed = true;
			continue;
		}
		if (type != OUT_FRAME_DATA || read_full(fd, hdr, 4)) {
			fprintf(stderr, "stap: error: the guest's output is "
				"not in frames\n");
			return 1;
		}
		size_t len = hdr[0] | hdr[1] << 8 | hdr[2] << 16 |
			     (size_t)hdr[3] << 24;
		while (len) {
			size_t n = len < sizeof(buf) ? len : sizeof(buf);

			if (read_full(fd, buf, n))
				return 1;
			len -= n;
			if (failed || !out_files_write(of, buf, n))
				continue;
			fprintf(stderr, "ERROR: Couldn't write to output %d for "
				"cpu 0, exiting.: %s\n", of->fd, strerror(errno));
			failed = true;
		}
	}
	if (out_files_close(of) && !failed) {
		fprintf(stderr, "stap: error: closing %s: %s\n", of->name,
			strerror(errno));
		return 1;
	}
	return failed;
}

/*
 * The process that writes the -o files of a run in a guest: its first
 * file opened here (an error ends the run before the boot); returns the
 * descriptor the guest's output goes to, or -1.
 */
static int start_file_writer(struct session *s, pid_t *writer)
{
	struct out_files of = { .name = s->output_file, .fd = -1 };
	char path[PATH_MAX];
	int p[2];

	if (s->size_option &&
	    out_files_parse_size(s->size_option, &of.size_max, &of.keep))
		return -1;
	if (out_files_open(&of, path)) {
		fprintf(stderr, "stap: error: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	/* close-on-exec: qemu and its helpers must not keep it open */
	if (pipe(p) || fcntl(p[0], F_SETFD, FD_CLOEXEC) ||
	    fcntl(p[1], F_SETFD, FD_CLOEXEC)) {
		perror("stap: pipe");
		out_files_close(&of);
		return -1;
	}
	fflush(NULL);
	*writer = fork();
	if (*writer < 0) {
		perror("stap: fork");
		close(p[0]);
		close(p[1]);
		out_files_close(&of);
		return -1;
	}
	if (*writer == 0) {
		/* it ends when the output does: signals are the run's */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(p[1]);
		_exit(write_files(&of, p[0]));
	}
	close(p[0]);
	out_files_close(&of);
	return p[1];
}

/* Wait for the writer (its output closed): 0 when it wrote everything. */
static int finish_file_writer(pid_t writer)
{
	int status;

	while (waitpid(writer, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int run_vm(struct driver *d)
{
	struct session *s = d->s;
	int out_fd = 1;

	if (!module_run(d)->force_vm && module_run(d)->host_refusal)
		fprintf(stderr, "stap: the host kernel cannot load modules "
			"(%s): running in a qemu guest of %s\n",
			module_run(d)->host_refusal, s->release);
	else if (!module_run(d)->force_vm)
		fprintf(stderr, "stap: %s is not the running kernel: running "
			"in a qemu guest of it\n", s->release);
	if (s->verbose)
		fprintf(stderr, "stap: the guest: %d MB, %d CPU(s), busybox "
			"and the loader only (-c runs busybox's commands)\n",
			module_run(d)->vm_memory_mb ? module_run(d)->vm_memory_mb : 512,
			module_run(d)->vm_cpus ? module_run(d)->vm_cpus : 1);
	pid_t writer = -1;
	if (s->output_file) {
		/* the guest's loader frames the output (-m), a process of
		 * ours writes the files */
		out_fd = start_file_writer(s, &writer);
		if (out_fd < 0)
			return 1;
	}
	const char *workdir = arena_printf(&s->arena, "%s/vm", d->tmpdir);
	if (mkdir(workdir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "stap: error: cannot create %s: %s\n", workdir,
			strerror(errno));
		return 1;
	}
	struct vm_options o = {
		.release = s->release,
		.staprun = module_run(d)->staprun,
		.workdir = workdir,
		.verbose = s->verbose > 1,
		.memory_mb = module_run(d)->vm_memory_mb,
		.cpus = module_run(d)->vm_cpus,
	};
	/* the loader's options: -v's (the module reports its attach), and
	 * with -o and -c, -E: the guest has one stdout stream, so the
	 * command's output goes to stderr and the file gets the script's */
	const char **args = arena_alloc(&s->arena, 8 * sizeof(*args));
	int nargs = 0;
	if (s->output_file)
		args[nargs++] = "-m";	/* -E with it */
	if (s->output_file && s->size_option) {
		args[nargs++] = "-S";
		args[nargs++] = s->size_option;
	}
	for (int i = 0; i < s->verbose && i < 3; i++)
		args[nargs++] = "-v";
	args[nargs] = NULL;
	struct vm_job job = {
		.module = d->ko_path,
		.cmd = s->target_cmd,
		.staprun_args = nargs ? args : NULL,
		.module_args = module_args(s),
		.feed_stdin = module_run(d)->reads_stdin,
	};
	int rc;
	/* warm guests live in STAP_VM_DIR, else CACHE/vm */
	const char *keep_dir = getenv("STAP_VM_DIR");
	if ((!keep_dir || !*keep_dir) && s->cache_dir)
		keep_dir = arena_printf(&s->arena, "%s/vm", s->cache_dir);
	/* a kept guest has no channel for stap's standard input */
	if (module_run(d)->vm_keep && module_run(d)->reads_stdin)
		fprintf(stderr, "stap: the script reads stap's standard input "
			"(input.char, input.line), which a kept guest does not "
			"get: booting one for this run\n");
	if (module_run(d)->vm_keep && !module_run(d)->reads_stdin &&
	    keep_dir && *keep_dir) {
		struct vm_keep keep = {
			.dir = keep_dir,
			.idle_s = module_run(d)->vm_keep_s,
			.verbose = s->verbose > 0,
		};
		rc = vm_run_warm(&o, &job, &keep, out_fd, 2);
	} else {
		if (module_run(d)->vm_keep && !module_run(d)->reads_stdin)
			fprintf(stderr, "stap: no directory to keep a guest "
				"in (no cache directory, STAP_VM_DIR unset): "
				"booting one for this run\n");
		rc = vm_run_stream(&o, &job, out_fd, 2);
	}
	if (out_fd != 1)
		close(out_fd);
	if (writer > 0 && finish_file_writer(writer))
		rc = 1;
	return rc == 0 ? 0 : 1;
}

int run_module(struct driver *d)
{
	unsigned long long size = 0;
	int keep;

	/* SystemTap 4.8's staprun refuses it at pass 5, its message */
	if (d->s->size_option && !d->s->output_file &&
	    !out_files_parse_size(d->s->size_option, &size, &keep) && size) {
		fprintf(stderr, "ERROR: You have to specify output FILE with "
			"'-S' option.\n");
		return 1;
	}
	return module_run(d)->use_vm ? run_vm(d) : run_local(d);
}
