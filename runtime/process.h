/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * process.* probes (process.c): the module's table of them, each an
 * event of the tasks its filter matches.
 */
#ifndef RUNTIME_PROCESS_H
#define RUNTIME_PROCESS_H

enum stp_proc_event {
	STP_PROC_BEGIN,
	STP_PROC_END,
	STP_PROC_THREAD_BEGIN,
	STP_PROC_THREAD_END,
	STP_PROC_SYSCALL,
	STP_PROC_SYSCALL_RETURN,
};

/* the event's values: $syscall, $arg1..$arg6, $return */
#define STP_PROC_NVALUES 8

struct stp_proc_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	enum stp_proc_event event;
	int pid;			/* the process ID, or 0: any */
	const char *exe;		/* the executable's path, or NULL: any */
	/* the body's context slots from the event's values, or NULL */
	void (*vals)(const int64_t *raw, int64_t *v);
};

extern const struct stp_kind_ops stp_process_kind;

#endif /* RUNTIME_PROCESS_H */
