/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every probe family's file includes: pass 2's services
 * (semantic/elaborate.h) and the string helpers. A family's struct
 * probe_family object is named in its own file and in probes/registry.c
 * only.
 */
#ifndef PROBES_PROBES_H
#define PROBES_PROBES_H

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/elaborate.h"
#include "lib/strbuf.h"

#endif /* PROBES_PROBES_H */
