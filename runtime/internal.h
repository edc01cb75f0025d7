/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Declarations shared by the runtime's own files only (runtime.c is
 * their one translation unit); generated code never sees them.
 */
#ifndef RUNTIME_INTERNAL_H
#define RUNTIME_INTERNAL_H

/* ring.c: the rings, the reader's wake-ups, the lost-record counts */
static int stp_rings_alloc(const struct stp_probe *probes, size_t n);
static void stp_rings_free(void);
static ssize_t stp_rings_read(char __user *ubuf, size_t count);
static bool stp_rings_poll(struct file *file, poll_table *wait);
static void stp_reader_kick(bool now);
static u64 stp_lost_of(size_t i);
/* transport.c: the control and data files under /proc/systemtap */
static int stp_transport_init(void);
static void stp_transport_exit(void);
/* probes.c: the session, as the control file drives it */
static int stp_session_start(void);
static int stp_session_stop(void);
static void stp_session_set_target(int64_t pid);
static int stp_status_line(char *buf, size_t size);
static bool stp_session_news(void);

#endif /* RUNTIME_INTERNAL_H */
