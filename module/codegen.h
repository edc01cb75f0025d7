/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3: translate the elaborated program into the C source of one kernel
 * module that includes runtime/runtime.h (see runtime/README.md).
 */
#ifndef CODEGEN_CODEGEN_H
#define CODEGEN_CODEGEN_H

#include <stdio.h>

#include "semantic/semantic.h"

/*
 * Write the module's C source to out. module_name must be a valid C
 * identifier (it is also the kernel module name). Returns the number of
 * errors (constructs the code generator cannot translate yet).
 */
int codegen_module(struct session *s, const struct program *prog,
		   const char *module_name, FILE *out);

#endif /* CODEGEN_CODEGEN_H */
