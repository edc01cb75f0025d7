// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm.c - pass 5 in a throwaway qemu guest: build an initramfs (newc cpio)
 * holding busybox, the static staprun and the modules, boot it with
 * qemu -accel tcg, relay the serial ports and report exit statuses and the
 * guest's dmesg.  See vm.h for the port layout and the API.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vm/vm.h"
#include "vm/vm_internal.h"
#include "target/target.h"
#include "lib/files.h"

#define VM_CONSOLE_MAX (4u << 20)	/* console text kept in memory */
#define VM_LINE_MAX 512			/* longest control line */
#define VM_GRACE_S 10			/* after "done", wait this for qemu */

enum vm_mode { VM_STREAM, VM_BATCH };

struct vm_run {
	const struct vm_options *o;
	enum vm_mode mode;
	const struct vm_job *jobs;
	int njobs;
	struct vm_result *res;
	int out_fd, err_fd;		/* stream mode sinks, -1 once broken */

	pid_t pid;
	int fd[VM_NPORTS];		/* host ends of the serial sockets */
	struct vm_buf console;
	struct vm_buf line;		/* control line being assembled */
	size_t payload_left;		/* raw bytes still due for a frame */
	int payload_fd;			/* frame sink: file, or -1 */
	struct vm_buf *payload_buf;	/* frame sink: buffer, or NULL */

	int started;			/* job start markers seen */
	int running;			/* a job is between start and rc */
	int rcs;			/* rc markers seen */
	int skipped;			/* jobs skipped after an interrupt */
	int done;			/* "done" marker seen */
	int got_dmesg;
	int ints;			/* host SIGINT/TERM/HUP received */
	int ints_sent;			/* INT lines written to the guest */
	int out_gone;			/* stdout failed (a closed pipe): one
					 * INT of its own, as a signal's */
	int killed;			/* we SIGKILLed qemu */
	int stdin_open;			/* the host's standard input goes
					 * to the job (feed_stdin), until its
					 * end */
	int timed_out;
	int bad_frame;
	double t_spawn, t_first_start, t_last_rc;
};

static struct vm_buf vm_dmesg;
static volatile sig_atomic_t vm_signals;

void vm_err(const char *fmt, ...)
{
	va_list ap;

	fputs("stap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double vm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int vm_buf_add(struct vm_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (cap < b->len + n + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int vm_buf_printf(struct vm_buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -1;
	return vm_buf_add(b, tmp, n);
}

void vm_buf_free(struct vm_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int vm_buf_quote(struct vm_buf *b, const char *s)
{
	int err = vm_buf_add(b, "'", 1);

	for (; *s && !err; s++) {
		if (*s == '\'')
			err = vm_buf_add(b, "'\\''", 4);
		else
			err = vm_buf_add(b, s, 1);
	}
	return err ? err : vm_buf_add(b, "'", 1);
}

static char *vm_path(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

void vm_output_gone_message(int fd, int err)
{
	/* SystemTap 4.8's stapio says this, then stops as on SIGTERM: the
	 * end probes run, their output is dropped, the exit status is the
	 * run's own (0 for a script that did not fail) */
	fprintf(stderr, "ERROR: Couldn't write to output %d for cpu 0, "
		"exiting.: %s\n", fd, strerror(err));
}

int vm_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		c += w;
		n -= w;
	}
	return 0;
}

/* ---- newc cpio writer --------------------------------------------------- */

struct vm_cpio {
	FILE *f;
	unsigned int ino;
	int err;
};

static void vm_cpio_pad(struct vm_cpio *c, size_t n)
{
	static const char zero[4];

	if (n % 4 && fwrite(zero, 1, 4 - n % 4, c->f) != 4 - n % 4)
		c->err = 1;
}

static void vm_cpio_entry(struct vm_cpio *c, const char *name,
			  unsigned int mode, unsigned int rmajor,
			  unsigned int rminor, const void *data, size_t size)
{
	size_t namesize = strlen(name) + 1;

	if (fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X"
		    "%08X%08X%08zX%08X", c->ino++, mode, 0, 0,
		    (mode & S_IFMT) == S_IFDIR ? 2 : 1, 0, size, 0, 0,
		    rmajor, rminor, namesize, 0) != 110)
		c->err = 1;
	if (fwrite(name, 1, namesize, c->f) != namesize)
		c->err = 1;
	vm_cpio_pad(c, 110 + namesize);
	if (size && fwrite(data, 1, size, c->f) != size)
		c->err = 1;
	vm_cpio_pad(c, size);
}

static void vm_cpio_file(struct vm_cpio *c, const char *name,
			 const char *host_path, unsigned int mode)
{
	size_t len;
	char *data = read_file(host_path, &len);

	if (!data) {
		vm_err("cannot read %s: %s", host_path, strerror(errno));
		c->err = 2;
		return;
	}
	vm_cpio_entry(c, name, S_IFREG | mode, 0, 0, data, len);
	free(data);
}

