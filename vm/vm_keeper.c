// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm_keeper.c - the keeper of a warm guest (stap --vm-keep): boots one
 * qemu guest whose /init is an agent reading jobs from the control port,
 * serves one client at a time on DIR/sock, and powers the guest off
 * after its idle time or as soon as a job leaves it in doubt.
 *
 * The guest's side (keeper_init below, after vm.c's vm_init_base): the
 * modules come on a raw transfer disk (xfer.img, 256 MiB, sparse),
 * the guest's /dev/nvme0n1: the serial line brings about 14 KB/s into
 * a TCG guest (a 170 KB module took 12 s), the kernels have no 9p, and
 * virtiofs would need virtiofsd and, on 6.1, modules; NVMe is built into
 * both cloud kernels. Lines from the host on ttyS3, answered there as
 * "@@STAPVM ..." lines:
 *   JOB ID MODSIZE MODCRC CMDSIZE CMDCRC NAME
 *                  the module is at offset 0 of the disk, the loader's
 *                  command ("set -- WORDS", vm_job_words) at the next
 *                  4 KiB; the guest drops its cache of the disk, copies
 *                  both, checks their CRC-32s ("bad ID" if either
 *                  differs) and runs the job: "start ID"; the loader runs
 *                  in a session of its own, stdout/stderr on
 *                  ttyS1/ttyS2 as in a throwaway guest; then what is left
 *                  of its session is killed, "left LINE" if a module is
 *                  still loaded, the job's dmesg ("dmesg -c": emptied
 *                  each time) as a "dmesg - SIZE" frame, "rc ID STATUS"
 *   INT            SIGINT to the loader (or, before it runs, exit 130)
 *   QUIT           power off
 * and, unasked, "nodisk" (no /dev/nvme0n1 after 5 s) and "ready".
 *
 * Invariants: qemu is the keeper's child and dies with it (vm.c's
 * PR_SET_PDEATHSIG); every wait on the guest has a bound (boot, hand-over,
 * the job of a client gone, power-off), and the idle time ends the
 * guest; writes to the client block (a client that stops reading holds
 * its job, as a stopped terminal holds a throwaway guest's); every path
 * out of the loop ends qemu; the socket is unlinked only while it is the
 * one this keeper listens on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm/vm.h"
#include "vm/vm_internal.h"
#include "vm/vm_warm.h"

#define KEEP_BOOT_MAX 180	/* s from qemu's start to "ready" */
#define KEEP_STEP_MAX 60	/* s for each step of handing over a job */
#define KEEP_ORPHAN_S 30	/* s a job whose client went may still run */
#define KEEP_DOWN_S 10		/* s for the guest to power off */
#define KEEP_CHUNK 65536
#define KEEP_TAIL 8192		/* console bytes kept for a failure */
#define KEEP_LINE_MAX 512
#define KEEP_DISK_SIZE (256ull << 20)	/* the largest module sent */

static const char keeper_init[] =
	"# a warm guest: jobs from the host on ttyS3 (vm/vm_keeper.c)\n"
	"d=/dev/nvme0n1\n"
	"i=0; while [ ! -b $d ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done\n"
	"[ -b $d ] || say nodisk\n"
	/* ID MODSIZE MODCRC CMDSIZE CMDCRC NAME */
	"job() {\n"
	"\tblockdev --flushbufs $d\n"
	"\thead -c $2 $d >/m/$6\n"
	"\tdd if=$d of=/tmp/job.sh bs=4096 skip=$((($2 + 4095) / 4096))"
	" count=$4 iflag=count_bytes 2>/dev/null\n"
	"\tif [ \"$(crc32 </m/$6) $(crc32 </tmp/job.sh)\" != \"$3 $5\" ]; then\n"
	"\t\trm -f /m/* /tmp/job.sh; say bad $1; return\n"
	"\tfi\n"
	"\tsay start $1\n"
	"\tPATH=$JOBPATH /bin/setsid /bin/sh -c 'echo $$ >/tmp/pid; [ -e /tmp/intr ] && exit 130;"
	" . /tmp/job.sh; exec \"$@\" </dev/null >&3 2>&4 3>&- 4>&- 5>&-'"
	" run\n"
	"\trc=$?\n"
	"\tdrain 1 2\n"
	"\tp=$(cat /tmp/pid); rm -f /tmp/pid /tmp/job.sh /m/*\n"
	"\t[ -n \"$p\" ] && kill -KILL -\"$p\" 2>/dev/null\n"
	"\tl=$(grep -v -f /tmp/kmods /proc/modules | head -n 1)\n"
	"\t[ -n \"$l\" ] && say left $l\n"
	"\tdmesg -c >/tmp/dmesg 2>&1\n"
	"\tsend dmesg - /tmp/dmesg\n"
	"\tsay rc $1 $rc\n"
	"}\n"
	/*
	 * The reader of ttyS3 must get no SIGCHLD while it reads: ash's
	 * read starts its line again after EINTR, and what it had read of
	 * the line is lost. So it is not PID 1 and has no child of its own
	 * running: each job is forked twice, and its end reaches PID 1.
	 */
	"agent() {\n"
	"\twhile read -r c a <&5; do\n"
	"\t\tcase $c in\n"
	"\t\tJOB) rm -f /tmp/intr; (job $a &);;\n"
	"\t\tINT) : >/tmp/intr; [ -s /tmp/pid ] && kill -INT \"$(cat /tmp/pid)\";;\n"
	"\t\tQUIT) break;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tdrain 1 2 3\n"
	"\tpoweroff -f\n"
	"}\n"
	"agent &\n"
	"say ready\n"
	"while :; do wait; sleep 1; done\n";

enum phase {
	P_IDLE,		/* no job (maybe a client sending one) */
	P_SEND,		/* JOB sent, "start" not come */
	P_RUN,		/* the job runs */
	P_DOWN,		/* the guest is powering off or killed */
};

struct keeper {
	struct vm_options o;
	const char *dir;
	int lfd, dirfd, cfd, consfd, diskfd;
	int rundirfd;			/* guest-PID: this keeper's files */
	dev_t sock_dev;
	ino_t sock_ino;
	pid_t pid;
	int fd[VM_NPORTS];
	enum phase phase;
	int ready, jobs, keep_s, killed;
	double t_spawn, t_ready, t_accept, idle_until, deadline;
	/* the guest's control port */
	struct vm_buf line;
	size_t dmesg_left;
	struct vm_buf tx;		/* for ttyS3, not written yet */
	size_t tx_off;
	/* the client's job */
	struct vmw_reader in;
	struct vm_buf mod, cmd, dmesg;
	char name[256];
	int have_run, ints, ints_sent, orphan, left;
	int disk;			/* the guest has the transfer disk */
	size_t disk_used;		/* bytes of it the last job wrote */
	char tail[KEEP_TAIL];
	size_t tail_len;
};

static volatile sig_atomic_t keeper_signal;

static void keeper_on_signal(int sig)
{
	keeper_signal = sig;
}

static void klog(struct keeper *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void klog(struct keeper *k, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%d %8.3f ", (int)getpid(),
		k->t_spawn ? vm_now() - k->t_spawn : 0.0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* fds 3 (the socket) and 4 (the directory) only; 0 /dev/null; 1 and 2
 * keeper.log (appended to: an old keeper may still be powering off). */
static void keeper_fds(int *lfd, int *dirfd)
{
	int l = fcntl(*lfd, F_DUPFD, 64), d = fcntl(*dirfd, F_DUPFD, 64);
	int nul, log;

	close_range(0, 63, 0);
	nul = open("/dev/null", O_RDWR);	/* 0 */
	dup2(l, 3);
	dup2(d, 4);
	close_range(5, ~0u, 0);
	*lfd = 3;
	*dirfd = 4;
	fcntl(3, F_SETFD, FD_CLOEXEC);
	fcntl(4, F_SETFD, FD_CLOEXEC);
	/* one log for the directory's keepers, each line with its pid */
	log = openat(4, "keeper.log", O_WRONLY | O_CREAT | O_APPEND |
		     O_NOFOLLOW | O_CLOEXEC, 0600);
	if (log >= 0 && lseek(log, 0, SEEK_END) > (1 << 20))
		ftruncate(log, 0);
	dup2(log >= 0 ? log : nul, 1);
	dup2(log >= 0 ? log : nul, 2);
	if (log > 2)
		close(log);
}

/* ---- the socket and the client ------------------------------------------ */

static void stop_listening(struct keeper *k)
{
	struct stat st;

	if (k->lfd < 0)
		return;
	if (fstatat(k->dirfd, "sock", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == k->sock_dev && st.st_ino == k->sock_ino)
		unlinkat(k->dirfd, "sock", 0);
	close(k->lfd);
	k->lfd = -1;
}

static void job_reset(struct keeper *k)
{
	k->mod.len = k->cmd.len = k->dmesg.len = 0;
	k->name[0] = '\0';
	k->have_run = k->ints = k->ints_sent = k->orphan = k->left = 0;
	k->in.b.len = k->in.off = 0;
}

static void client_close(struct keeper *k)
{
	if (k->cfd >= 0)
		close(k->cfd);
	k->cfd = -1;
}

static void tx_queue(struct keeper *k, const void *p, size_t n);

/* The client went: a job under way is interrupted, as by ^C. */
static void client_gone(struct keeper *k)
{
	client_close(k);
	if (k->phase == P_IDLE || k->phase == P_DOWN) {
		job_reset(k);
		return;
	}
	klog(k, "job %d: the client went; interrupting it", k->jobs);
	k->orphan = 1;
	k->ints++;
	if (k->phase == P_RUN) {
		tx_queue(k, "INT\n", 4);
		k->ints_sent = k->ints;
		k->deadline = vm_now() + KEEP_ORPHAN_S;
	}
}

static void client_send(struct keeper *k, int type, const void *p, size_t n)
{
	if (k->cfd >= 0 && vmw_send(k->cfd, type, p, n))
		client_gone(k);
}

static void client_text(struct keeper *k, const char *msg)
{
	client_send(k, VMW_FAIL, msg, strlen(msg));
}

/* ---- the guest ----------------------------------------------------------- */

static void tx_flush(struct keeper *k)
{
	while (k->fd[3] >= 0 && k->tx_off < k->tx.len) {
		ssize_t w = write(k->fd[3], k->tx.p + k->tx_off,
				  k->tx.len - k->tx_off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				k->tx_off = k->tx.len;	/* qemu is gone */
			break;
		}
		k->tx_off += (size_t)w;
	}
	if (k->tx_off == k->tx.len)
		k->tx.len = k->tx_off = 0;
}

static void tx_queue(struct keeper *k, const void *p, size_t n)
{
	vm_buf_add(&k->tx, p, n);
	tx_flush(k);
}

static void tx_printf(struct keeper *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tx_printf(struct keeper *k, const char *fmt, ...)
{
	char line[KEEP_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line))
		tx_queue(k, line, (size_t)n);
}

static void kill_guest(struct keeper *k)
{
	if (k->pid > 0 && !k->killed)
		kill(k->pid, SIGKILL);
	k->killed = 1;
}

/* Power off: asked (the guest is idle and well), or killed. */
static void shut_down(struct keeper *k, int hard, const char *why)
{
	if (k->phase == P_DOWN)
		return;
	klog(k, "powering off: %s", why);
	stop_listening(k);
	k->phase = P_DOWN;
	if (hard || !k->ready)
		kill_guest(k);
	else
		tx_queue(k, "QUIT\n", 5);
	k->deadline = vm_now() + KEEP_DOWN_S;
}

/* The job's client gets the reason and the console's tail; then off. */
static void fail(struct keeper *k, const char *why)
{
	struct vm_buf msg = { 0 };
	const char *e = k->tail + k->tail_len;
	const char *p = vm_tail_lines(k->tail, e, 20);

	if (k->cfd >= 0) {
		vm_buf_printf(&msg, "stap: the warm guest failed: %s (%s)\n",
			      why, k->dir);
		if (p < e) {
			vm_buf_printf(&msg, "stap: guest console (tail):\n");
			for (; p < e; p++)
				if (*p != '\r')
					vm_buf_add(&msg, p, 1);
			if (e[-1] != '\n')
				vm_buf_add(&msg, "\n", 1);
		}
		client_send(k, VMW_FAIL, msg.p, msg.len);
		client_close(k);
		vm_buf_free(&msg);
	}
	shut_down(k, 1, why);
}

/* Write n bytes at off of the transfer disk; 0 or -1. */
static int disk_write(struct keeper *k, const char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(k->diskfd, p, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			klog(k, "transfer disk: %s", w < 0 ? strerror(errno) :
			     "short write");
			return -1;
		}
		p += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/*
 * The module at offset 0 of the transfer disk, the command at the next
 * 4 KiB boundary, then one JOB line with their sizes and CRCs: the guest
 * reads them past its cache, checks them and runs the job ("start"), or
 * says "bad".
 */
static void start_job(struct keeper *k)
{
	size_t cmd_off = (k->mod.len + 4095) / 4096 * 4096;

	if (!k->ready || !k->have_run || k->phase != P_IDLE)
		return;
	k->jobs++;
	k->phase = P_SEND;
	k->dmesg.len = 0;
	klog(k, "job %d: %s, %zu bytes", k->jobs, k->name, k->mod.len);
	if (!k->disk) {
		fail(k, "the guest kernel has no NVMe disk driver to receive "
		     "the module by (run with --vm)");
		return;
	}
	if (cmd_off + k->cmd.len > KEEP_DISK_SIZE) {
		fail(k, "the module is larger than the guest's transfer disk");
		return;
	}
	if (disk_write(k, k->mod.p, k->mod.len, 0) ||
	    disk_write(k, k->cmd.p, k->cmd.len, (off_t)cmd_off)) {
		fail(k, "cannot write the transfer disk");
		return;
	}
	k->disk_used = cmd_off + k->cmd.len;
	tx_printf(k, "JOB %d %zu %08x %zu %08x %s\n", k->jobs, k->mod.len,
		  vmw_crc32(k->mod.p, k->mod.len), k->cmd.len,
		  vmw_crc32(k->cmd.p, k->cmd.len), k->name);
	k->deadline = vm_now() + KEEP_STEP_MAX;
}

/* The output ports until now: what the job wrote before its "rc". */
static void drain_output(struct keeper *k)
{
	for (int port = 1; port <= 2; port++) {
		char tmp[65536];
		ssize_t n;

		while (k->fd[port] >= 0 &&
		       (n = read(k->fd[port], tmp, sizeof(tmp))) > 0)
			client_send(k, port == 1 ? VMW_OUT : VMW_ERR, tmp,
				    (size_t)n);
	}
}

static void job_end(struct keeper *k, int status)
{
	char *problems = vm_dmesg_problems(k->dmesg.p);
	char num[32];
	int bad = k->left || problems;

	drain_output(k);
	klog(k, "job %d: status %d%s%s%s", k->jobs, status,
	     k->orphan ? ", its client gone" : "",
	     k->left ? ", a module still loaded" : "",
	     problems ? ", kernel problems in dmesg" : "");
	free(problems);
	if (bad)
		stop_listening(k);	/* the next run boots a new guest */
	client_send(k, VMW_DMESG, k->dmesg.p ? k->dmesg.p : "", k->dmesg.len);
	snprintf(num, sizeof(num), "%d", status);
	client_send(k, VMW_STATUS, num, strlen(num));
	client_close(k);
	/* the disk's blocks back to the file system; its size stays */
	fallocate(k->diskfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		  (off_t)k->disk_used);
	job_reset(k);
	k->phase = P_IDLE;
	k->deadline = 0;
	k->idle_until = vm_now() + k->keep_s;
	if (bad)
		shut_down(k, 0, "the job left the guest in doubt");
}

/* One control line from the guest (without its newline). */
static void guest_line(struct keeper *k, const char *line)
{
	unsigned long long size;
	int id, val;

	if (strncmp(line, "@@STAPVM ", 9)) {
		klog(k, "garbled control line: %.80s", line);
		fail(k, "the guest sent garbled control data");
		return;
	}
	line += 9;
	if (!strcmp(line, "ready")) {
		k->ready = 1;
		k->t_ready = vm_now();
		k->deadline = 0;
		k->idle_until = k->t_ready + k->keep_s;
		klog(k, "booted in %.2f s (qemu %d)", k->t_ready - k->t_spawn,
		     (int)k->pid);
		start_job(k);
	} else if (!strcmp(line, "nodisk")) {
		k->disk = 0;
		klog(k, "no transfer disk in the guest (no NVMe driver?)");
	} else if (sscanf(line, "bad %d", &id) == 1 && k->phase == P_SEND) {
		fail(k, "the job did not reach the guest intact");
	} else if (sscanf(line, "start %d", &id) == 1) {
		char g[128];
		double now = vm_now();

		k->phase = P_RUN;
		k->deadline = k->orphan ? now + KEEP_ORPHAN_S : 0;
		snprintf(g, sizeof(g), "%d %d %.2f %.2f", k->jobs, (int)k->pid,
			 k->t_ready - k->t_spawn, now - k->t_spawn);
		client_send(k, VMW_STARTED, g, strlen(g));
		for (; k->ints_sent < k->ints; k->ints_sent++)
			tx_queue(k, "INT\n", 4);
	} else if (!strncmp(line, "left ", 5)) {
		k->left = 1;
		klog(k, "after the job, loaded: %.200s", line + 5);
	} else if (sscanf(line, "dmesg - %llu", &size) == 1) {
		k->dmesg.len = 0;
		k->dmesg_left = size;
	} else if (sscanf(line, "rc %d %d", &id, &val) == 2) {
		job_end(k, val);
	} else {
		klog(k, "unexpected control line: %.80s", line);
		fail(k, "the guest sent garbled control data");
	}
}

static void guest_control(struct keeper *k, const char *p, size_t n)
{
	while (n) {
		if (k->dmesg_left) {
			size_t c = n < k->dmesg_left ? n : k->dmesg_left;

			vm_buf_add(&k->dmesg, p, c);
			p += c;
			n -= c;
			k->dmesg_left -= c;
			continue;
		}
		if (*p == '\n') {
			guest_line(k, k->line.p ? k->line.p : "");
			k->line.len = 0;
			if (k->line.p)
				k->line.p[0] = '\0';
		} else if (k->line.len < KEEP_LINE_MAX) {
			vm_buf_add(&k->line, p, 1);
		}
		p++;
		n--;
	}
}

static void guest_bytes(struct keeper *k, int port, const char *p, size_t n)
{
	switch (port) {
	case 0:
		if (k->consfd >= 0 && vm_write_all(k->consfd, p, n)) {
			close(k->consfd);
			k->consfd = -1;
		}
		if (n >= KEEP_TAIL) {
			memcpy(k->tail, p + n - KEEP_TAIL, KEEP_TAIL);
			k->tail_len = KEEP_TAIL;
		} else {
			if (k->tail_len + n > KEEP_TAIL) {
				size_t drop = k->tail_len + n - KEEP_TAIL;

				memmove(k->tail, k->tail + drop,
					k->tail_len - drop);
				k->tail_len -= drop;
			}
			memcpy(k->tail + k->tail_len, p, n);
			k->tail_len += n;
		}
		break;
	case 1:
	case 2:
		client_send(k, port == 1 ? VMW_OUT : VMW_ERR, p, n);
		break;
	case 3:
		guest_control(k, p, n);
		break;
	}
}

/* ---- the client's frames -------------------------------------------------- */

static int valid_name(const char *s, size_t n)
{
	if (!n || n > 200 || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_.-", s[i]) || !s[i])
			return 0;
	return 1;
}

static void client_frame(struct keeper *k, int type, const char *p, size_t n)
{
	char num[32];

	switch (type) {
	case VMW_KEEP:
		snprintf(num, sizeof(num), "%.*s", (int)(n < 31 ? n : 31), p);
		k->keep_s = atoi(num);
		break;
	case VMW_NAME:
		if (valid_name(p, n))
			snprintf(k->name, sizeof(k->name), "%.*s", (int)n, p);
		break;
	case VMW_MODULE:
		k->mod.len = 0;
		vm_buf_add(&k->mod, p, n);
		break;
	case VMW_CMD:
		k->cmd.len = 0;
		vm_buf_add(&k->cmd, p, n);
		break;
	case VMW_RUN:
		if (!k->name[0] || !k->mod.len || !k->cmd.len) {
			client_text(k, "stap: the warm guest got an "
				    "incomplete job\n");
			client_close(k);
			job_reset(k);
			break;
		}
		k->have_run = 1;
		start_job(k);
		break;
	case VMW_INT:
		k->ints++;
		if (k->phase == P_RUN)
			for (; k->ints_sent < k->ints; k->ints_sent++)
				tx_queue(k, "INT\n", 4);
		break;
	case VMW_KILL:
		klog(k, "job %d: killed by its client", k->jobs);
		client_close(k);
		shut_down(k, 1, "its client asked");
		break;
	}
}

static void client_input(struct keeper *k)
{
	const char *p;
	size_t n;
	int type, got = vmw_fill(&k->in, k->cfd);

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		client_gone(k);
		return;
	}
	while (k->cfd >= 0 && (got = vmw_next(&k->in, &type, &p, &n)) > 0)
		client_frame(k, type, p, n);
	if (got < 0)
		client_gone(k);
}

/* ---- the loop ------------------------------------------------------------- */

static int boot(struct keeper *k)
{
	struct vm_buf init = { 0 };
	char initrd[4096], kernel[4096], disk[4096];
	int ret = -1;

	snprintf(initrd, sizeof(initrd), "%s/initramfs.cpio", k->o.workdir);
	snprintf(disk, sizeof(disk), "%s/xfer.img", k->o.workdir);
	k->diskfd = open(disk, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			 O_CLOEXEC, 0600);
	if (k->diskfd < 0 || ftruncate(k->diskfd, (off_t)KEEP_DISK_SIZE)) {
		klog(k, "%s: %s", disk, strerror(errno));
		goto out;
	}
	if (vm_kernel_path(&k->o, kernel, sizeof(kernel)) ||
	    vm_buf_add(&init, vm_init_base, strlen(vm_init_base)) ||
	    vm_buf_add(&init, keeper_init, sizeof(keeper_init) - 1) ||
	    vm_write_initramfs(&k->o, initrd, init.p, init.len, NULL, 0))
		goto out;
	k->consfd = openat(k->rundirfd, "console.log", O_WRONLY | O_CREAT |
			   O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	k->t_spawn = vm_now();
	k->pid = vm_spawn_qemu(&k->o, kernel, initrd, k->fd, disk);
	if (k->pid < 0)
		goto out;
	for (int i = 0; i < VM_NPORTS; i++)
		fcntl(k->fd[i], F_SETFL, O_NONBLOCK);
	klog(k, "qemu %d: %s, %d MB, %d CPU(s)", (int)k->pid, kernel,
	     k->o.memory_mb > 0 ? k->o.memory_mb : 512,
	     k->o.cpus > 0 ? k->o.cpus : 1);
	k->deadline = k->t_spawn + KEEP_BOOT_MAX;
	ret = 0;
out:
	vm_buf_free(&init);
	return ret;
}

/* What the loop waits for next, in seconds from now (-1: nothing). */
static double next_wakeup(struct keeper *k, double now)
{
	double until = k->deadline;

	if (k->phase == P_IDLE && k->cfd < 0 && k->ready &&
	    (!until || k->idle_until < until))
		until = k->idle_until;
	if (k->cfd >= 0 && !k->have_run && k->phase == P_IDLE &&
	    (!until || k->t_accept + KEEP_STEP_MAX < until))
		until = k->t_accept + KEEP_STEP_MAX;
	return until ? (until > now ? until - now : 0) : -1;
}

static void timers(struct keeper *k, double now)
{
	if (k->deadline && now >= k->deadline) {
		k->deadline = 0;
		if (k->phase == P_DOWN)
			kill_guest(k);
		else if (!k->ready)
			fail(k, "the guest did not boot in time");
		else if (k->orphan)
			fail(k, "the job of a client gone did not end");
		else
			fail(k, "the guest stopped answering");
	}
	if (k->cfd >= 0 && !k->have_run && k->phase == P_IDLE &&
	    now >= k->t_accept + KEEP_STEP_MAX) {
		klog(k, "a client sent no job");
		client_close(k);
		job_reset(k);
	}
	if (k->phase == P_IDLE && k->cfd < 0 && k->ready &&
	    now >= k->idle_until) {
		/* a client between its lock and its connect: wait for it */
		int lockfd = openat(k->dirfd, "lock", O_RDWR | O_CREAT |
				    O_NOFOLLOW | O_CLOEXEC, 0600);

		if (lockfd >= 0 && flock(lockfd, LOCK_EX | LOCK_NB) == 0) {
			char why[64];

			snprintf(why, sizeof(why), "idle for %d s", k->keep_s);
			stop_listening(k);
			shut_down(k, 0, why);
		} else {
			k->idle_until = now + 0.2;
		}
		if (lockfd >= 0)
			close(lockfd);	/* the lock goes with it */
	}
}

static void loop(struct keeper *k, const sigset_t *waitmask)
{
	for (;;) {
		struct pollfd pfd[VM_NPORTS + 2];
		int what[VM_NPORTS + 2], nfds = 0, open_ports = 0;
		double now = vm_now(), d = next_wakeup(k, now);
		struct timespec ts;

		for (int i = 0; i < VM_NPORTS; i++) {
			if (k->fd[i] < 0)
				continue;
			open_ports++;
			pfd[nfds] = (struct pollfd){ .fd = k->fd[i],
						     .events = POLLIN };
			if (i == 3 && k->tx.len)
				pfd[nfds].events |= POLLOUT;
			what[nfds++] = i;
		}
		if (!open_ports)
			break;
		if (k->lfd >= 0 && k->cfd < 0 && k->phase == P_IDLE) {
			pfd[nfds] = (struct pollfd){ .fd = k->lfd,
						     .events = POLLIN };
			what[nfds++] = 10;
		}
		if (k->cfd >= 0) {
			pfd[nfds] = (struct pollfd){ .fd = k->cfd,
						     .events = POLLIN };
			what[nfds++] = 11;
		}
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
		if (ppoll(pfd, (nfds_t)nfds, d < 0 ? NULL : &ts, waitmask) < 0 &&
		    errno != EINTR)
			break;
		if (keeper_signal) {
			klog(k, "signal %d", (int)keeper_signal);
			keeper_signal = 0;
			fail(k, "its keeper was stopped");
		}
		for (int i = 0; i < nfds; i++) {
			int w = what[i];

			if (!pfd[i].revents)
				continue;
			if (w == 10) {
				k->cfd = accept4(k->lfd, NULL, NULL,
						 SOCK_CLOEXEC);
				k->t_accept = vm_now();
				job_reset(k);
			} else if (w == 11) {
				if (k->cfd >= 0)
					client_input(k);
			} else if (k->fd[w] >= 0) {
				char tmp[65536];
				ssize_t n;

				if (w == 3 && (pfd[i].revents & POLLOUT))
					tx_flush(k);
				n = read(k->fd[w], tmp, sizeof(tmp));
				if (n < 0 && (errno == EINTR || errno == EAGAIN))
					continue;
				if (n <= 0) {
					close(k->fd[w]);
					k->fd[w] = -1;
					if (k->phase != P_DOWN)
						fail(k, "the guest stopped");
					continue;
				}
				guest_bytes(k, w, tmp, (size_t)n);
			}
		}
		timers(k, vm_now());
	}
}

void vm_keeper_main(const struct vm_options *o, const char *dir, int lfd,
		    int dirfd, int keep_s)
{
	struct keeper k = { .o = *o, .dir = dir, .cfd = -1, .consfd = -1,
			    .diskfd = -1, .disk = 1,
			    .keep_s = keep_s, .phase = P_IDLE };
	struct sigaction sa = { .sa_handler = keeper_on_signal };
	sigset_t block, waitmask;
	struct stat st;
	int status;

	keeper_fds(&lfd, &dirfd);
	k.lfd = lfd;
	k.dirfd = dirfd;
	for (int i = 0; i < VM_NPORTS; i++)
		k.fd[i] = -1;
	umask(077);
	if (fchdir(dirfd) == 0)
		setenv("TMPDIR", dir, 1);
	/*
	 * This guest's files (initramfs, transfer disk, console, qemu's
	 * log) in guest-PID: the keeper of the guest before may still be
	 * powering off beside it. The last logs stay in the directory.
	 */
	char run[64], path[4200];
	snprintf(run, sizeof(run), "guest-%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, run);
	mkdirat(dirfd, run, 0700);
	k.rundirfd = openat(dirfd, run, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	k.o.workdir = path;
	if (fstatat(dirfd, "sock", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		k.sock_dev = st.st_dev;
		k.sock_ino = st.st_ino;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_SETMASK, &block, NULL);
	sigemptyset(&waitmask);

	if (boot(&k) == 0) {
		loop(&k, &waitmask);
		kill_guest(&k);
		while (waitpid(k.pid, &status, 0) < 0 && errno == EINTR)
			;
		klog(&k, "qemu %d ended after %.1f s, %d job(s)", (int)k.pid,
		     vm_now() - k.t_spawn, k.jobs);
	} else {
		struct pollfd pfd = { .fd = k.lfd, .events = POLLIN };

		klog(&k, "the guest could not be started");
		/* its client is about to connect: tell it */
		if (poll(&pfd, 1, 10000) == 1)
			k.cfd = accept4(k.lfd, NULL, NULL, SOCK_CLOEXEC);
		client_text(&k, "stap: the warm guest could not be started "
			    "(see keeper.log there)\n");
	}
	stop_listening(&k);
	client_close(&k);
	unlinkat(k.rundirfd, "initramfs.cpio", 0);
	unlinkat(k.rundirfd, "xfer.img", 0);
	renameat(k.rundirfd, "console.log", dirfd, "console.log");
	renameat(k.rundirfd, "qemu.log", dirfd, "qemu.log");
	unlinkat(dirfd, run, AT_REMOVEDIR);
	_exit(0);
}
