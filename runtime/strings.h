/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Script strings (fixed MAXSTRINGLEN buffers, silently truncated) and the
 * small context builtins: execname(), pid(), tid(), cpu(), target(), and
 * the loader's process ID (stp_pid() in the tapsets).
 */
#ifndef RUNTIME_STRINGS_H
#define RUNTIME_STRINGS_H

extern int64_t stp_target_pid;		/* set by "target=" on ctl */
extern int64_t stp_loader_tgid;		/* the process that wrote "start" */
extern int64_t stp_loader_uid;		/* its real user ID: who ran stap */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
/*
 * strlcpy() left the kernel in 6.8, but embedded C follows SystemTap's
 * conventions (STAP_RETURN, tapsets), which use it for strings.
 */
static inline size_t stp_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = min(len, size - 1);

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy stp_strlcpy
#endif

/* dst = src, truncated; dst and src may overlap. */
static inline void stp_strcpy(char *dst, const char *src)
{
	size_t n = strnlen(src, MAXSTRINGLEN - 1);

	memmove(dst, src, n);
	dst[n] = '\0';
}

/* dst .= src, truncated; src may point into dst. */
static inline void stp_strcat(char *dst, const char *src)
{
	size_t len = strnlen(dst, MAXSTRINGLEN - 1);
	size_t n = strnlen(src, MAXSTRINGLEN - 1 - len);

	memmove(dst + len, src, n);
	dst[len + n] = '\0';
}

static inline void stp_execname(char *dst)
{
	size_t n = strnlen(current->comm, min_t(size_t, TASK_COMM_LEN,
						MAXSTRINGLEN - 1));

	memcpy(dst, current->comm, n);
	dst[n] = '\0';
}

static inline int64_t stp_pid(void)
{
	return current->tgid;
}

static inline int64_t stp_tid(void)
{
	return current->pid;
}

static inline int64_t stp_cpu(void)
{
	return smp_processor_id();
}

static inline int64_t stp_target(void)
{
	return READ_ONCE(stp_target_pid);
}

/* The loader (staprun) that started the session, as SystemTap's _stp_pid. */
static inline int64_t stp_loader_pid(void)
{
	return READ_ONCE(stp_loader_tgid);
}

/* is_myproc(): current runs as (effective user ID) the user who ran
 * the loader, SystemTap's STP_CURRENT_EUID == _stp_uid. */
static inline bool stp_is_myproc(void)
{
	return from_kuid_munged(&init_user_ns, current_euid()) ==
	       READ_ONCE(stp_loader_uid);
}

#endif /* RUNTIME_STRINGS_H */
