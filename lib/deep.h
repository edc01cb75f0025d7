/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Deep recursion: the compiler's walks over the syntax tree recurse once
 * per level of nesting (a + b + c is as deep as it has terms). The parser
 * refuses a tree deeper than AST_MAX_DEPTH (parser/ast.h), and each pass
 * runs its walks through deep_call(), on a stack sized for that depth
 * (about 200 bytes a level at -O2; DEEP_STACK_BYTES leaves room for
 * builds without optimisation), whatever `ulimit -s` says.
 */
#ifndef LIB_DEEP_H
#define LIB_DEEP_H

#define DEEP_STACK_BYTES ((size_t)512 << 20)	/* reserved, touched as used */

/*
 * fn(arg) on a thread with a DEEP_STACK_BYTES stack, waited for; called
 * directly when already on one (passes nest: pass 2 parses files), or
 * when no such thread can be made (the walks then have the caller's
 * stack, as before).
 */
void deep_call(void (*fn)(void *arg), void *arg);

#endif /* LIB_DEEP_H */