/* The module ends with an appended signature (stap --sign-module). */
static int vm_module_signed(const char *path)
{
	static const char magic[] = "~Module signature appended~\n";
	char tail[sizeof(magic) - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
	off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;

	if (end > (off_t)sizeof(tail))
		ok = pread(fd, tail, sizeof(tail), end - (off_t)sizeof(tail)) ==
		     (ssize_t)sizeof(tail) && !memcmp(tail, magic, sizeof(tail));
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * A module without its DWARF (objcopy --strip-debug into tmp, a scratch
 * path beside the initramfs): the guest loads it the same (its symbols
 * stay), and the initramfs, which the guest holds twice while unpacking
 * it, is a fifth of the size. The module as built is used when objcopy
 * is missing or fails, and for a signed module (the signature covers the
 * DWARF).
 */
char *vm_module_bytes(const char *host_path, const char *tmp, size_t *len)
{
	int status = -1;
	pid_t pid = -1;
	char *data;

	/* objcopy would drop the signature after the ELF image */
	if (!vm_module_signed(host_path))
		pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("objcopy", "objcopy", "--strip-debug", host_path, tmp,
		       (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	bool stripped = pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status);
	data = read_file(stripped ? tmp : host_path, len);
	if (!data)
		vm_err("cannot read %s: %s", host_path, strerror(errno));
	unlink(tmp);
	return data;
}

static void vm_cpio_module(struct vm_cpio *c, const char *name,
			   const char *host_path, const char *tmp)
{
	size_t len;
	char *data = vm_module_bytes(host_path, tmp, &len);

	if (!data) {
		c->err = 2;
		return;
	}
	vm_cpio_entry(c, name, S_IFREG | 0644, 0, 0, data, len);
	free(data);
}

/*
 * An extra file: "HOST" into /bin, "HOST:/GUEST" at /GUEST with its parent
 * directories (the kernel's initramfs unpacker makes none; an entry for a
 * directory that exists already is ignored).
 */
static void vm_cpio_extra(struct vm_cpio *c, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char host[4096], name[4096];
	char *slash;

	if (!colon) {
		snprintf(name, sizeof(name), "bin/%s", vm_basename(spec));
		vm_cpio_file(c, name, spec, 0755);
		return;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	snprintf(name, sizeof(name), "%s", colon + 1 + strspn(colon + 1, "/"));
	if (colon[1] != '/' || !name[0] || !host[0]) {
		vm_err("--file %s: want HOST or HOST:/GUEST-PATH", spec);
		c->err = 2;
		return;
	}
	for (slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		vm_cpio_entry(c, name, S_IFDIR | 0755, 0, 0, NULL, 0);
		*slash = '/';
	}
	vm_cpio_file(c, name, host, 0755);
}

/*
 * 6.1 builds virtio-fs and the virtio PCI transport as modules (6.12 has
 * them built in): the release's modules that virtiofs and virtio_pci
 * need, as its modules.dep lists them, go to /k as NN-NAME.ko in an
 * order /init can load them in (each after what it depends on).
 */
struct vm_kmods {
	char *dep;		/* modules.dep's text */
	const char *release;
	const char *dir;	/* "" or a subdirectory of /k, with its '/' */
	char seen[16][128];	/* relative paths added */
	int n;
};

static void vm_kmod_add(struct vm_cpio *c, struct vm_kmods *k,
			const char *rel, size_t len, int depth)
{
	char want[160], host[4096], name[192];
	const char *line, *deps, *end, *w;

	if (len >= sizeof(k->seen[0]) || depth > 8)
		return;
	for (int i = 0; i < k->n; i++)
		if (!strncmp(k->seen[i], rel, len) && !k->seen[i][len])
			return;
	snprintf(want, sizeof(want), "%.*s:", (int)len, rel);
	for (line = k->dep; line && *line; line = end + (*end == '\n')) {
		end = line + strcspn(line, "\n");
		if (!strncmp(line, want, len + 1))
			break;
	}
	if (!line || !*line)
		return;		/* built in, or not a module here */
	/* the dependencies last to first, as modprobe loads them */
	deps = line + len + 1;
	for (w = end; w > deps;) {
		const char *e = w;

		while (w > deps && w[-1] == ' ')
			w--, e--;
		while (w > deps && w[-1] != ' ')
			w--;
		if (e > w)
			vm_kmod_add(c, k, w, (size_t)(e - w), depth + 1);
	}
	if (k->n == (int)(sizeof(k->seen) / sizeof(k->seen[0])) ||
	    len < 3 || strncmp(rel + len - 3, ".ko", 3))
		return;		/* compressed modules: not ours to unpack */
	snprintf(k->seen[k->n], sizeof(k->seen[0]), "%.*s", (int)len, rel);
	snprintf(host, sizeof(host), "/lib/modules/%s/%.*s", k->release,
		 (int)len, rel);
	snprintf(name, sizeof(name), "k/%s%02d-%s", k->dir, k->n,
		 vm_basename(k->seen[k->n]));
	k->n++;
	vm_cpio_file(c, name, host, 0644);
}

static void vm_cpio_fuse_modules(struct vm_cpio *c,
				 const struct vm_options *o)
{
	static const char *const mods[] = {
		"kernel/drivers/virtio/virtio_pci.ko",
		"kernel/fs/fuse/virtiofs.ko",
	};
	struct vm_kmods k = { .release = o->release };
	char path[4096];
	size_t len;

	if (!o->release)
		return;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", o->release);
	k.dep = read_file(path, &len);
	if (!k.dep)
		return;
	vm_cpio_entry(c, "k", S_IFDIR | 0755, 0, 0, NULL, 0);
	k.dir = "";
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		vm_kmod_add(c, &k, mods[i], strlen(mods[i]), 0);
	/* overlayfs, loaded only when the guest has /usr files of its own */
	vm_cpio_entry(c, "k/ovl", S_IFDIR | 0755, 0, 0, NULL, 0);
	k.dir = "ovl/";
	vm_kmod_add(c, &k, "kernel/fs/overlayfs/overlay.ko", 30, 0);
	free(k.dep);
}

int vm_write_initramfs(const struct vm_options *o, const char *out,
		       const char *init, size_t init_len,
		       const struct vm_job *jobs, int njobs)
{
	static const char *const dirs[] = {
		"bin", "sbin", "dev", "proc", "sys", "tmp", "m",
	};
	struct vm_cpio c = { 0 };
	char name[64 + 256], tmp[4096];
	size_t i;
	int j;

	snprintf(tmp, sizeof(tmp), "%s.ko", out);
	c.f = fopen(out, "we");
	if (!c.f) {
		vm_err("cannot create %s: %s", out, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		vm_cpio_entry(&c, dirs[i], S_IFDIR | 0755, 0, 0, NULL, 0);
	vm_cpio_entry(&c, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	vm_cpio_entry(&c, "init", S_IFREG | 0755, 0, 0, init, init_len);
	if (o->verbose > 1)
		fprintf(stderr, "stap: guest /init:\n%.*s", (int)init_len, init);
	vm_cpio_file(&c, "bin/busybox",
		     o->busybox ? o->busybox : "/bin/busybox", 0755);
	vm_cpio_file(&c, "bin/staprun", o->staprun, 0755);
	for (i = 0; o->extra_files && o->extra_files[i]; i++)
		vm_cpio_extra(&c, o->extra_files[i]);
	if (vm_host_shared(o))
		vm_cpio_fuse_modules(&c, o);
	for (j = 0; j < njobs; j++) {
		snprintf(name, sizeof(name), "m/%d", j);
		vm_cpio_entry(&c, name, S_IFDIR | 0755, 0, 0, NULL, 0);
		snprintf(name, sizeof(name), "m/%d/%s", j,
			 vm_basename(jobs[j].module));
		vm_cpio_module(&c, name, jobs[j].module, tmp);
	}
	vm_cpio_entry(&c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (fclose(c.f))
		c.err = 1;
	if (c.err == 1)
		vm_err("cannot write %s", out);
	return c.err ? -1 : 0;
}

static int vm_make_initramfs(const struct vm_options *o, const char *out,
			     enum vm_mode mode, const struct vm_job *jobs,
			     int njobs)
{
	struct vm_buf init = { 0 };
	int ret = -1;

	if (vm_make_init(o, &init, mode == VM_STREAM, jobs, njobs))
		vm_err("out of memory");
	else
		ret = vm_write_initramfs(o, out, init.p, init.len, jobs, njobs);
	vm_buf_free(&init);
	return ret;
}

/* ---- qemu ---------------------------------------------------------------- */

static const char *vm_virtiofsd(void)
{
	const char *d = getenv("STAPVM_VIRTIOFSD");

	return d && *d ? d : "/usr/lib/qemu/virtiofsd";
}

static int vm_share_socket(const struct vm_options *o, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%s/vfs.sock", o->workdir ? o->workdir : ".");

	/* sun_path holds 108 bytes */
	return len > 0 && (size_t)len < n && len < 100 ? 0 : -1;
}

bool vm_host_shared(const struct vm_options *o)
{
	char sock[128];

	/* virtiofsd wants root (its namespace sandbox, every file readable) */
	return !o->no_host_share && geteuid() == 0 &&
	       !access(vm_virtiofsd(), X_OK) &&
	       !vm_share_socket(o, sock, sizeof(sock));
}

/*
 * In qemu's process, before it execs: virtiofsd sharing this machine's /
 * on sock, as a child that dies with qemu (PR_SET_PDEATHSIG) and leaves
 * by itself when qemu hangs up. 0 once the socket is there; -1 if the
 * daemon did not start (the guest then runs without the host's files).
 */
static int vm_start_virtiofsd(const char *sock, int logfd)
{
	char arg[160];
	pid_t d;

	unlink(sock);
	d = fork();
	if (d < 0)
		return -1;
	if (d == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			_exit(127);
		snprintf(arg, sizeof(arg), "--socket-path=%s", sock);
		if (logfd >= 0) {
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		execl(vm_virtiofsd(), "virtiofsd", arg, "-o", "source=/",
		      "-o", "cache=auto", "-o", "sandbox=chroot",
		      "-o", "log_level=warn",
		      (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		struct stat st;

		if (!stat(sock, &st) && S_ISSOCK(st.st_mode))
			return 0;
		if (waitpid(d, NULL, WNOHANG) == d)
			return -1;
		usleep(2000);
	}
	kill(d, SIGKILL);
	return -1;
}

pid_t vm_spawn_qemu(const struct vm_options *o, const char *kernel,
		    const char *initrd, int fd[VM_NPORTS], const char *disk)
{
	const char *qemu = o->qemu ? o->qemu : getenv("STAPVM_QEMU");
	char *argv[80], *logpath, mem[32], cpus[32], append[1024];
	char sock[128], memobj[96], fsdev[160];
	bool share = vm_host_shared(o);
	struct vm_buf drive = { 0 };
	char chardev[VM_NPORTS][64], serial[VM_NPORTS][32];
	int guest[VM_NPORTS], n = 0, i, logfd, ncpus;

	if (!qemu || !*qemu)
		qemu = "qemu-system-x86_64";
	for (i = 0; i < VM_NPORTS; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
			vm_err("socketpair: %s", strerror(errno));
			while (i--) {
				close(guest[i]);
				close(fd[i]);
				fd[i] = -1;
			}
			return -1;
		}
		fcntl(sv[0], F_SETFD, FD_CLOEXEC);
		fd[i] = sv[0];
		guest[i] = sv[1];
		snprintf(chardev[i], sizeof(chardev[i]),
			 "socket,id=s%d,fd=%d", i, sv[1]);
		snprintf(serial[i], sizeof(serial[i]), "chardev:s%d", i);
	}
	snprintf(mem, sizeof(mem), "%d", o->memory_mb > 0 ? o->memory_mb : 512);
	/*
	 * One vCPU unless asked: with two, a probe spinning for the globals
	 * lock (trylock, then udelay) holds the only host thread the other
	 * vCPU could release the lock on, so hot probes get skipped.
	 */
	ncpus = o->cpus > 0 ? o->cpus : 1;
	if (o->icount && ncpus > 1) {
		/* qemu 7.2 + 6.1 guests hang bringing up CPU 1 under icount */
		if (o->cpus > 1)
			vm_err("vm: -icount: using 1 CPU, not %d", o->cpus);
		ncpus = 1;
	}
	snprintf(cpus, sizeof(cpus), "%d", ncpus);

	argv[n++] = (char *)qemu;
	/*
	 * One host thread runs every vCPU in turn: with multi-threaded TCG
	 * we saw the guest execute half-patched code when the kernel
	 * patched a tracepoint's jump label (an invalid opcode in the
	 * middle of __schedule's NOP) and soft lockups while arming one.
	 */
	argv[n++] = "-accel";
	argv[n++] = "tcg,thread=single";
	argv[n++] = "-nodefaults";
	argv[n++] = "-no-user-config";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-net";
	argv[n++] = "none";
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-smp";
	argv[n++] = cpus;
	if (o->icount) {
		argv[n++] = "-icount";
		argv[n++] = "shift=0";
	}
	argv[n++] = "-kernel";
	argv[n++] = (char *)kernel;
	argv[n++] = "-initrd";
	argv[n++] = (char *)initrd;
	argv[n++] = "-append";
	/* cryptomgr.notests: the crypto self-tests took the one vCPU for
	 * about 0.7 s after boot, slowing whatever ran first */
	snprintf(append, sizeof(append), "console=ttyS0 quiet loglevel=3 "
		 "panic=-1 rdinit=/init cryptomgr.notests%s%s",
		 o->kernel_args ? " " : "", o->kernel_args ? o->kernel_args : "");
	argv[n++] = append;
	for (i = 0; i < VM_NPORTS; i++) {
		argv[n++] = "-chardev";
		argv[n++] = chardev[i];
		argv[n++] = "-serial";
		argv[n++] = serial[i];
	}
	if (disk) {
		/* a comma in qemu's option values is written twice */
		vm_buf_add(&drive, "if=none,id=xfer,format=raw,file=", 32);
		for (const char *c = disk; *c; c++)
			vm_buf_add(&drive, *c == ',' ? ",," : c,
				   *c == ',' ? 2 : 1);
		argv[n++] = "-drive";
		argv[n++] = drive.p;
		argv[n++] = "-device";
		argv[n++] = "nvme,drive=xfer,serial=stapxfer";
	}
	/*
	 * The host's files over virtio-fs: its vhost-user daemon reads the
	 * guest's memory, so that memory is a shared memfd. These stay
	 * last on the line: the child drops them if virtiofsd fails.
	 */
	int share_at = n;
	if (share && !vm_share_socket(o, sock, sizeof(sock))) {
		snprintf(memobj, sizeof(memobj),
			 "memory-backend-memfd,id=mem,size=%sM,share=on", mem);
		snprintf(fsdev, sizeof(fsdev), "socket,id=vfs,path=%s", sock);
		argv[n++] = "-object";
		argv[n++] = memobj;
		argv[n++] = "-numa";
		argv[n++] = "node,memdev=mem";
		argv[n++] = "-chardev";
		argv[n++] = fsdev;
		argv[n++] = "-device";
		argv[n++] = "vhost-user-fs-pci,chardev=vfs,tag=host";
	} else {
		share = false;
	}
	argv[n] = NULL;

	if (o->verbose) {
		fputs("stap: vm:", stderr);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %s", argv[i]);
		fputc('\n', stderr);
	}

	logpath = vm_path(o->workdir, "qemu.log");
	logfd = logpath ? open(logpath, O_WRONLY | O_CREAT | O_TRUNC |
			       O_CLOEXEC, 0644) : -1;
	free(logpath);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		int nul;

		/*
		 * qemu is in a process group of its own, so nothing but
		 * this reaches it when we die without killing it (SIGKILL):
		 * the kernel's SIGKILL when the thread that forked it ends
		 * (our only thread). Had we died before the prctl, the
		 * parent is init already, and nothing would come.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		nul = open("/dev/null", O_RDONLY);
		sigemptyset(&none);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* keep the terminal's ^C away from qemu: we forward it */
		setpgid(0, 0);
		if (nul >= 0)
			dup2(nul, 0);
		if (logfd >= 0) {
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		if (share && vm_start_virtiofsd(sock, logfd)) {
			fprintf(stderr, "stap: vm: virtiofsd did not start: "
				"the guest runs without this machine's files\n");
			argv[share_at] = NULL;
		}
		execvp(qemu, argv);
		fprintf(stderr, "stap: cannot run %s: %s\n", qemu,
			strerror(errno));
		_exit(127);
	}
	for (i = 0; i < VM_NPORTS; i++)
		close(guest[i]);
	if (logfd >= 0)
		close(logfd);
	vm_buf_free(&drive);
	if (pid < 0) {
		vm_err("fork: %s", strerror(errno));
		for (i = 0; i < VM_NPORTS; i++) {
			close(fd[i]);
			fd[i] = -1;
		}
	}
	return pid;
}

static int vm_spawn(struct vm_run *r, const char *kernel, const char *initrd)
{
	r->t_spawn = vm_now();
	r->pid = vm_spawn_qemu(r->o, kernel, initrd, r->fd, NULL);
	return r->pid < 0 ? -1 : 0;
}

/* ---- relaying ------------------------------------------------------------ */

static void vm_send_int(struct vm_run *r)
{
	if (r->fd[3] >= 0 && vm_write_all(r->fd[3], "INT\n", 4) == 0)
		r->ints_sent++;
}

/*
 * A piece of the host's standard input for the job: "IN " and each byte
 * as an octal escape, which the guest's control loop gives printf (no
 * byte of it can be taken for a format or end the line); at the end,
 * "EOF".
 */
static void vm_send_stdin(struct vm_run *r)
{
	unsigned char in[256];
	char line[4 + 4 * sizeof(in) + 2];
	ssize_t n = read(STDIN_FILENO, in, sizeof(in));
	size_t len = 3;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		r->stdin_open = 0;
		if (r->fd[3] >= 0)
			vm_write_all(r->fd[3], "EOF\n", 4);
		return;
	}
	memcpy(line, "IN ", 3);
	for (ssize_t i = 0; i < n; i++)
		len += (size_t)sprintf(line + len, "\\%03o", in[i]);
	line[len++] = '\n';
	if (r->fd[3] < 0 || vm_write_all(r->fd[3], line, len))
		r->stdin_open = 0;
}

static int vm_open_result(struct vm_run *r, int job, int err)
{
	const char *path = err ? r->res[job].stderr_path :
				 r->res[job].stdout_path;

	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* One control line from the guest (without its newline). */
static void vm_control(struct vm_run *r, char *line)
{
	char what[16], stream[8];
	int job, val;
	unsigned long long size;

	if (strncmp(line, "@@STAPVM ", 9)) {
		r->bad_frame = 1;
		return;
	}
	line += 9;
	if (sscanf(line, "start %d", &job) == 1) {
		r->started++;
		r->running = 1;
		if (r->started == 1)
			r->t_first_start = vm_now();
		/* an interrupt (or a closed stdout) that came during boot */
		if (r->ints + r->out_gone > r->ints_sent)
			vm_send_int(r);
	} else if (sscanf(line, "rc %d %d", &job, &val) == 2) {
		r->running = 0;
		r->rcs++;
		r->t_last_rc = vm_now();
		if (r->res && job >= 0 && job < r->njobs)
			r->res[job].status = val;
	} else if (sscanf(line, "skip %d", &job) == 1) {
		r->skipped++;
	} else if (sscanf(line, "data %d %7s %llu", &job, stream,
			  &size) == 3) {
		r->payload_left = size;
		r->payload_fd = -1;
		if (r->res && job >= 0 && job < r->njobs) {
			r->payload_fd = vm_open_result(r, job,
						       !strcmp(stream, "err"));
			if (r->payload_fd < 0)
				vm_err("cannot write job %d output: %s", job,
				       strerror(errno));
		}
	} else if (sscanf(line, "dmesg - %llu", &size) == 1) {
		r->payload_left = size;
		r->payload_buf = &vm_dmesg;
		r->got_dmesg = 1;
	} else if (!strcmp(line, "done")) {
		r->done = 1;
	} else if (sscanf(line, "%15s", what) == 1) {
		r->bad_frame = 1;
	}
}

static void vm_payload_end(struct vm_run *r)
{
	if (r->payload_fd >= 0)
		close(r->payload_fd);
	r->payload_fd = -1;
	r->payload_buf = NULL;
}

static void vm_control_bytes(struct vm_run *r, const char *p, size_t n)
{
	while (n) {
		if (r->payload_left) {
			size_t k = n < r->payload_left ? n : r->payload_left;

			if (r->payload_fd >= 0 &&
			    vm_write_all(r->payload_fd, p, k)) {
				close(r->payload_fd);
				r->payload_fd = -1;
			}
			if (r->payload_buf)
				vm_buf_add(r->payload_buf, p, k);
			p += k;
			n -= k;
			r->payload_left -= k;
			if (!r->payload_left)
				vm_payload_end(r);
			continue;
		}
		if (*p == '\n') {
			vm_control(r, r->line.p ? r->line.p : "");
			r->line.len = 0;
			if (!r->payload_left)
				vm_payload_end(r);
		} else if (r->line.len < VM_LINE_MAX) {
			vm_buf_add(&r->line, p, 1);
		}
		p++;
		n--;
	}
}

static void vm_port_bytes(struct vm_run *r, int port, const char *p,
			  size_t n)
{
	switch (port) {
	case 0:
		if (r->console.len + n > VM_CONSOLE_MAX &&
		    r->console.len > VM_CONSOLE_MAX / 2) {
			/* keep the newest half: the tail is what we report */
			size_t drop = r->console.len - VM_CONSOLE_MAX / 2;

			memmove(r->console.p, r->console.p + drop,
				r->console.len - drop + 1);
			r->console.len -= drop;
		}
		vm_buf_add(&r->console, p, n);
		if (r->o->verbose)
			vm_write_all(2, p, n);
		break;
	case 1:
	case 2: {
		int *fd = port == 1 ? &r->out_fd : &r->err_fd;

		if (r->mode != VM_STREAM || *fd < 0 || !vm_write_all(*fd, p, n))
			break;
		if (port == 1 && !r->out_gone) {
			/* the output went away (`| head`): stop the run as
			 * an interrupt does, end probes included */
			vm_output_gone_message(*fd, errno);
			r->out_gone = 1;
			if (r->running)
				vm_send_int(r);
		}
		*fd = -1;	/* e.g. EPIPE: drop the rest */
		break;
	}
	case 3:
		vm_control_bytes(r, p, n);
		break;
	}
}

static void vm_kill(struct vm_run *r)
{
	if (!r->killed && r->pid > 0)
		kill(r->pid, SIGKILL);
	r->killed = 1;
}

static void vm_on_signal(int sig)
{
	(void)sig;
	vm_signals++;
}

void vm_signals_catch(struct vm_signals *s, void (*handler)(int))
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &s->oldmask);
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	sigaction(SIGHUP, &sa, &s->old_hup);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &s->old_pipe);
	s->waitmask = s->oldmask;
	sigdelset(&s->waitmask, SIGINT);
	sigdelset(&s->waitmask, SIGTERM);
	sigdelset(&s->waitmask, SIGHUP);
}

void vm_signals_restore(const struct vm_signals *s)
{
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	sigaction(SIGHUP, &s->old_hup, NULL);
	sigaction(SIGPIPE, &s->old_pipe, NULL);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
}

const char *vm_tail_lines(const char *s, const char *e, int n)
{
	const char *p = e;
	int lines = 0;

	while (p > s && lines <= n)
		if (*--p == '\n')
			lines++;
	if (p > s)
		p++;
	return p;
}

/* Relay until qemu has closed every port, then reap it. */
static int vm_loop(struct vm_run *r)
{
	struct vm_signals sigs;
	double deadline = 0, grace = 0;
	int status = 0, i;

	vm_signals = 0;
	vm_signals_catch(&sigs, vm_on_signal);

	if (r->o->timeout_s > 0)
		deadline = r->t_spawn + r->o->timeout_s;
	r->stdin_open = r->mode == VM_STREAM && r->njobs == 1 &&
			r->jobs[0].feed_stdin;
	for (;;) {
		struct pollfd pfd[VM_NPORTS + 1];
		struct timespec ts, *tsp = NULL;
		double now = vm_now(), until = 0;
		int nfds = 0, port[VM_NPORTS + 1];

		for (i = 0; i < VM_NPORTS; i++) {
			if (r->fd[i] < 0)
				continue;
			pfd[nfds].fd = r->fd[i];
			pfd[nfds].events = POLLIN;
			port[nfds++] = i;
		}
		if (!nfds)
			break;
		/* after the job's start: the guest's control loop reads
		 * its port then (bytes before the port is open are lost) */
		if (r->stdin_open && r->running && !r->done) {
			pfd[nfds].fd = STDIN_FILENO;
			pfd[nfds].events = POLLIN;
			port[nfds++] = -1;
		}
		if (r->done && !grace)
			grace = now + VM_GRACE_S;
		if (deadline && !r->killed)
			until = deadline;
		if (grace && !r->killed && (!until || grace < until))
			until = grace;
		if (until) {
			double d = until > now ? until - now : 0;

			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		if (ppoll(pfd, nfds, tsp, &sigs.waitmask) < 0 && errno != EINTR)
			break;

		while (r->ints < vm_signals) {
			r->ints++;
			if (r->ints >= 3) {
				vm_err("interrupted again; killing the guest");
				vm_kill(r);
			} else if (r->running) {
				vm_send_int(r);
			}
		}
		now = vm_now();
		if (deadline && now >= deadline && !r->killed) {
			r->timed_out = 1;
			vm_kill(r);
		}
		if (grace && now >= grace && !r->killed)
			vm_kill(r);

		for (i = 0; i < nfds; i++) {
			char tmp[65536];
			ssize_t n;

			if (!pfd[i].revents)
				continue;
			if (port[i] < 0) {
				vm_send_stdin(r);
				continue;
			}
			n = read(pfd[i].fd, tmp, sizeof(tmp));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				close(r->fd[port[i]]);
				r->fd[port[i]] = -1;
				continue;
			}
			vm_port_bytes(r, port[i], tmp, n);
		}
	}
	vm_payload_end(r);

	/* every port is closed: qemu is exiting */
	for (i = 0; i < 100; i++) {
		if (waitpid(r->pid, &status, WNOHANG) == r->pid)
			break;
		usleep(50000);
	}
	if (i == 100) {
		vm_kill(r);
		waitpid(r->pid, &status, 0);
	}
	r->pid = 0;

	vm_signals_restore(&sigs);
	return status;
}

/* Print the last lines of the console log, and qemu's own messages. */
static void vm_report_tail(struct vm_run *r)
{
	const char *s = r->console.p ? r->console.p : "";
	const char *e = s + r->console.len;
	const char *p = vm_tail_lines(s, e, 20);
	char *qlog;
	size_t qlog_len = 0;
	char *path;

	if (p < e) {
		fputs("stap: guest console (tail):\n", stderr);
		for (; p < e; p++)
			if (*p != '\r')
				fputc(*p, stderr);
		if (e[-1] != '\n')
			fputc('\n', stderr);
	}
	path = vm_path(r->o->workdir, "qemu.log");
	qlog = path ? read_file(path, &qlog_len) : NULL;
	if (qlog && qlog_len)
		fprintf(stderr, "stap: qemu says:\n%s%s", qlog,
			qlog[qlog_len - 1] == '\n' ? "" : "\n");
	free(qlog);
	free(path);
}

/* Save the console log in the workdir; handy when debugging the guest. */
static void vm_save_console(struct vm_run *r)
{
	char *path = vm_path(r->o->workdir, "console.log");
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644) : -1;

	if (fd >= 0) {
		vm_write_all(fd, r->console.p ? r->console.p : "",
			     r->console.len);
		close(fd);
	}
	free(path);
}

int vm_kernel_path(const struct vm_options *o, char *buf, size_t n)
{
	if (o->kernel_image) {
		snprintf(buf, n, "%s", o->kernel_image);
	} else if (o->release) {
		struct target *t = target_new(o->release, NULL);

		snprintf(buf, n, "%s", t->image);
		target_free(t);
	} else {
		vm_err("vm: no kernel release given");
		return -1;
	}
	if (access(buf, R_OK)) {
		vm_err("cannot read kernel image %s: %s", buf, strerror(errno));
		return -1;
	}
	return 0;
}

static int vm_run(struct vm_run *r)
{
	const struct vm_options *o = r->o;
	char kernel[4096], *initrd = NULL;
	int i, status, ok;
	double t_end;

	for (i = 0; i < VM_NPORTS; i++)
		r->fd[i] = -1;
	r->payload_fd = -1;
	vm_dmesg.len = 0;
	if (vm_dmesg.p)
		vm_dmesg.p[0] = '\0';

	if (!o->workdir || !o->staprun) {
		vm_err("vm: workdir and staprun must be set");
		return -1;
	}
	if (vm_kernel_path(o, kernel, sizeof(kernel)))
		return -1;
	initrd = vm_path(o->workdir, "initramfs.cpio");
	if (!initrd || vm_make_initramfs(o, initrd, r->mode, r->jobs,
					 r->njobs)) {
		free(initrd);
		return -1;
	}
	if (vm_spawn(r, kernel, initrd)) {
		free(initrd);
		return -1;
	}
	free(initrd);
	status = vm_loop(r);
	t_end = vm_now();
	vm_save_console(r);

	ok = r->done && r->rcs + r->skipped == r->njobs && !r->skipped;
	if (o->verbose) {
		double boot = r->t_first_start ? r->t_first_start - r->t_spawn
					       : 0;

		fprintf(stderr, "stap: vm: boot %.2f s, jobs %.2f s, "
			"total %.2f s\n", boot,
			r->t_last_rc && r->t_first_start ?
			r->t_last_rc - r->t_first_start : 0,
			t_end - r->t_spawn);
	}
	if (ok)
		return 0;
	if (r->timed_out)
		vm_err("guest timed out after %d s", o->timeout_s);
	else if (r->ints >= 3)
		vm_err("guest killed after repeated interrupts");
	else if (r->skipped)
		vm_err("interrupted: %d job(s) not run", r->skipped);
	else if (r->bad_frame)
		vm_err("guest sent garbled control data");
	else if (!r->started && WIFEXITED(status) && WEXITSTATUS(status))
		vm_err("qemu failed (exit status %d)", WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && !r->killed)
		vm_err("qemu killed by signal %d", WTERMSIG(status));
	else if (r->console.p && strstr(r->console.p, "Kernel panic"))
		vm_err("guest kernel panicked (%d of %d job(s) done)",
		       r->rcs, r->njobs);
	else
		vm_err("guest stopped before finishing (%d of %d job(s) "
		       "done)", r->rcs, r->njobs);
	if (!r->skipped)
		vm_report_tail(r);
	return -1;
}

int vm_run_stream(const struct vm_options *o, const struct vm_job *job,
		  int out_fd, int err_fd)
{
	struct vm_run r = { 0 };
	struct vm_result res = { .status = -1 };
	char *problems;
	int ret;

	r.o = o;
	r.mode = VM_STREAM;
	r.jobs = job;
	r.njobs = 1;
	r.res = &res;
	r.out_fd = out_fd;
	r.err_fd = err_fd;
	ret = vm_run(&r);
	if (ret == 0 || r.rcs == 1)
		ret = res.status;
	if (ret >= 0 && !r.done)
		ret = -1;	/* the job ran but the guest died after it */
	problems = vm_dmesg_problems(r.got_dmesg ? vm_dmesg.p : r.console.p);
	if (problems) {
		char *line = problems, *nl;

		for (; (nl = strchr(line, '\n')); line = nl + 1) {
			dprintf(err_fd, "stap: guest kernel: %.*s\n",
				(int)(nl - line), line);
		}
		free(problems);
		if (ret >= 0)
			ret = 1;
	}
	vm_buf_free(&r.console);
	vm_buf_free(&r.line);
	return ret;
}

int vm_run_batch(const struct vm_options *o, const struct vm_job *jobs,
		 int njobs, struct vm_result *results)
{
	struct vm_run r = { 0 };
	int i, ret;
	char name[64];

	for (i = 0; i < njobs; i++) {
		results[i].status = -1;
		snprintf(name, sizeof(name), "job%d.stdout", i);
		results[i].stdout_path = vm_path(o->workdir, name);
		snprintf(name, sizeof(name), "job%d.stderr", i);
		results[i].stderr_path = vm_path(o->workdir, name);
		if (!results[i].stdout_path || !results[i].stderr_path) {
			vm_err("out of memory");
			return -1;
		}
		close(open(results[i].stdout_path, O_WRONLY | O_CREAT |
			   O_TRUNC | O_CLOEXEC, 0644));
		close(open(results[i].stderr_path, O_WRONLY | O_CREAT |
			   O_TRUNC | O_CLOEXEC, 0644));
	}
	r.o = o;
	r.mode = VM_BATCH;
	r.jobs = jobs;
	r.njobs = njobs;
	r.res = results;
	r.out_fd = r.err_fd = -1;
	ret = vm_run(&r);
	vm_buf_free(&r.console);
	vm_buf_free(&r.line);
	return ret;
}

void vm_results_free(struct vm_result *results, int njobs)
{
	int i;

	for (i = 0; i < njobs; i++) {
		free(results[i].stdout_path);
		free(results[i].stderr_path);
		results[i].stdout_path = results[i].stderr_path = NULL;
	}
}

const char *vm_last_dmesg(void)
{
	return vm_dmesg.p ? vm_dmesg.p : "";
}

char *vm_dmesg_problems(const char *text)
{
	static const char *const pats[] = {
		"BUG:", "Oops", "WARNING:", "general protection",
		"Kernel panic",
		/* RCU stalls ("rcu: INFO: rcu_preempt self-detected stall",
		 * "detected stalls on CPUs/tasks") and hung tasks ("INFO:
		 * task sh:42 blocked for more than 120 seconds") */
		"stall on CPU", "stalls on CPU", "self-detected stall",
		"blocked for more than",
	};
	struct vm_buf out = { 0 };
	const char *line, *nl;
	size_t i;

	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		char *l;
		size_t len;

		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		while (len && line[len - 1] == '\r')
			len--;
		l = strndup(line, len);
		if (!l)
			break;
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			if (strstr(l, pats[i])) {
				vm_buf_add(&out, l, len);
				vm_buf_add(&out, "\n", 1);
				break;
			}
		}
		free(l);
	}
	return out.p;
}

int vm_host_can_load_modules(const char **why, bool signed_modules)
{
	struct utsname u;
	const char *refusal = target_host_refusal("", signed_modules);

	if (!refusal && uname(&u))
		refusal = "uname failed";
	if (!refusal && !target_has_build_tree(u.release))
		refusal = "it has no build tree (linux-headers)";
	if (why)
		*why = refusal;
	return !refusal;
}
