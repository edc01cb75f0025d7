/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm_internal.h - what vm/vm.c shares with the warm guest
 * (vm/vm_warm.c, the client of a kept guest; vm/vm_keeper.c, the
 * process that keeps it): buffers, the guest's initramfs and /init
 * pieces, starting qemu. Not for the rest of stap: vm.h is the interface.
 */
#ifndef STAP_VM_INTERNAL_H
#define STAP_VM_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vm/vm.h"

#define VM_NPORTS 4

struct vm_buf {
	char *p;
	size_t len, cap;
};

int vm_buf_add(struct vm_buf *b, const void *p, size_t n);
int vm_buf_printf(struct vm_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append s to b as one single-quoted shell word. */
int vm_buf_quote(struct vm_buf *b, const char *s);
void vm_buf_free(struct vm_buf *b);

/* "stap: MESSAGE\n" on stderr */
void vm_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double vm_now(void);
int vm_write_all(int fd, const void *p, size_t n);
/* The message for a run's output fd that failed (errno err: a closed
 * pipe, `stap ... | head`); the run then stops as on SIGINT. */
void vm_output_gone_message(int fd, int err);
const char *vm_basename(const char *p);

/*
 * The start of every guest /init: busybox's applets, the file systems,
 * the serial ports raw, fds 3/4/5 on ttyS1/ttyS2/ttyS3, and the shell
 * functions say (a control line "@@STAPVM ..." on ttyS3, echoed on the
 * console), drain PORT... (wait until the ports' output is sent) and
 * send WHAT ARG FILE (a frame "WHAT ARG SIZE" and the file's bytes).
 */
extern const char vm_init_base[];

/* A throwaway guest's /init (vm_init.c): vm_init_base, the control loop,
 * the jobs (stream: one, its output live on the ports; else a batch,
 * each job's output sent back framed), then the power-off. 0, or -1. */
int vm_make_init(const struct vm_options *o, struct vm_buf *b, bool stream,
		 const struct vm_job *jobs, int njobs);

/* The words of a job's loader command, each quoted, space-separated:
 * loader, staprun options, -c CMD, guest_module, module arguments. */
int vm_job_words(struct vm_buf *b, const struct vm_job *j,
		 const char *guest_module);

/* Shell lines for a job: the caller's current directory, shared
 * read-only at its own path (mounted once), becomes the job's; nothing
 * without the host's files. 0, or -1 out of memory. */
int vm_share_cwd(const struct vm_options *o, struct vm_buf *b);

/* The kernel image to boot: o->kernel_image, else the release's. 0, or
 * -1 with a message. */
int vm_kernel_path(const struct vm_options *o, char *buf, size_t n);

/* Write the initramfs `out`: directories, busybox, the loader, /init
 * (init), o->extra_files and the jobs' modules under /m/N/. 0 or -1. */
int vm_write_initramfs(const struct vm_options *o, const char *out,
		       const char *init, size_t init_len,
		       const struct vm_job *jobs, int njobs);

/*
 * A module's bytes as a guest gets them (without DWARF unless signed:
 * see vm.c), using tmp as scratch; malloc'd, NULL with a message.
 */
char *vm_module_bytes(const char *host_path, const char *tmp, size_t *len);

/*
 * Start qemu on kernel and initrd with o's shape; fd[] receives the host
 * ends of ttyS0..ttyS3, qemu's messages go to o->workdir/qemu.log; disk,
 * when not NULL, is a raw image the guest sees as an NVMe disk
 * (/dev/nvme0n1; the driver is built into Debian's cloud kernels). qemu
 * is in a process group of its own and dies with the calling thread
 * (PR_SET_PDEATHSIG). Its pid, or -1 with a message.
 */
pid_t vm_spawn_qemu(const struct vm_options *o, const char *kernel,
		    const char *initrd, int fd[VM_NPORTS], const char *disk);

/*
 * A run's signals: SIGINT, SIGTERM and SIGHUP go to handler, blocked
 * except inside a wait on s->waitmask (ppoll), so that they interrupt
 * only the wait; SIGPIPE is ignored. vm_signals_restore() puts back what
 * was there before.
 */
struct vm_signals {
	struct sigaction old_int, old_term, old_hup, old_pipe;
	sigset_t oldmask, waitmask;
};
void vm_signals_catch(struct vm_signals *s, void (*handler)(int));
void vm_signals_restore(const struct vm_signals *s);

/* The start of the last (at most) n lines of [s, e). */
const char *vm_tail_lines(const char *s, const char *e, int n);

#endif /* STAP_VM_INTERNAL_H */
