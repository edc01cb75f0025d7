/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel-module backend as a struct backend (semantic/backend.h):
 * pass 3 writes a module's C, pass 4 builds it with the target's kbuild,
 * pass 5 loads it with staprun, here or in a qemu guest.
 */
#ifndef MODULE_BACKEND_H
#define MODULE_BACKEND_H

#include "semantic/backend.h"

extern const struct backend module_backend;

/*
 * The module backend's own part of a run (struct driver's own): the
 * options only it uses, which the driver parses with SystemTap's
 * spellings (-B, -R, --sign-module, --poison-cache, --vm...), and what
 * its steps find and make.
 */
struct module_run {
	const char *runtime_opt;	/* -R DIR */
	const char *staprun;		/* the loader binary */
	bool poison_cache;		/* --poison-cache: rebuild */
	char **make_args;		/* -B NAME=VALUE, for kbuild's make */
	int nmake_args;
	bool sign_module;		/* --sign-module[=KEYDIR] */
	const char *sign_keydir;	/* KEYDIR, NULL: under the cache */
	const char *sign_key;		/* KEYDIR/signing_key.pem */
	const char *sign_cert;		/* KEYDIR/signing_key.x509 (DER) */
	char *sign_cert_data;		/* its bytes, for the cache key */
	size_t sign_cert_len;
	/* pass 5 in a qemu guest of the target kernel: the driver decides
	 * (it knows the target and the host) */
	bool use_vm;
	bool reads_stdin;		/* the script reads stap's standard
					 * input (input.char, input.line):
					 * a guest gets it */
	bool force_vm;			/* --vm */
	const char *host_refusal;	/* why the host cannot load modules
					 * (NULL: it can) */
	int vm_memory_mb;		/* --vm-memory, 0: the default */
	int vm_cpus;			/* --vm-cpus, 0: the default */
	bool vm_keep;			/* --vm-keep[=SECONDS]: a warm guest */
	int vm_keep_s;			/* its idle seconds */
	/* passes 3 and 4 */
	const char *module_name;
	int nunits;			/* translation units: MODULE_src.c,
					 * then MODULE_src1.c ... (with
					 * stp_units.h, what they share) */
	size_t c_bytes;			/* the C's size, all units */
};

static inline struct module_run *module_run(struct driver *d)
{
	return d->own;
}

#endif /* MODULE_BACKEND_H */
