// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * staprun: load a generated module, relay its output, unload it.
 *
 *   staprun [-o FILE [-S SIZE[,N]] | -m [-S SIZE]] [-c CMD [-E]] [-x PID] [-v]
 *           MODULE.ko [NAME=VALUE...]
 *
 * Talks to the module through /proc/stap_<MODULE>/{ctl,data} as described
 * in runtime/abi/transport.h: "start", then sleep in ppoll() on data
 * (POLLIN: records, POLLPRI: read the status) until the status line says
 * exit_requested, the -c command exits (SIGCHLD) or a signal arrives; then
 * "stop", drain, report and delete the module.  "start" and "stop" are
 * written by a second thread while this one goes on reading: begin and
 * end probes' output waits in the module for the reader rather than
 * being dropped.  Records are read many per read() and each run of
 * records of one stream is written with one write().
 * Who may load what: SystemTap's staprun model (below, before
 * insert_module). Exit status: 0, or 1 when the session failed or anything
 * went wrong.
 * -v sets the module's stp_verbose (it reports how its probes attached);
 * -vv also logs staprun's own steps.
 * -o FILE writes the script's output to FILE, and switch_file() or -S's
 * size moves it on to the next file, as SystemTap 4.8's stapio
 * (lib/outfiles.h). -m (a guest's loader for stap -o) writes it to
 * standard output in frames instead, with a frame where the next file
 * starts, for stap to write the files.
 * Built statically: it runs inside a busybox initramfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "lib/outfiles.h"
#include "runtime/abi/transport.h"

#define DATA_BUF_SIZE (1024 * 1024)
#define POLL_NS 10000000L		/* 10 ms between unload retries */

struct status {
	unsigned int state;
	unsigned int exit_requested;
	unsigned int failed;
	unsigned int errors;
	unsigned int skipped;
	unsigned long long lost;
	unsigned long long reported;	/* of lost, reported by the module */
};

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_sigchld;
static bool out_gone;		/* the output failed (a closed pipe) */
static int verbose;		/* -v: module's stp_verbose; -vv: our log */
static int out_fd = STDOUT_FILENO;
static bool to_files;		/* -o: the output goes to files */
static bool framed;		/* -m: the output goes out in frames */
static struct out_files files = { .fd = -1 };	/* -o, -S */
static char modname[256];
static bool module_loaded;
static int ctl_fd = -1;
static int data_fd = -1;
static char *data_buf;

static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 2)
		return;
	va_start(ap, fmt);
	fputs("staprun: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_sigchld(int sig)
{
	(void)sig;
	got_sigchld = 1;
}

static void sleep_poll(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* Write all of buf, retrying short writes and EINTR. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

static int ctl_command(const char *cmd)
{
	size_t len = strlen(cmd);
	ssize_t n;

	do
		n = write(ctl_fd, cmd, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

static int read_status(struct status *st)
{
	char buf[256];
	ssize_t n;

	do
		n = pread(ctl_fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	memset(st, 0, sizeof(*st));
	if (sscanf(buf, STP_STATUS_FMT, &st->state, &st->exit_requested,
		   &st->failed, &st->errors, &st->skipped, &st->lost,
		   &st->reported) != 7)
		return -1;
	return 0;
}

/*
 * system(CMD) of the script: "sh -c CMD" with the loader's standard
 * streams and no other descriptor, as SystemTap 4.8's stapio runs it.
 * The loader waits for the shell (not for what it puts in the
 * background): the records before it are out already, and those after
 * it come after its output.
 */
static void run_system(const char *cmd, size_t len)
{
	char *c = strndup(cmd, len);
	sigset_t none;
	pid_t pid;

	if (!c)
		return;
	vlog("system: %s\n", c);
	sigemptyset(&none);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* framed, standard output is no place for its bytes */
		if (framed)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		closefrom(3);
		execl("/bin/sh", "sh", "-c", c, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "staprun: system: %s\n", strerror(errno));
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(c);
}

/*
 * input.char / input.line: stap's standard input goes to the module's
 * /proc/systemtap/MODULE/__stdin a byte at a time, from a thread of its
 * own, as SystemTap 4.8's stapio feeds it (a terminal in non-canonical
 * mode without echo, restored at the end). Nothing happens when the
 * script has no such probe (no file).
 */
static struct termios stdin_term;
static bool stdin_term_set;

static void *stdin_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char ch;
	ssize_t n;

	for (;;) {
		n = read(STDIN_FILENO, &ch, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* a failed write (the module stopping) drops the byte */
		while (write(fd, &ch, 1) < 0 && errno == EINTR)
			;
	}
	close(fd);
	return NULL;
}

static void feed_stdin(void)
{
	char path[sizeof(modname) + 32];
	pthread_t t;
	int fd;

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", modname);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	vlog("feeding stdin to %s\n", path);
	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &stdin_term)) {
		struct termios raw = stdin_term;

		raw.c_lflag &= ~(ICANON | ECHO);
		stdin_term_set = !tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	if (pthread_create(&t, NULL, stdin_thread, (void *)(intptr_t)fd)) {
		close(fd);
		return;
	}
	pthread_detach(t);
}

/* The output failed: as SystemTap 4.8's stapio (its message too), the
 * run stops as on SIGTERM (`stap ... | head` ends), the end probes run
 * and what they print is read and dropped, so they never wait for a
 * reader; the exit status is the run's own. */
static void output_failed(void)
{
	fprintf(stderr, "ERROR: Couldn't write to output %d for cpu 0, "
		"exiting.: %s\n", to_files ? files.fd : out_fd,
		strerror(errno));
	out_gone = true;
}

/* One frame of -m's output: the type, then for data its length and bytes. */
static int write_frame(char type, const char *buf, size_t len)
{
	unsigned char hdr[5] = { (unsigned char)type, len & 0xff,
				 (len >> 8) & 0xff, (len >> 16) & 0xff,
				 (len >> 24) & 0xff };

	if (write_all(out_fd, (const char *)hdr, type == OUT_FRAME_DATA ?
		      sizeof(hdr) : 1))
		return -1;
	return type == OUT_FRAME_DATA ? write_all(out_fd, buf, len) : 0;
}

/*
 * switch_file() of the script, or -S's size reached: the output goes on
 * in the next file (framed: stap starts it). Without -o it does nothing,
 * as under SystemTap 4.8.
 */
static void next_file(void)
{
	char path[PATH_MAX];

	if (out_gone || (!to_files && !framed))
		return;
	vlog("switching output file\n");
	if (framed) {
		files.written = 0;
		if (write_frame(OUT_FRAME_NEXT, NULL, 0))
			output_failed();
		return;
	}
	if (out_files_next(&files, path)) {
		int err = errno;

		fprintf(stderr, "ERROR: Couldn't open output file %s: %s\n",
			path, strerror(err));
		fprintf(stderr, "ERROR: Couldn't open file for cpu 0, "
			"exiting.: %s\n", strerror(err));
		out_gone = true;
	}
}

/* Write one run of payloads to its stream. */
static int relay_run(int type, const char *buf, size_t len)
{
	int rc;

	if (!len)
		return 0;
	if (type == STP_REC_STDERR) {
		write_all(STDERR_FILENO, buf, len);
		return 0;
	}
	if (out_gone)
		return 0;
	if (framed) {
		rc = write_frame(OUT_FRAME_DATA, buf, len);
		files.written += len;
	} else if (to_files) {
		rc = out_files_write(&files, buf, len);
	} else {
		rc = write_all(out_fd, buf, len);
	}
	if (rc)
		output_failed();
	return 0;
}

/*
 * Read one batch of records and relay them: the payloads are packed in
 * place (headers dropped), so each run of records of one stream is one
 * write().  Returns the number of bytes read (0 when the module had
 * nothing), or -1 on error.
 */
static ssize_t relay_once(void)
{
	ssize_t n;
	size_t off = 0, run = 0, run_len = 0;
	int run_type = STP_REC_STDOUT;

	do
		n = read(data_fd, data_buf, DATA_BUF_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "staprun: reading data: %s\n", strerror(errno));
		return -1;
	}
	while ((size_t)n - off >= sizeof(struct stp_record_hdr)) {
		struct stp_record_hdr hdr;
		int type;

		memcpy(&hdr, data_buf + off, sizeof(hdr));
		off += sizeof(hdr);
		if (hdr.len > (size_t)n - off) {
			fprintf(stderr, "staprun: truncated record\n");
			return -1;
		}
		if (hdr.type == STP_REC_SYSTEM ||
		    hdr.type == STP_REC_SWITCH_FILE) {
			/* the run before it out first */
			if (relay_run(run_type, data_buf + run, run_len))
				return -1;
			if (hdr.type == STP_REC_SYSTEM)
				run_system(data_buf + off, hdr.len);
			else
				next_file();
			off += hdr.len;
			run = off;
			run_len = 0;
			continue;
		}
		type = hdr.type == STP_REC_STDERR ? STP_REC_STDERR :
						    STP_REC_STDOUT;
		/* -S: a record that would take the file past its size
		 * starts the next one (the run before it out first) */
		if (type == STP_REC_STDOUT &&
		    out_files_full(&files, run_type == STP_REC_STDOUT ?
				   run_len : 0, hdr.len)) {
			if (relay_run(run_type, data_buf + run, run_len))
				return -1;
			next_file();
			run = off;
			run_len = 0;
			run_type = type;
		}
		if (type != run_type) {
			if (relay_run(run_type, data_buf + run, run_len))
				return -1;
			run = off;
			run_len = 0;
			run_type = type;
		}
		/* pack: the run's payloads end to end from data_buf + run */
		memmove(data_buf + run + run_len, data_buf + off, hdr.len);
		run_len += hdr.len;
		off += hdr.len;
	}
	if (relay_run(run_type, data_buf + run, run_len))
		return -1;
	return n;
}

static void drain(void)
{
	while (relay_once() > 0)
		;
}

/*
 * A ctl command written by this thread (the process's main thread, so
 * begin and end probes see pid() == tid(), as under SystemTap) while a
 * second thread relays the data until the write returns: "start" runs
 * the begin probes and "stop" the end probes, whose output may be more
 * than the rings hold and then waits in the module for that reader.
 * Signals are held off for the write (and the relay thread never takes
 * them): they arrive when it returns. Returns the write's result, errno
 * set.
 */
static void *relay_thread(void *arg)
{
	int stop_fd = *(int *)arg;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = data_fd, .events = POLLIN },
			{ .fd = stop_fd, .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents & POLLIN)
			break;
		if ((pfd[0].revents & POLLIN) && relay_once() < 0)
			break;
	}
	return NULL;
}

static int ctl_command_relaying(const char *cmd)
{
	sigset_t all, old;
	pthread_t tid;
	uint64_t one = 1;
	int stop_fd, rc, err;

	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (stop_fd < 0)
		return ctl_command(cmd);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&tid, NULL, relay_thread, &stop_fd)) {
		rc = ctl_command(cmd);
		err = errno;
	} else {
		rc = ctl_command(cmd);
		err = errno;
		if (write(stop_fd, &one, sizeof(one)) < 0)
			abort();
		pthread_join(tid, NULL);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(stop_fd);
	errno = err;
	return rc;
}

