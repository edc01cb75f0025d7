/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-CPU ring buffers of transport records (abi/transport.h), two sets:
 * the data rings (STP_BUFFER_SIZE: event probes' output) and the control
 * rings (STP_CTL_BUFFER_SIZE: ERROR/WARNING messages, and all output of
 * begin, end and error probes and of the session itself), so a flood of
 * data never crowds out a message or the end probes' output.  One
 * producer per ring (the owner of that CPU's context) and one consumer
 * (the data file's read(), serialized by a mutex); no locks between
 * them.  The reader merges all rings by timestamp.
 */
#ifndef RUNTIME_RING_H
#define RUNTIME_RING_H

struct stp_ring {
	u64 head;			/* bytes ever written; producer */
	u64 tail;			/* bytes ever consumed; consumer */
	u64 size;			/* a power of two */
	char *data;			/* size bytes */
};

void stp_ring_write(struct stp_context *c, u16 type, const char *payload,
		    size_t len);

#endif /* RUNTIME_RING_H */
