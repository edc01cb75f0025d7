// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm_warm.c - the client of a warm guest (stap --vm-keep): find the
 * guest of this shape, or start its keeper (stap/vm_keeper.c), send it
 * the job and relay the job's output, signals and status. See vm.h for
 * the contract and vm_warm.h for the directory, the lock and the frames.
 *
 * Invariants: a client holds the directory's lock from before it
 * connects until its job's status has come (so one job at a time, never
 * two outputs mixed; a second run finds the lock taken and boots a
 * throwaway guest instead of waiting); SIGINT, SIGTERM and SIGHUP are
 * blocked except while waiting in ppoll, as in vm.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vm/vm.h"
#include "vm/vm_internal.h"
#include "vm/vm_warm.h"
#include "lib/files.h"
#include "lib/hash.h"

/* The layout of the guest and of the frames: a keeper of another
 * version is another key, so never asked what it does not know. */
#define VMW_PROTOCOL "stap-warm-guest 1"

/* ---- frames ------------------------------------------------------------- */

int vmw_send(int fd, int type, const void *p, size_t n)
{
	unsigned char h[5];
	unsigned int len = (unsigned int)n;

	if (n > VMW_FRAME_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	h[0] = (unsigned char)type;
	memcpy(h + 1, &len, 4);
	if (vm_write_all(fd, h, sizeof(h)))
		return -1;
	return n ? vm_write_all(fd, p, n) : 0;
}

int vmw_fill(struct vmw_reader *r, int fd)
{
	char tmp[65536];
	ssize_t n;

	if (r->off && r->off == r->b.len) {
		r->b.len = 0;
		r->off = 0;
	} else if (r->off > (1u << 20)) {
		memmove(r->b.p, r->b.p + r->off, r->b.len - r->off);
		r->b.len -= r->off;
		r->off = 0;
	}
	n = read(fd, tmp, sizeof(tmp));
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	if (vm_buf_add(&r->b, tmp, (size_t)n)) {
		errno = ENOMEM;
		return -1;
	}
	return 1;
}

int vmw_next(struct vmw_reader *r, int *type, const char **p, size_t *n)
{
	size_t have = r->b.len - r->off;
	unsigned int len;

	if (have < 5)
		return 0;
	memcpy(&len, r->b.p + r->off + 1, 4);
	if (len > VMW_FRAME_MAX)
		return -1;
	if (have < 5 + (size_t)len)
		return 0;
	*type = (unsigned char)r->b.p[r->off];
	*p = r->b.p + r->off + 5;
	*n = len;
	r->off += 5 + (size_t)len;
	return 1;
}

unsigned int vmw_crc32(const void *p, size_t n)
{
	static unsigned int table[256];
	const unsigned char *s = p;
	unsigned int crc = 0xffffffffu;

	if (!table[1]) {
		for (unsigned int i = 0; i < 256; i++) {
			unsigned int c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	while (n--)
		crc = table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}

/* ---- the guest's directory ---------------------------------------------- */

/* Hash a file's bytes (the loader, busybox): a rebuilt one is another
 * guest. 0 when it cannot be read. */
static uint64_t hash_file(uint64_t h, const char *path)
{
	size_t len;
	char *data = read_file(path, &len);

	if (!data)
		return 0;
	h = fnv1a(h, data, len);
	free(data);
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return fnv1a(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* The shape's key: what makes two guests interchangeable. */
static uint64_t shape_key(const struct vm_options *o, const char *kernel)
{
	const char *qemu = o->qemu ? o->qemu : getenv("STAPVM_QEMU");
	char num[64];
	struct stat st;
	uint64_t h = hash_str(FNV_OFFSET, VMW_PROTOCOL);

	/* this stap (the keeper is its code): its identity, not its bytes */
	if (stat("/proc/self/exe", &st) == 0) {
		snprintf(num, sizeof(num), "%llu %llu %lld %lld",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, (long long)st.st_size,
			 (long long)st.st_mtime);
		h = hash_str(h, num);
	}
	h = hash_str(h, kernel);
	if (stat(kernel, &st) == 0) {
		snprintf(num, sizeof(num), "%lld %lld", (long long)st.st_size,
			 (long long)st.st_mtime);
		h = hash_str(h, num);
	}
	snprintf(num, sizeof(num), "%d %d %d", o->memory_mb > 0 ?
		 o->memory_mb : 512, o->cpus > 0 ? o->cpus : 1, o->icount);
	h = hash_str(h, num);
	h = hash_str(h, o->kernel_args);
	h = hash_str(h, qemu && *qemu ? qemu : "qemu-system-x86_64");
	h = hash_file(h, o->staprun);
	h = hash_file(h, o->busybox ? o->busybox : "/bin/busybox");
	for (int i = 0; o->extra_files && o->extra_files[i]; i++) {
		h = hash_str(h, o->extra_files[i]);
		h = hash_file(h, o->extra_files[i]);
	}
	return h;
}

/*
 * The guest's directory, made and checked (the user's own, private):
 * an O_PATH descriptor, its path in *path (malloc'd); -1 with why[].
 */
static int open_guest_dir(const struct vm_keep *k, const char *name,
			  char **path, char *why, size_t n)
{
	struct stat st;
	int fd;

	if (cache_dir_check(k->dir, why, n)) {
		char *w = strdup(why);

		snprintf(why, n, "%s: %s", k->dir, w ? w : "");
		free(w);
		return -1;
	}
	if (asprintf(path, "%s/%s", k->dir, name) < 0) {
		snprintf(why, n, "out of memory");
		return -1;
	}
	if (mkdir(*path, 0700) && errno != EEXIST) {
		snprintf(why, n, "cannot create %s: %s", *path,
			 strerror(errno));
		return -1;
	}
	fd = open(*path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, n, "%s: %s", *path, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		snprintf(why, n, "%s belongs to uid %lu, not to uid %lu", *path,
			 (unsigned long)st.st_uid, (unsigned long)geteuid());
	} else if (st.st_mode & 077) {
		snprintf(why, n, "%s is open to group or others (mode %04o)",
			 *path, (unsigned)(st.st_mode & 07777));
	} else {
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* dir/sock as an address that fits: through /proc/self/fd/DIRFD/ */
static void sock_addr(struct sockaddr_un *a, int dirfd)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d/sock",
		 dirfd);
}

static int connect_keeper(int dirfd)
{
	struct sockaddr_un a;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	sock_addr(&a, dirfd);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A new keeper for this directory: the socket bound here (so a connect
 * right after cannot miss it), then a double fork: the keeper is in a
 * session of its own and nobody's child, so it outlives this run.
 */
static int start_keeper(const struct vm_options *o, const char *dir,
			int dirfd, int keep_s)
{
	struct sockaddr_un a;
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), status;
	pid_t pid;

	if (lfd < 0)
		return -1;
	unlinkat(dirfd, "sock", 0);
	sock_addr(&a, dirfd);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4)) {
		vm_err("warm guest: cannot listen on %s/sock: %s", dir,
		       strerror(errno));
		close(lfd);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setsid();
		pid = fork();
		if (pid != 0)
			_exit(pid < 0);
		vm_keeper_main(o, dir, lfd, dirfd, keep_s);
	}
	close(lfd);
	if (pid < 0) {
		vm_err("fork: %s", strerror(errno));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* ---- one job ------------------------------------------------------------ */

struct warm_run {
	const struct vm_keep *k;
	int fd;				/* the keeper's socket */
	int out_fd, err_fd;
	int started;			/* its 'G' came */
	int status;			/* -1 until 'S' */
	int failed;			/* 'F' came */
	int out_gone;			/* stdout failed: INT sent */
	struct vm_buf dmesg;
};

static volatile sig_atomic_t warm_signals;

static void warm_on_signal(int sig)
{
	(void)sig;
	warm_signals++;
}

static void warm_frame(struct warm_run *w, int type, const char *p, size_t n)
{
	char text[128];
	int *fd;

	/* the small frames are text */
	snprintf(text, sizeof(text), "%.*s", (int)(n < 127 ? n : 127), p);
	switch (type) {
	case VMW_OUT:
	case VMW_ERR:
		fd = type == VMW_OUT ? &w->out_fd : &w->err_fd;
		if (*fd < 0 || !vm_write_all(*fd, p, n))
			break;
		if (type == VMW_OUT && !w->out_gone) {
			/* the output went away (`| head`): stop the job as
			 * an interrupt does (the keeper holds it until the
			 * job starts) */
			vm_output_gone_message(*fd, errno);
			w->out_gone = 1;
			vmw_send(w->fd, VMW_INT, NULL, 0);
		}
		*fd = -1;	/* e.g. EPIPE: drop the rest */
		break;
	case VMW_STARTED:
		w->started = 1;
		if (w->k->verbose) {
			int job = 0, pid = 0;
			double boot = 0, up = 0;

			sscanf(text, "%d %d %lf %lf", &job, &pid, &boot, &up);
			if (job <= 1)
				fprintf(stderr, "stap: warm guest (qemu %d): "
					"booted in %.2f s\n", pid, boot);
			else
				fprintf(stderr, "stap: warm guest (qemu %d): "
					"job %d, up %.1f s, no boot\n", pid,
					job, up);
		}
		break;
	case VMW_DMESG:
		w->dmesg.len = 0;
		vm_buf_add(&w->dmesg, p, n);
		break;
	case VMW_STATUS:
		w->status = atoi(text);
		break;
	case VMW_FAIL:
		w->failed = 1;
		vm_write_all(2, p, n);
		break;
	}
}

/*
 * Relay until the status comes or the keeper goes. 0: the status came;
 * 1: the keeper went before the job started (a guest that died idle:
 * worth one retry); -1: it failed.
 */
static int warm_relay(struct warm_run *w, const sigset_t *waitmask)
{
	struct vmw_reader r = { 0 };
	int ints = 0, ret = -1;

	for (;;) {
		struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
		const char *p;
		size_t n;
		int type, got;

		if (ppoll(&pfd, 1, NULL, waitmask) < 0 && errno != EINTR)
			break;
		while (ints < warm_signals) {
			ints++;
			if (ints >= 3) {
				vm_err("interrupted again; killing the guest");
				vmw_send(w->fd, VMW_KILL, NULL, 0);
				goto out;
			}
			vmw_send(w->fd, VMW_INT, NULL, 0);
		}
		if (!pfd.revents)
			continue;
		got = vmw_fill(&r, w->fd);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;		/* the keeper went */
		while ((got = vmw_next(&r, &type, &p, &n)) > 0) {
			warm_frame(w, type, p, n);
			if (w->status >= 0) {
				ret = 0;
				goto out;
			}
		}
		if (got < 0 || w->failed)
			break;
	}
	if (!w->started && !w->failed)
		ret = 1;
	else if (!w->failed)
		vm_err("the warm guest's keeper went away during the job");
out:
	vm_buf_free(&r.b);
	return ret;
}

/* The job's frames: everything the keeper needs before it starts. */
static int warm_send_job(int fd, const struct vm_keep *k, const char *name,
			 const char *mod, size_t mod_len,
			 const struct vm_buf *cmd)
{
	char keep[32];

	snprintf(keep, sizeof(keep), "%d", k->idle_s);
	return vmw_send(fd, VMW_KEEP, keep, strlen(keep)) ||
	       vmw_send(fd, VMW_NAME, name, strlen(name)) ||
	       vmw_send(fd, VMW_MODULE, mod, mod_len) ||
	       vmw_send(fd, VMW_CMD, cmd->p, cmd->len) ||
	       vmw_send(fd, VMW_RUN, NULL, 0) ? -1 : 0;
}

/* Run the job in the guest of dirfd; -2: the warm guest is busy. */
static int warm_job(const struct vm_options *wo, const struct vm_job *job,
		    const struct vm_keep *k, const char *dir, int dirfd,
		    int out_fd, int err_fd, struct vm_buf *dmesg)
{
	struct vm_signals sigs;
	struct vm_buf cmd = { 0 };
	struct warm_run w = { .k = k, .out_fd = out_fd, .err_fd = err_fd,
			      .status = -1 };
	char guest[300], tmp[4096];
	const char *name = vm_basename(job->module);
	size_t mod_len = 0;
	char *mod;
	int lockfd, ret = -1, attempt;

	lockfd = openat(dirfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW |
			O_CLOEXEC, 0600);
	if (lockfd < 0) {
		vm_err("warm guest: cannot open %s/lock: %s", dir,
		       strerror(errno));
		return -2;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB)) {
		close(lockfd);
		return -2;
	}
	snprintf(tmp, sizeof(tmp), "%s/warm.ko", wo->workdir);
	mod = vm_module_bytes(job->module, tmp, &mod_len);
	snprintf(guest, sizeof(guest), "/m/%s", name);
	if (!mod || vm_share_cwd(wo, &cmd) || vm_buf_add(&cmd, "set -- ", 7) ||
	    vm_job_words(&cmd, job, guest) || vm_buf_add(&cmd, "\n", 1)) {
		free(mod);
		vm_buf_free(&cmd);
		close(lockfd);
		return -1;
	}

	warm_signals = 0;
	vm_signals_catch(&sigs, warm_on_signal);

	/* a second try only for a keeper found, which went before the job */
	for (attempt = 0; attempt < 2; attempt++) {
		int fresh = 0;

		w.fd = connect_keeper(dirfd);
		if (w.fd < 0) {
			if (start_keeper(wo, dir, dirfd, k->idle_s))
				break;
			fresh = 1;
			w.fd = connect_keeper(dirfd);
		}
		if (w.fd < 0) {
			vm_err("warm guest: cannot connect to %s/sock: %s",
			       dir, strerror(errno));
			break;
		}
		if (warm_send_job(w.fd, k, name, mod, mod_len, &cmd) &&
		    errno != EPIPE) {
			vm_err("warm guest: cannot send the job: %s",
			       strerror(errno));
			close(w.fd);
			break;
		}
		ret = warm_relay(&w, &sigs.waitmask);
		close(w.fd);
		if (ret != 1)
			break;
		if (fresh) {
			vm_err("the warm guest's keeper failed to start "
			       "(see %s/keeper.log)", dir);
			ret = -1;
			break;
		}
		ret = -1;
	}
	if (ret == 0)
		ret = w.status;
	vm_buf_add(dmesg, w.dmesg.p ? w.dmesg.p : "", w.dmesg.len);
	vm_buf_free(&w.dmesg);

	vm_signals_restore(&sigs);
	free(mod);
	vm_buf_free(&cmd);
	close(lockfd);		/* the next run may have the guest */
	return ret;
}

int vm_run_warm(const struct vm_options *o, const struct vm_job *job,
		const struct vm_keep *k, int out_fd, int err_fd)
{
	struct vm_options wo = *o;
	struct vm_buf dmesg = { 0 };
	char kernel[4096], name[512], why[512];
	char *dir = NULL, *problems;
	int dirfd, ret;

	if (vm_kernel_path(o, kernel, sizeof(kernel)))
		return -1;
	snprintf(name, sizeof(name), "%s-%016llx",
		 o->release ? o->release : "kernel",
		 (unsigned long long)shape_key(o, kernel));
	dirfd = open_guest_dir(k, name, &dir, why, sizeof(why));
	if (dirfd < 0) {
		vm_err("cannot keep a warm guest: %s: booting a guest of "
		       "this run's own", why);
		free(dir);
		return vm_run_stream(o, job, out_fd, err_fd);
	}
	wo.workdir = dir;
	wo.kernel_image = kernel;
	ret = warm_job(&wo, job, k, dir, dirfd, out_fd, err_fd, &dmesg);
	close(dirfd);
	free(dir);
	if (ret == -2) {
		vm_buf_free(&dmesg);
		fprintf(stderr, "stap: the warm guest is busy with another "
			"run: booting a guest of this run's own\n");
		return vm_run_stream(o, job, out_fd, err_fd);
	}
	problems = vm_dmesg_problems(dmesg.p);
	if (problems) {
		char *line = problems, *nl;

		for (; (nl = strchr(line, '\n')); line = nl + 1)
			dprintf(err_fd, "stap: guest kernel: %.*s\n",
				(int)(nl - line), line);
		free(problems);
		if (ret >= 0)
			ret = 1;
	}
	vm_buf_free(&dmesg);
	return ret;
}
