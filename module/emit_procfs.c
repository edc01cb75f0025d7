// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_PROCFS in the kernel module: a file under
 * /proc/systemtap/MODULE/ (runtime/procfs.c) whose reads and writes run
 * the probe; its one context value, $value, is the file's buffer.
 */
#include "module/emit.h"

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct attach_procfs *p = &cg->prog->probes[i]->attach.procfs;

	fprintf(out, ",\n\t  .path = %s, .write = %s, "
		".bufsize = %" PRId64 ", .umask = 0%" PRIo64,
		c_string(cg, p->path, strlen(p->path)),
		p->write ? "true" : "false", p->maxsize, (uint64_t)p->umask);
}

/* a write probe's $value: the bytes written */
static const char *value_read(struct cg *cg, struct node *n)
{
	const char *t = tmp_string(cg);

	(void)n;	/* pass 2 allows $value alone */
	emit(cg, "strscpy(%s, stp_procfs_data(c)->buf, MAXSTRINGLEN);", t);
	return t;
}

/* a read probe's $value = s / .= s: the file's content */
static const char *value_assign(struct cg *cg, struct node *n)
{
	const char *v;

	if (n->binary.lhs->kind != N_TARGET)
		return NULL;
	v = gen_expr(cg, n->binary.rhs);
	emit(cg, "stp_procfs_set(c, %s, %s);", v,
	     n->binary.op == OP_CONCAT ? "true" : "false");
	return v;
}

const struct kind_emit emit_procfs = {
	.probe_type = probe_type,
	.event = true,
	.table_type = "struct stp_procfs_probe",
	.table_name = "stp_procfs_probes",
	.table_ops = "stp_procfs_kind",
	.fields = fields,
	.context = value_read,
	.assign = value_assign,
};