static void unload_module(void)
{
	int tries;

	if (ctl_fd >= 0)
		close(ctl_fd);
	if (data_fd >= 0)
		close(data_fd);
	ctl_fd = data_fd = -1;
	if (!module_loaded)
		return;
	for (tries = 0; tries < 100; tries++) {
		if (syscall(SYS_delete_module, modname, O_NONBLOCK) == 0) {
			module_loaded = false;
			vlog("removed module %s\n", modname);
			return;
		}
		if (errno != EAGAIN && errno != EBUSY && errno != EINTR)
			break;
		sleep_poll();
	}
	fprintf(stderr, "staprun: could not remove module %s: %s\n", modname,
		strerror(errno));
}

/* ---- who may load what ------------------------------------------------
 *
 * SystemTap's staprun model without module signing (HACKING.md, "Who may
 * load what"): a real root user, or a member of group stapdev, loads any
 * module; a member of stapusr or stapsys only a module in
 * /lib/modules/RELEASE/systemtap/ (a directory owned by root and not
 * world-writable, the module owned by root and not world-writable); anyone
 * else is refused. The checks are made on the file descriptor that is
 * then loaded (finit_module), opened from the module's canonical path
 * without following a last symbolic link. The kernel still decides: the
 * process needs CAP_SYS_MODULE, so a non-root user's staprun must be
 * installed setuid root; the -o file is then opened and the -c command
 * run as the real user. The messages are SystemTap 4.8's.
 */

