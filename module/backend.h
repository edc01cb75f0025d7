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

#endif /* MODULE_BACKEND_H */
