/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Limits of a generated module.  Each one can be overridden with a -D
 * compiler flag (stap -D NAME=VALUE); these are the defaults.
 */
#ifndef RUNTIME_DEFINES_H
#define RUNTIME_DEFINES_H

#ifndef MAXACTION
#define MAXACTION 1000			/* statements per probe hit */
#endif
#ifndef MAXACTION_INTERRUPTIBLE		/* begin, end and error probes: */
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10) /* no event is waiting */
#endif
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512		/* bytes in a string, NUL included */
#endif
#ifndef MAXERRORS
#define MAXERRORS 0			/* errors tolerated before failing */
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100			/* skipped hits tolerated */
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 100			/* tries to take the globals lock */
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10			/* microseconds between tries */
#endif
#ifndef STP_BUFFER_SIZE
#define STP_BUFFER_SIZE (1024 * 1024)	/* per-CPU ring, a power of two */
#endif
#ifndef STP_CTL_BUFFER_SIZE
#define STP_CTL_BUFFER_SIZE (64 * 1024)	/* per-CPU control ring (ring.h) */
#endif
#ifndef STP_PRINT_BUF_SIZE
#define STP_PRINT_BUF_SIZE 8192		/* per-CPU print buffer */
#endif

#ifndef MAXNESTING
#define MAXNESTING 10			/* the generated module sets its own */
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048		/* entries of an array without [N] */
#endif

/*
 * What differs between modules but not their runtime object: the generated
 * code defines STP_FRAME_SIZE and the rest as constants before it includes
 * runtime.h, and STP_MODULE_PROBES() (probes.h) records them in
 * stp_module, which is all the runtime object (runtime.c, compiled once
 * for every script, with STP_RUNTIME_OBJECT) sees of them.
 */
struct stp_module_desc {
	const char *name;		/* STP_MODULE_NAME */
	size_t frame_size;		/* STP_FRAME_SIZE */
	unsigned int maxnesting;	/* STP_MAXNESTING */
	unsigned int iter_slots;	/* STP_ITER_SLOTS */
	unsigned int ncounters;		/* STP_NCOUNTERS */
	int (*globals_init)(void);	/* its arrays and statistics, or NULL */
	void (*globals_free)(void);
	/* the kernel image's load (KASLR) anchor: run-time and link-time
	 * address of one exported function; 0 when the module needs none */
	unsigned long anchor, anchor_link;
	/* the module symbols module variables are read from (kfunc.h) */
	struct stp_modsym *modsyms;
	unsigned int nmodsyms;
};
extern const struct stp_module_desc stp_module;

#ifdef STP_RUNTIME_OBJECT
#define STP_FRAME_SIZE (stp_module.frame_size)
#define STP_ITER_SLOTS (stp_module.iter_slots)
#define STP_MAXNESTING (stp_module.maxnesting)
#define STP_NCOUNTERS (stp_module.ncounters)
#define STP_MODULE_NAME (stp_module.name)
#else
#ifndef STP_FRAME_SIZE
#define STP_FRAME_SIZE 0
#endif
#ifndef STP_ITER_SLOTS
#define STP_ITER_SLOTS 0
#endif
#ifndef STP_MAXNESTING
#define STP_MAXNESTING 0
#endif
#ifndef STP_MODULE_NAME
#define STP_MODULE_NAME KBUILD_MODNAME
#endif
#endif

#endif /* RUNTIME_DEFINES_H */
