// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * guard.c - the temporary directory goes with stap, however stap ends.
 *
 * A process cannot clean up after a SIGKILL, so the cleaning is done by a
 * small watchdog forked when the directory is made. It holds the read end
 * of a pipe whose only write end is stap's (close-on-exec, so kbuild, qemu
 * and staprun never inherit it); when stap ends -- return, exit, a signal,
 * SIGKILL -- the kernel closes that end, the watchdog reads end-of-file,
 * removes the directory and exits. There is no window: the pipe exists
 * before the fork, and the read cannot miss the close.
 *
 * The watchdog is in a session of its own (the terminal's ^C or hangup and
 * a kill of stap's process group do not reach it), ignores the usual
 * signals, and holds none of stap's descriptors (stdout/stderr of a
 * pipeline close when stap ends, not when the watchdog does).
 *
 * The commands stap runs in the directory (pass 4's kbuild) would go on
 * writing into it, and recreating its folders, after stap died: each runs
 * in a process group of its own, which stap names to the watchdog for as
 * long as it runs; the watchdog kills that group first and waits for it
 * to be gone. A removal that still finds the directory not empty is tried
 * again, for up to ten seconds. With -k stap tells the watchdog at once to
 * keep the directory (a SIGKILL then leaves it too, as -k asked).
 *
 * The pipe carries lines: "g PGID" (a command's group started), "e" (it
 * ended), "k" (keep the directory).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/guard.h"

static int guard_fd = -1;
static pid_t guard_pid;

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;	/* go on: whatever is left shows in the rmdir */
}

static void remove_tree(const char *dir)
{
	for (int i = 0; i < 100; i++) {
		if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) && errno == ENOENT)
			return;
		if (access(dir, F_OK) && errno == ENOENT)
			return;
		usleep(100000);
	}
}

/* SIGKILL to the group, and wait (up to 5 s) until none of it is left. */
static void kill_group(pid_t pgid)
{
	if (pgid <= 1)
		return;
	kill(-pgid, SIGKILL);
	for (int i = 0; i < 500 && kill(-pgid, 0) == 0; i++)
		usleep(10000);
}

/* The watchdog: wait for the end of the pipe, then remove dir. */
static void __attribute__((noreturn)) guard_main(const char *dir, int rfd)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
				    SIGTSTP, SIGTTIN, SIGTTOU };
	int nul = open("/dev/null", O_RDWR);
	bool keep = false;
	pid_t group = 0;
	char line[32];
	size_t len = 0;
	char c;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_IGN);
	setsid();
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
	}
	/* none of stap's other descriptors: a pipe stap writes to must
	 * close when stap ends */
	int fd = dup2(rfd, 3);
	if (fd == 3)
		close_range(4, ~0U, 0);
	for (;;) {
		ssize_t n = read(fd, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (c != '\n') {
			if (len < sizeof(line) - 1)
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		len = 0;
		if (line[0] == 'k')
			keep = true;
		else if (line[0] == 'g')
			group = (pid_t)atoi(line + 1);
		else if (line[0] == 'e')
			group = 0;
	}
	kill_group(group);
	if (!keep)
		remove_tree(dir);
	_exit(0);
}

int tmpdir_guard(const char *dir, bool keep)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		guard_main(dir, p[0]);
	}
	close(p[0]);
	guard_fd = p[1];
	guard_pid = pid;
	/* -k: kept however stap ends (a build still running is stopped) */
	if (keep && write(guard_fd, "k\n", 2) != 2)
		perror("stap: keeping the temporary directory");
	return 0;
}

void tmpdir_guard_group(pid_t pgid)
{
	char line[32];
	int n = pgid > 0 ? snprintf(line, sizeof(line), "g %d\n", (int)pgid)
			 : snprintf(line, sizeof(line), "e\n");

	if (guard_fd >= 0 && write(guard_fd, line, (size_t)n) != n)
		perror("stap: telling the watchdog");
}

void tmpdir_guard_end(void)
{
	if (guard_fd < 0)
		return;
	close(guard_fd);
	guard_fd = -1;
	/* the directory is gone (or kept) when stap returns */
	while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR)
		;
}
