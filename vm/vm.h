/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm.h - run compiled probe modules inside a throwaway qemu guest (pass 5
 * when the host kernel cannot load modules).
 *
 * The guest boots a generated initramfs (busybox + the static loader
 * `staprun` + the modules) under qemu -accel tcg.  Four serial ports:
 *   ttyS0  kernel console and /init diagnostics (never reaches the caller's
 *          stdout; kept in a log, shown on stderr with verbose)
 *   ttyS1  stream mode: the script's stdout, raw bytes
 *   ttyS2  stream mode: the script's stderr, raw bytes
 *   ttyS3  control: guest->host framed messages "@@STAPVM ..." (job start,
 *          exit codes, captured outputs, dmesg); host->guest "INT" lines
 *          that make /init send SIGINT to the running staprun.
 *
 * Each job runs as "staprun [staprun_args] [-c CMD] /m/<N>/<module name>"
 * with stdin from /dev/null; staprun is /bin/staprun (o->staprun) unless
 * the job names another loader in the guest (job->loader, e.g. SystemTap
 * 4.8's own staprun placed there with extra_files).  Options that make staprun write elsewhere
 * (-o FILE) leave the output inside the guest, where it is lost.
 *
 * The functions here are not thread safe and install SIGINT/SIGTERM/SIGHUP/
 * SIGPIPE handlers for the duration of a run (the previous ones are
 * restored). Call them from the main thread: qemu is killed when the
 * thread that started it ends (PR_SET_PDEATHSIG), however it ends.
 */
#ifndef STAP_VM_H
#define STAP_VM_H

#include <stdbool.h>

struct vm_options {
	const char *release;      /* kernel release: image /boot/vmlinuz-<release> */
	const char *kernel_image; /* optional override of the image path */
	const char *staprun;      /* host path of the static guest loader */
	const char *busybox;      /* static busybox; NULL = /bin/busybox */
	const char *qemu;         /* NULL = $STAPVM_QEMU or qemu-system-x86_64 */
	const char *workdir;      /* existing scratch dir, owned by the caller;
				   receives initramfs.cpio, qemu.log,
				   console.log (the guest console) and, in
				   batch mode, job<N>.stdout/.stderr */
	int cpus;                 /* 0 = 1 */
	int memory_mb;            /* 0 = 512 */
	int icount;               /* nonzero: -icount shift=0 (repeatable
				   timing); implies 1 CPU (SMP hangs) */
	int timeout_s;            /* 0 = none; else kill qemu this many seconds
				   after starting it (boot included) */
	int verbose;              /* 1: qemu command line, console, timings on
				   stderr; 2: also the generated /init */
	const char *kernel_args;  /* more of the kernel's command line (e.g.
				   module.sig_enforce=1), or NULL */
	const char *const *extra_files;	/* host files for the guest,
				   NULL-terminated, or NULL: "HOST" goes to
				   /bin/<basename> (programs for -c CMD, as the
				   benchmarks use), "HOST:/GUEST" to /GUEST
				   (parent directories made), mode 0755 */
	bool no_host_share;       /* true: the busybox world only; else (as
				   root, with virtiofsd) the guest mounts
				   this machine's / read-only: its /usr
				   (jobs' PATH searches it first), the
				   merged-/usr links, ld.so's cache, and
				   the run's current directory at its own
				   path, where jobs start */
};

struct vm_job {
	const char *module;              /* host path of the .ko */
	const char *cmd;                 /* staprun -c CMD, or NULL */
	const char *const *staprun_args; /* extra args, NULL-terminated, or NULL */
	const char *const *module_args;  /* NAME=VALUE after the module, or NULL */
	const char *loader;              /* guest path of the loader, NULL =
					    /bin/staprun */
	bool feed_stdin;                 /* stream mode: the job's standard
					    input is the host's (else
					    /dev/null) */
};

struct vm_result {
	int status;          /* staprun exit status, -1 if it never finished */
	char *stdout_path;   /* malloc'd: <workdir>/job<N>.stdout */
	char *stderr_path;   /* malloc'd: <workdir>/job<N>.stderr */
};

/*
 * Stream mode: boot, run one job, copy the guest's stdout/stderr live and
 * byte-exact to out_fd/err_fd.  SIGINT/SIGTERM/SIGHUP received meanwhile are
 * forwarded to the guest's staprun as SIGINT (end probes run); the third
 * one kills qemu.  Returns staprun's exit status; 1 if the guest's dmesg
 * shows kernel problems (each printed on err_fd as "stap: guest kernel:
 * <line>"); -1 with a message on stderr if the VM failed (qemu error,
 * guest crash, timeout, interrupted before the job finished).
 */
int vm_run_stream(const struct vm_options *o, const struct vm_job *job,
		  int out_fd, int err_fd);

/*
 * Batch mode: run njobs jobs one after another in one boot.  Each job's
 * output is captured exactly into results[i].stdout_path/stderr_path,
 * its exit status in results[i].status (-1: not run or never finished).
 * A forwarded SIGINT interrupts the running job and skips the rest.
 * Returns 0 if the VM ran every job and shut down cleanly, -1 otherwise
 * (message on stderr).  Free the paths with vm_results_free().
 */
int vm_run_batch(const struct vm_options *o, const struct vm_job *jobs,
		 int njobs, struct vm_result *results);
void vm_results_free(struct vm_result *results, int njobs);

/*
 * A warm guest (stap --vm-keep; stap/vm_warm.c, stap/vm_keeper.c): as
 * vm_run_stream, but the guest is one kept up between runs of the same
 * shape (o's kernel, release, memory, CPUs, kernel arguments, loader,
 * busybox, qemu): booted by the first run, powered off by itself
 * idle_s seconds after its last job (0: right after this one), or at
 * once when a job leaves it in doubt (the module still loaded, a kernel
 * problem in dmesg, a job that would not end). Its socket and files are
 * in dir/RELEASE-KEY; dir is made private (0700) and must be the user's
 * own and not writable by others. The module travels over the control
 * port; the guest's dmesg of each job is checked as vm_run_stream checks
 * its own. When another run has the warm guest, or dir is refused, this
 * run boots a throwaway guest (vm_run_stream; a line on stderr says
 * why). o->workdir is this run's scratch directory. verbose: a line on
 * stderr saying whether the guest was booted or reused.
 */
struct vm_keep {
	const char *dir;
	int idle_s;
	int verbose;
};

int vm_run_warm(const struct vm_options *o, const struct vm_job *job,
		const struct vm_keep *k, int out_fd, int err_fd);

/* Whether the guest gets this machine's userland over virtio-fs (not
 * o->no_host_share, root, virtiofsd there: $STAPVM_VIRTIOFSD or
 * /usr/lib/qemu/virtiofsd): what a loader of this machine needs (the
 * BPF backend's stapbpf, dynamically linked). */
bool vm_host_shared(const struct vm_options *o);

/* The guest's dmesg from the last run ("" if not fetched); owned by vm.c. */
const char *vm_last_dmesg(void);

/*
 * The lines of text containing "BUG:", "Oops", "WARNING:" or
 * "general protection", newline-terminated; malloc'd, NULL if none.
 */
char *vm_dmesg_problems(const char *text);

/* 1 if the host kernel could load our modules directly (and has a build
 * tree), else 0 and *why (when why is not NULL) says why not; signed
 * (--sign-module): signature enforcement is no reason. */
int vm_host_can_load_modules(const char **why, bool signed_modules);

#endif /* STAP_VM_H */
