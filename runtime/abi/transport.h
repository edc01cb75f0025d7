/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ABI between a generated module and its loader (staprun).
 *
 * Included by runtime/ (kernel) and by stap/staprun.c (user space), so it
 * holds fixed-width types and constants only, no code.
 *
 * The module exposes two files under /proc/stap_<MODULE>/:
 *
 *   ctl   write "target=<pid>\n"   set target() before start
 *         write "start\n"          run begin probes, then arm event probes;
 *                                  the write fails (errno) if arming fails,
 *                                  with the reason queued as STDERR records
 *         write "stop\n"           disarm event probes, run end probes (or
 *                                  error probes after a fatal error); returns
 *                                  when done
 *         read                     one status line, see STP_STATUS_FMT
 *   data  read                     whole records (header + payload), oldest
 *                                  first across CPUs; 0 bytes when empty
 *         poll                     POLLIN: records to take now: a ring
 *                                  past a quarter, an ERROR/WARNING or
 *                                  begin/end/error output, or any record
 *                                  once it has waited up to 10 ms (a
 *                                  sleeping reader is woken then; fewer
 *                                  records are not reported sooner, so
 *                                  the records of the reader's own
 *                                  system calls do not keep it awake);
 *                                  POLLPRI: read the status (exit
 *                                  requested, failed, done)
 *
 * The loader sleeps in poll() on data, reads many records per read(), and
 * when the status says exit_requested it writes "stop" from a second
 * thread while it goes on reading: end probes' output (and any
 * ERROR/WARNING) is never dropped for lack of room but waits for the
 * reader.  Then it drains data, reads the final status and unloads.
 */
#ifndef RUNTIME_ABI_TRANSPORT_H
#define RUNTIME_ABI_TRANSPORT_H

#include <linux/types.h>	/* __u16 .. __u64, kernel and user space */

#define STP_PROC_PREFIX "stap_"		/* /proc/stap_<MODULE>/ */

enum stp_record_type {
	STP_REC_STDOUT = 1,		/* script output (print, printf, ...) */
	STP_REC_STDERR = 2,		/* "ERROR: ...\n", "WARNING: ...\n" lines;
					 * never behind data (ring.h) */
	STP_REC_SYSTEM = 3,		/* system(CMD): the loader runs "sh -c
					 * CMD" after relaying the records
					 * before it, and waits for it before
					 * those after it */
	STP_REC_SWITCH_FILE = 4,	/* switch_file(): the -o output goes
					 * on in the next file (no payload) */
};

/* Every record in the data file starts with this header. */
struct stp_record_hdr {
	__u32 len;			/* payload bytes that follow */
	__u16 type;			/* enum stp_record_type */
	__u16 cpu;			/* CPU that wrote it */
	__u64 timestamp;		/* local_clock() ns, for merging CPUs */
};

/* Session states, as in the status line. */
enum stp_session_state {
	STP_STATE_LOADED = 0,		/* module inserted, nothing armed */
	STP_STATE_RUNNING = 1,		/* begin probes ran, events armed */
	STP_STATE_STOPPING = 2,		/* stop in progress */
	STP_STATE_DONE = 3,		/* end/error probes ran; safe to unload */
};

/*
 * The status line read from ctl, one line, space separated key=value:
 *   state=%u exit_requested=%u failed=%u errors=%u skipped=%u lost=%llu
 *   reported=%llu
 * failed is 1 when the session ended because of runtime errors (the
 * loader's exit status is then 1).  lost counts every record dropped;
 * reported those of them the module itself reported, by probe, in
 * "WARNING: N output records lost (PP at FILE:LINE:COL)" messages; the
 * loader reports the rest.
 */
#define STP_STATUS_FMT \
	"state=%u exit_requested=%u failed=%u errors=%u skipped=%u lost=%llu " \
	"reported=%llu\n"

#endif /* RUNTIME_ABI_TRANSPORT_H */
