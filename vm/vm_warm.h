/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm_warm.h - the warm guest's two halves and the frames between them.
 *
 * stap/vm_warm.c is the client (vm_run_warm, declared in vm.h): each
 * `stap --vm-keep` run. stap/vm_keeper.c is the keeper: a process the
 * first client forks off (double fork, a session of its own), which owns
 * the qemu guest, listens on DIR/sock and serves one job per connection,
 * then powers the guest off after its idle time.
 *
 * The directory DIR (CACHE/vm/RELEASE-KEY, one per guest shape) is the
 * user's and private (cache_dir_check); it holds sock, lock (a client
 * holds flock(LOCK_EX) on it from before connecting until its job is
 * over: one job at a time, and the keeper ends only when it can take the
 * lock itself), keeper.log (every keeper's, by pid), the last guest's
 * console.log and qemu.log, and guest-PID/ with a running guest's files
 * (initramfs, transfer disk, logs): the keeper of a guest in doubt may
 * still be powering it off while the next one boots.
 *
 * Frames on the socket: a type byte, the payload's length (4 bytes, host
 * order: both ends are this machine) and the payload.
 */
#ifndef STAP_VM_WARM_H
#define STAP_VM_WARM_H

#include <stddef.h>

#include "vm/vm_internal.h"

enum {
	/* client -> keeper, in this order for a job */
	VMW_KEEP = 'K',		/* idle seconds after this job, decimal */
	VMW_NAME = 'N',		/* the module's file name */
	VMW_MODULE = 'M',	/* the module's bytes */
	VMW_CMD = 'C',		/* the loader's command: "set -- WORDS\n" */
	VMW_RUN = 'R',		/* run it (empty) */
	/* client -> keeper, while the job runs */
	VMW_INT = 'I',		/* SIGINT for the loader (empty) */
	VMW_KILL = 'X',		/* kill the guest (empty) */
	/* keeper -> client */
	VMW_STARTED = 'G',	/* "JOB QEMU-PID BOOT-SECONDS UPTIME" */
	VMW_OUT = 'O',		/* the script's stdout bytes */
	VMW_ERR = 'E',		/* its stderr bytes */
	VMW_DMESG = 'D',	/* the guest's dmesg since the last job */
	VMW_STATUS = 'S',	/* the loader's exit status, decimal */
	VMW_FAIL = 'F',		/* the guest failed: lines for stderr */
};

#define VMW_FRAME_MAX (256u << 20)	/* the largest payload accepted */

/* Write one frame (blocking). 0, or -1 with errno set. */
int vmw_send(int fd, int type, const void *p, size_t n);

/*
 * Frames from a stream: vmw_fill reads what fd has (one read) into r;
 * 1 read something, 0 end of file, -1 error (errno; EAGAIN/EINTR: none
 * yet). vmw_next takes the next whole frame out: 1 (*type, *p, *n set;
 * p valid until the next fill), 0 none yet, -1 a frame over the limit.
 */
struct vmw_reader {
	struct vm_buf b;
	size_t off;		/* start of the next frame in b */
};

int vmw_fill(struct vmw_reader *r, int fd);
int vmw_next(struct vmw_reader *r, int *type, const char **p, size_t *n);

/* CRC-32 (ISO-HDLC, zlib's; busybox's crc32 prints it in hex). */
unsigned int vmw_crc32(const void *p, size_t n);

/*
 * The keeper: never returns. lfd listens on dir/sock, dirfd is dir
 * (O_PATH); o is the guest's shape with o->workdir = dir; keep_s the
 * idle seconds until the first client says otherwise. Called in the
 * grandchild of a client, which is in a session of its own.
 */
void vm_keeper_main(const struct vm_options *o, const char *dir, int lfd,
		    int dirfd, int keep_s) __attribute__((noreturn));

#endif /* STAP_VM_WARM_H */
