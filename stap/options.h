/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line's values (stap/options.c).
 */
#ifndef STAP_OPTIONS_H
#define STAP_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

struct session;
struct program;
struct driver;
struct module_run;

/* --help's text. */
void usage(FILE *out);
void print_version(const struct session *s);
/* -D NAME[=VALUE]: false, with SystemTap's message, if it is unsafe. */
bool add_define(struct session *s, const char *arg);
/* -G VAR=VALUE: false, with SystemTap's message, if it is unsafe. */
bool global_setting(struct session *s, const char *arg);
/* After pass 2: each -G names a scalar global of a value of its type. */
bool check_global_settings(struct session *s, struct program *prog);
/* -m NAME: a C identifier of at most 55 characters. */
bool valid_module_name(const char *name);
/* A number option from min to max; exits with a message on a bad one. */
long number_arg(const char *opt, const char *arg, long min, long max);
/* -B NAME=VALUE for kbuild's make: false (with a message) unless plain. */
bool add_make_arg(struct session *s, struct module_run *m, const char *arg);
/* --vp ABCDE: the largest digit becomes the verbosity. */
bool pass_verbosity(struct session *s, const char *arg);
/* -T SECONDS: false (SystemTap's message) unless 1 ms to 1e6 s. */
bool timeout_ms(const char *arg, long *ms);
/* --graph PATTERN: the script it runs, or NULL (with a message). */
const char *graph_script(struct session *s, const char *pattern);
/* --flame: its script when none is given (script NULL and no file), the
 * ring and action budget its end probe needs, the graph's title. */
void flame_setup(struct session *s, struct driver *d, const char **script,
		 bool no_file);

/* --flame after pass 4: where the script's folded stacks go (-o FILE, or
 * a file in the work directory, then made the output file); after pass
 * 5, rendered into d->flame_svg (0, or 1 with a message). */
const char *flame_folded_path(struct driver *d);
int flame_write(struct driver *d, const char *folded_path);

#endif /* STAP_OPTIONS_H */