/* The gid of group name in /etc/group, or -1 (read here: a static binary
 * has no NSS). */
static long group_gid(const char *name)
{
	FILE *f = fopen("/etc/group", "re");
	char line[4096];
	size_t n = strlen(name);
	long gid = -1;

	if (!f)
		return -1;
	while (gid < 0 && fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (strncmp(line, name, n) || line[n] != ':')
			continue;
		p = strchr(line + n + 1, ':');	/* past the password */
		if (!p)
			continue;
		gid = strtol(p + 1, &end, 10);
		if (end == p + 1 || *end != ':')
			gid = -1;
	}
	fclose(f);
	return gid;
}

/* Whether the real user is in the group (its primary or a supplementary
 * group). */
static bool in_group(const char *name)
{
	long gid = group_gid(name);
	gid_t groups[NGROUPS_MAX];
	int n;

	if (gid < 0)
		return false;
	if ((long)getgid() == gid)
		return true;
	n = getgroups(NGROUPS_MAX, groups);
	for (int i = 0; i < n; i++)
		if ((long)groups[i] == gid)
			return true;
	return false;
}

static const char blessed_msg[] =
	"ERROR: Members of the \"stapusr\" and \"stapsys\" groups can only "
	"use unsigned modules within\n  the \"%s\" directory.\n";

