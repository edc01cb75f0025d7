/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-CPU ring buffers of transport records (abi/transport.h).  One
 * producer per ring (the owner of that CPU's context) and one consumer
 * (the data file's read(), serialized by a mutex); no locks between them.
 */
#ifndef RUNTIME_RING_H
#define RUNTIME_RING_H

struct stp_ring {
	u64 head;			/* bytes ever written; producer */
	u64 tail;			/* bytes ever consumed; consumer */
	char *data;			/* STP_BUFFER_SIZE bytes */
};

int stp_rings_alloc(void);
void stp_rings_free(void);
void stp_ring_write(unsigned int cpu, u16 type, const char *payload,
		    size_t len);
ssize_t stp_rings_read(char __user *ubuf, size_t count);

#endif /* RUNTIME_RING_H */