/* A stapusr/stapsys member's module: in /lib/modules/RELEASE/systemtap/,
 * both root's and not world-writable. 0 when it may be loaded. */
static int check_module_path(const char *path, const char *real, int fd)
{
	char dir[PATH_MAX], dir_real[PATH_MAX];
	struct utsname u;
	struct stat st;

	if (uname(&u) != 0) {
		perror("ERROR: Unable to determine kernel version, uname failed");
		return -1;
	}
	snprintf(dir, sizeof(dir), "/lib/modules/%s/systemtap", u.release);
	if (!realpath(dir, dir_real) || strlen(dir_real) + 2 > PATH_MAX) {
		int err = errno;

		fprintf(stderr, blessed_msg, dir);
		fprintf(stderr, "  Unable to canonicalize that directory: "
			"%s\n", strerror(err));
		return -1;
	}
	strcat(dir_real, "/");
	if (stat(dir_real, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != 0 || (st.st_mode & S_IWOTH)) {
		fprintf(stderr, blessed_msg, dir);
		fprintf(stderr, "  %s\n", !S_ISDIR(st.st_mode) ?
			"That path must refer to a directory." :
			st.st_uid != 0 ?
			"That directory should be owned by root." :
			"That directory should not be world writable.");
		return -1;
	}
	if (strncmp(dir_real, real, strlen(dir_real))) {
		fprintf(stderr, blessed_msg, dir);
		fprintf(stderr, "  Module \"%s\" does not exist within that "
			"directory.\n", path);
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "ERROR: Couldn't get information on the "
			"module\"%s\": %s\n", path, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0) {
		fprintf(stderr, "ERROR: The module \"%s\" must be owned by "
			"root.\n", path);
		return -1;
	}
	if (st.st_mode & S_IWOTH) {
		fprintf(stderr, "ERROR: The module \"%s\" must not be world "
			"writable.\n", path);
		return -1;
	}
	return 0;
}

/* May the real user load the module open on fd? 0 when so. */
static int check_permissions(const char *path, const char *real, int fd)
{
	if (getuid() == 0 || in_group("stapdev"))
		return 0;
	if (!in_group("stapusr") && !in_group("stapsys")) {
		fprintf(stderr, "ERROR: You are trying to run systemtap as a "
			"normal user.\nYou should either be root, or be part "
			"of group \"stapusr\" and possibly the groups "
			"\"stapsys\" or \"stapdev\".\n");
		return -1;
	}
	if (check_module_path(path, real, fd)) {
		fprintf(stderr, "ERROR: Unable to verify the signature for the "
			"module %s.\n", path);
		return -1;
	}
	return 0;
}

/* staprun installed setuid (or setgid): the real user is someone else */
static bool set_id_run(void)
{
	return getuid() != geteuid() || getgid() != getegid();
}

/* open() as the real user, for -o FILE of a setuid staprun. */
static int open_as_user(const char *path, int flags, mode_t mode)
{
	uid_t euid = geteuid();
	gid_t egid = getegid();
	int fd, err;

	if (!set_id_run())
		return open(path, flags, mode);
	if (setegid(getgid()) || seteuid(getuid()))
		return -1;
	fd = open(path, flags, mode);
	err = errno;
	if (seteuid(euid) || setegid(egid)) {
		perror("staprun: restoring the effective user");
		exit(1);
	}
	errno = err;
	return fd;
}

/* unlink() as the real user, for -S N's oldest file. */
static int unlink_as_user(const char *path)
{
	uid_t euid = geteuid();
	gid_t egid = getegid();
	int rc, err;

	if (!set_id_run())
		return unlink(path);
	if (setegid(getgid()) || seteuid(getuid()))
		return -1;
	rc = unlink(path);
	err = errno;
	if (seteuid(euid) || setegid(egid)) {
		perror("staprun: restoring the effective user");
		exit(1);
	}
	errno = err;
	return rc;
}

/* 1 if the module file ends with an appended signature (sign-file's). */
static int module_is_signed(int fd)
{
	static const char magic[] = "~Module signature appended~\n";
	char tail[sizeof(magic) - 1];
	off_t end = lseek(fd, 0, SEEK_END);

	return end > (off_t)sizeof(tail) &&
	       pread(fd, tail, sizeof(tail), end - (off_t)sizeof(tail)) ==
	       (ssize_t)sizeof(tail) && !memcmp(tail, magic, sizeof(tail));
}

/*
 * The kernel refused the module's signature: under enforcement
 * (module.sig_enforce=1, CONFIG_MODULE_SIG_FORCE, Secure Boot) an unsigned
 * module, or one signed with a key not in the kernel's keyrings, fails
 * with EKEYREJECTED; the other key errors come from a broken signature.
 */
static void explain_key_error(int fd, int err)
{
	if (err != EKEYREJECTED && err != ENOKEY && err != EBADMSG &&
	    err != ENOPKG && err != EKEYEXPIRED && err != EKEYREVOKED)
		return;
	if (fd >= 0 && module_is_signed(fd))
		fprintf(stderr, "staprun: the module is signed, but the "
			"kernel does not trust its key: enrol the certificate "
			"of stap --sign-module (KEYDIR/signing_key.x509) with "
			"mokutil --import and reboot\n");
	else
		fprintf(stderr, "staprun: this kernel loads only signed "
			"modules: build it with stap --sign-module and enrol "
			"the key (mokutil --import)\n");
}

/*
 * Load the module with its parameters: stp_verbose for -v, and the
 * script's NAME=VALUE settings (stap -G) after the module's path.
 */
static int insert_module(const char *path, char **settings, int nsettings)
{
	char real[PATH_MAX], params[4096] = "";
	struct stat st;
	size_t used = 0;
	int fd;

	/* the canonical path, opened without following a link: the checks
	 * are on the descriptor that is loaded */
	if (!realpath(path, real)) {
		fprintf(stderr, "staprun: could not insert module %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd >= 0 && check_permissions(path, real, fd)) {
		close(fd);
		return -1;
	}

	if (verbose)
		used = (size_t)snprintf(params, sizeof(params), "stp_verbose=%d",
					verbose);
	for (int i = 0; i < nsettings; i++) {
		int n = snprintf(params + used, sizeof(params) - used, "%s%s",
				 used ? " " : "", settings[i]);
		if (n < 0 || (size_t)n >= sizeof(params) - used) {
			fprintf(stderr, "staprun: module parameters longer "
				"than %zu bytes\n", sizeof(params) - 1);
			if (fd >= 0)
				close(fd);
			return -1;
		}
		used += (size_t)n;
	}
	if (fd < 0 || syscall(SYS_finit_module, fd, params, 0) != 0) {
		int err = errno;

		fprintf(stderr, "staprun: could not insert module %s: %s%s\n",
			path, strerror(err), err == ENOMEM ?
			" (the module and its buffers need more memory than is "
			"free: a smaller script, -s, or with stap's guest "
			"--vm-memory MB)" : err == EPERM ? " (loading a module "
			"needs CAP_SYS_MODULE: staprun runs as root, or is "
			"installed setuid root)" : "");
		explain_key_error(fd, err);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	module_loaded = true;
	vlog("inserted module %s\n", modname);
	return 0;
}

static int set_module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len == 0 || len >= sizeof(modname)) {
		fprintf(stderr, "staprun: bad module name '%s'\n", path);
		return -1;
	}
	memcpy(modname, base, len);
	modname[len] = '\0';
	return 0;
}

static int open_proc(void)
{
	char path[sizeof(modname) + 32];

	snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s/ctl",
		 modname);
	ctl_fd = open(path, O_RDWR | O_CLOEXEC);
	if (ctl_fd < 0) {
		fprintf(stderr, "staprun: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s/data",
		 modname);
	data_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (data_fd < 0) {
		fprintf(stderr, "staprun: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Fork the -c command. It waits for its start on a futex in memory it
 * shares with the loader: not in a read (a vfs_read in flight while the
 * probes are armed would show as a return without its entry) and not for
 * a signal (signal probes would see it). The child dies with the loader
 * (PR_SET_PDEATHSIG) and is killed if it is never started.
 */
/*
 * A command with none of the shell's special characters is run directly
 * (execvp of its words), as SystemTap's -c does: target() is then the
 * command itself, and a command that cannot start is known as such.
 * Anything else goes to /bin/sh -c.
 */
static bool needs_shell(const char *cmd)
{
	return strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}\n") != NULL;
}

/* cmd's words (split at blanks) in a NULL-terminated malloc'd array. */
static char **command_words(const char *cmd)
{
	char *copy = strdup(cmd), *save = NULL, *w;
	char **argv = calloc(strlen(cmd) / 2 + 2, sizeof(*argv));
	size_t n = 0;

	if (!copy || !argv)
		return NULL;
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	return n ? argv : NULL;
}

/* -E: the command's stdout goes to stderr (a guest's one stdout stream
 * then carries only the script's output, for stap -o or --flame). */
static bool cmd_stdout_to_stderr;

static pid_t spawn_command(const char *cmd, uint32_t **go, int *exec_err_fd)
{
	pid_t parent = getpid(), pid;
	int err_pipe[2];

	*go = mmap(NULL, sizeof(**go), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (*go == MAP_FAILED) {
		perror("staprun: mmap");
		return -1;
	}
	**go = 0;
	/* the child writes errno here if exec fails; exec closes it */
	if (pipe2(err_pipe, O_CLOEXEC)) {
		perror("staprun: pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("staprun: fork");
		close(err_pipe[0]);
		close(err_pipe[1]);
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		while (!__atomic_load_n(*go, __ATOMIC_ACQUIRE))
			syscall(SYS_futex, *go, FUTEX_WAIT, 0, NULL, NULL, 0);
		prctl(PR_SET_PDEATHSIG, 0);
		close(err_pipe[0]);
		/* a setuid staprun runs the command as the real user */
		if (set_id_run() && (setgid(getgid()) || setuid(getuid()))) {
			int err = errno;
			if (write(err_pipe[1], &err, sizeof(err)) < 0)
				_exit(127);
			_exit(127);
		}
		if (cmd_stdout_to_stderr)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		if (needs_shell(cmd)) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		} else {
			char **words = command_words(cmd);
			if (words)
				execvp(words[0], words);
			else
				errno = ENOENT;
		}
		int err = errno;
		if (write(err_pipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(err_pipe[1]);
	*exec_err_fd = err_pipe[0];
	return pid;
}

/* Let the -c command run (it waits in spawn_command). */
static void start_command(uint32_t *go)
{
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	if (syscall(SYS_futex, go, FUTEX_WAKE, 1, NULL, NULL, 0) < 0)
		perror("staprun: starting command");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: staprun [-o FILE [-S SIZE[,N]] | -m [-S SIZE]] [-c CMD [-E]] [-x PID] [-v]\n"
		"               MODULE.ko [NAME=VALUE...]\n");
}

int main(int argc, char **argv)
{
	const char *out_path = NULL, *cmd = NULL, *target = NULL;
	struct sigaction sa;
	sigset_t wait_mask, run_mask;
	struct status st;
	pid_t child = -1;
	bool child_done = false;
	bool child_waiting = false;	/* forked, not yet started */
	uint32_t *go = NULL;		/* its start flag (a futex) */
	int exec_err_fd = -1;		/* errno from a failed exec, or EOF */
	int rc = 1;
	int opt;

	while ((opt = getopt(argc, argv, "o:c:x:vES:m")) != -1) {
		switch (opt) {
		case 'S':
			if (out_files_parse_size(optarg, &files.size_max,
						 &files.keep)) {
				fprintf(stderr, "ERROR: Invalid file size "
					"option '%s'.\n", optarg);
				usage();
				return 1;
			}
			break;
		case 'm':
			framed = true;
			/* the command's output is no frame either */
			cmd_stdout_to_stderr = true;
			break;
		case 'E':
			cmd_stdout_to_stderr = true;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'c':
			cmd = optarg;
			break;
		case 'x':
			target = optarg;
			break;
		case 'v':
			verbose++;
			break;
		default:
			usage();
			return 1;
		}
	}
	if (optind >= argc) {
		usage();
		return 1;
	}
	if (files.size_max && !out_path && !framed) {
		fprintf(stderr, "ERROR: You have to specify output FILE with "
			"'-S' option.\n");
		usage();
		return 1;
	}
	if (set_module_name(argv[optind]))
		return 1;
	data_buf = malloc(DATA_BUF_SIZE);
	if (!data_buf) {
		perror("staprun: malloc");
		return 1;
	}
	if (out_path && !framed) {
		char path[PATH_MAX];

		files.name = out_path;
		files.open_fn = open_as_user;
		files.unlink_fn = unlink_as_user;
		to_files = true;
		if (out_files_open(&files, path)) {
			fprintf(stderr, "staprun: cannot open %s: %s\n",
				path, strerror(errno));
			return 1;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* a closed output is a write error (EPIPE), handled above */
	signal(SIGPIPE, SIG_IGN);

	if (insert_module(argv[optind], argv + optind + 1, argc - optind - 1))
		return 1;
	if (open_proc())
		goto out;

	if (cmd) {
		char buf[64];

		child = spawn_command(cmd, &go, &exec_err_fd);
		if (child < 0)
			goto out;
		child_waiting = true;
		snprintf(buf, sizeof(buf), "target=%d\n", (int)child);
		if (ctl_command(buf)) {
			fprintf(stderr, "staprun: setting target: %s\n",
				strerror(errno));
			goto out;
		}
	} else if (target) {
		char buf[64];

		if (kill((pid_t)atoi(target), 0) && errno == ESRCH) {
			fprintf(stderr, "staprun: -x %s: no such process\n",
				target);
			goto out;
		}
		snprintf(buf, sizeof(buf), "target=%s\n", target);
		if (ctl_command(buf)) {
			fprintf(stderr, "staprun: bad target pid '%s'\n",
				target);
			goto out;
		}
	}

	/* the signals that end the wait arrive only inside ppoll() */
	sigemptyset(&wait_mask);
	sigaddset(&wait_mask, SIGINT);
	sigaddset(&wait_mask, SIGTERM);
	sigaddset(&wait_mask, SIGHUP);
	sigaddset(&wait_mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &wait_mask, &run_mask);

	vlog("starting probes\n");
	if (ctl_command_relaying("start\n")) {
		int err = errno;

		drain();
		vlog("start failed: %s\n", strerror(err));
		goto out;
	}
	if (child_waiting) {
		start_command(go);
		child_waiting = false;
	}
	feed_stdin();

	/*
	 * The stop conditions are checked even while output keeps coming: a
	 * probe on the loader's own system calls (raw_syscalls:sys_enter)
	 * never lets the data run dry, and must not keep the session alive.
	 * Idle, the loader sleeps in ppoll(): the module wakes it for
	 * records (batched, see abi/transport.h) and for its status.
	 */
	for (unsigned int busy = 0;;) {
		struct pollfd pfd = { .fd = data_fd, .events = POLLIN | POLLPRI };
		static const struct timespec now;

		/* ppoll() delivers a signal only when it has nothing else to
		 * report: while records keep coming, take them by hand */
		if (++busy >= 64) {
			int sig = sigtimedwait(&wait_mask, NULL, &now);

			busy = 0;
			if (sig == SIGCHLD)
				got_sigchld = 1;
			else if (sig > 0)
				got_signal = sig;
		}
		if (got_signal) {
			vlog("signal %d\n", (int)got_signal);
			break;
		}
		if (child > 0 && !child_done && got_sigchld) {
			got_sigchld = 0;
			if (waitpid(child, NULL, WNOHANG) == child) {
				child_done = true;
				vlog("command exited\n");
				break;
			}
		}
		if (ppoll(&pfd, 1, NULL, &run_mask) < 0) {
			busy = 0;
			if (errno == EINTR)
				continue;
			fprintf(stderr, "staprun: poll: %s\n", strerror(errno));
			break;
		}
		if ((pfd.revents & POLLIN) && relay_once() < 0)
			break;
		if (out_gone)
			break;
		if (pfd.revents & (POLLPRI | POLLERR | POLLHUP)) {
			if (read_status(&st)) {
				fprintf(stderr, "staprun: cannot read status\n");
				break;
			}
			if (st.exit_requested || st.state == STP_STATE_DONE)
				break;
		}
	}

	vlog("stopping probes\n");
	if (ctl_command_relaying("stop\n"))
		fprintf(stderr, "staprun: stop: %s\n", strerror(errno));
	drain();
	if (read_status(&st)) {
		fprintf(stderr, "staprun: cannot read status\n");
		goto out;
	}
	if (st.lost > st.reported)
		fprintf(stderr, "WARNING: %llu output records lost\n",
			st.lost - st.reported);
	if (st.errors || st.skipped)
		fprintf(stderr,
			"WARNING: Number of errors: %u, skipped probes: %u\n",
			st.errors, st.skipped);
	rc = st.failed ? 1 : 0;
	if (exec_err_fd >= 0 && child_done) {
		int err;

		if (read(exec_err_fd, &err, sizeof(err)) == sizeof(err)) {
			fprintf(stderr, "staprun: cannot run '%s': %s\n", cmd,
				strerror(err));
			rc = 1;
		}
	}
out:
	if (exec_err_fd >= 0)
		close(exec_err_fd);
	if (child_waiting) {
		/* never started: it must not run without its probes */
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (stdin_term_set)
		tcsetattr(STDIN_FILENO, TCSANOW, &stdin_term);
	unload_module();
	if (to_files && out_files_close(&files)) {
		fprintf(stderr, "staprun: closing %s: %s\n", out_path,
			strerror(errno));
		rc = 1;
	}
	free(data_buf);
	return rc;
}
