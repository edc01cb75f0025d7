// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_UPROBE on the BPF backend: a place in a user binary (a
 * function's entry or return, an SDT mark) as a uprobe or uretprobe
 * program, attached by the loader to the binary's file at the place's
 * file offset (a mark's semaphore raised by the kernel through the
 * uprobe's reference counter while the probe is attached).
 *
 * Context values come from the family's recipes (semantic/attach.h): an
 * SDT operand (a register, or memory at a register plus an offset), a
 * constant, or a function's variable at its DWARF location (the location
 * program rendered as C over the user registers the program's context
 * holds, its memory reads bpf_probe_read_user). A .return probe reads its
 * parameters at the function's entry, as SystemTap does: a second program
 * at the entry keeps them in a hash map by thread until the return.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "elf/arch.h"
#include "lib/arena.h"
#include "semantic/semantic.h"
#include "target/dwloc.h"

/* ---- a DWARF location as C over the user registers --------------------- */

struct urender {
	struct arena *a;
	FILE *code;		/* the reads from memory, in order (or NULL:
				 * pass 2's check) */
	int ntemps;
	const char *why;	/* a form this backend does not render */
};

static const char *u_reg(void *ctx, unsigned reg)
{
	struct urender *r = ctx;
	const char *name = arch_reg_pt_regs(reg);

	if (!name) {
		r->why = "a value in a register other than the general purpose "
			 "ones";
		return "0";
	}
	return arena_printf(r->a, "((__u64)ctx->%s)", name);
}

static const char *u_offset(void *ctx, const char *base, int64_t offset)
{
	struct urender *r = ctx;

	return arena_printf(r->a, "(%s + (__u64)%" PRId64 "LL)", base, offset);
}

static const char *u_plus(void *ctx, const char *a, uint64_t value)
{
	struct urender *r = ctx;

	return arena_printf(r->a, "(%s + %" PRIu64 "ULL)", a, value);
}

static const char *u_constant(void *ctx, uint64_t value, bool is_signed)
{
	struct urender *r = ctx;

	if (is_signed)
		return arena_printf(r->a, "((__u64)%" PRId64 "LL)",
				    (int64_t)value);
	return arena_printf(r->a, "%" PRIu64 "ULL", value);
}

static const char *u_binary(void *ctx, const char *op, const char *a,
			    const char *b, bool is_signed)
{
	struct urender *r = ctx;

	if (is_signed)
		return arena_printf(r->a, "((__u64)((__s64)%s %s (__s64)%s))",
				    a, op, b);
	return arena_printf(r->a, "(%s %s %s)", a, op, b);
}

static const char *u_unary(void *ctx, char op, const char *a)
{
	struct urender *r = ctx;

	return arena_printf(r->a, "(%c%s)", op, a);
}

/* A fault-safe read of the process's memory into a temporary: a fault
 * keeps the address (the module's error names it). */
static const char *u_deref(void *ctx, const char *addr, unsigned size)
{
	struct urender *r = ctx;
	int t = r->ntemps++;

	if (r->code)
		fprintf(r->code, "\t__u64 dw%d = 0; if (!f && "
			"bpf_probe_read_user(&dw%d, %u, (void *)(%s))) { f = 1; "
			"v = %s; }\n", t, t, size > 8 ? 8 : size, addr, addr);
	return arena_printf(r->a, "dw%d", t);
}

/* at a function's entry only the return address was pushed */
static const char *u_cfa(void *ctx)
{
	struct urender *r = ctx;

	return arena_printf(r->a, "((__u64)ctx->sp + 8ULL)");
}

static const char *u_link_addr(void *ctx, uint64_t addr)
{
	struct urender *r = ctx;

	(void)addr;
	r->why = "a static variable (its address depends on where the "
		 "binary is loaded)";
	return "0";
}

static const struct dwloc_render u_render = {
	.reg = u_reg, .offset = u_offset, .plus = u_plus,
	.constant = u_constant, .binary = u_binary, .unary = u_unary,
	.deref = u_deref, .cfa = u_cfa, .link_addr = u_link_addr,
};

/*
 * A chain's steps ($p->x, $a[2]) from the value v: offsets added, then
 * what each step reads from the process (a fault: v the address).
 */
static void steps_c(const struct member_path *path, FILE *out)
{
	for (int i = 0; i < path->nsteps; i++) {
		const struct member_step *st = &path->steps[i];
		unsigned byte = st->bit_offset / 8;

		if (st->kind == STEP_MEMBER && st->result != STEP_BITS && byte)
			fprintf(out, "\tv += %u;\t/* ->%s */\n", byte,
				st->member);
		if (st->kind == STEP_INDEX && st->index)
			fprintf(out, "\tv += %" PRId64 "LL * %u;\n", st->index,
				st->stride);
		if (st->result == STEP_READ) {
			unsigned n = st->size && st->size < 8 ? st->size : 8;
			const char *sz = st->is_signed ? "__s" : "__u";
			fprintf(out, "\tif (!f) { __u64 x = 0; if "
				"(bpf_probe_read_user(&x, %u, (void *)v)) f = 1; "
				"else v = ", n);
			if (n < 8)
				fprintf(out, "(__u64)(%s64)(%s%u)x; }\n", sz, sz,
					n * 8);
			else
				fputs("x; }\n", out);
		} else if (st->result == STEP_BITS) {
			unsigned shift = st->bit_offset % 8;
			unsigned n = (shift + st->bit_size + 7) / 8;
			unsigned bits = st->bit_size;
			fprintf(out, "\tif (!f) { __u64 x = 0, a = v + %u; if "
				"(bpf_probe_read_user(&x, %u, (void *)a)) { f = 1; "
				"v = a; } else { x >>= %u; ", byte, n > 8 ? 8 : n,
				shift);
			if (bits < 64 && st->is_signed)
				fprintf(out, "v = (__u64)(((__s64)(x << %u)) >> "
					"%u); } }\n", 64 - bits, 64 - bits);
			else if (bits < 64)
				fprintf(out, "v = x & ((1ULL << %u) - 1); } }\n",
					bits);
			else
				fputs("v = x; } }\n", out);
		}
	}
}

void bpf_user_steps_c(const struct member_path *path, FILE *out)
{
	steps_c(path, out);
}

bool bpf_user_typed(const struct derived_probe *dp, const struct symbol *sym)
{
	const struct member_path *path = sym ? sym->member_path : NULL;

	if (!sym || sym->kind != SYM_TYPED || sym->pretty || !path ||
	    !path->user)
		return false;
	if (dp->attach.kind != ATTACH_UPROBE &&
	    bpf_place_of(dp, NULL, NULL) != BPF_PLACE_PROCESS)
		return false;
	for (int i = 0; i < path->nsteps; i++)
		if (path->steps[i].index_expr)
			return false;
	return true;
}

/* The C that sets v (f: a fault) from recipe r, into out (NULL: only
 * the checks); NULL, or why this backend cannot read it. */
static const char *value_c(struct arena *a, const struct value_recipe *r,
			   FILE *out)
{
	const char *sz = r->is_signed ? "__s" : "__u";
	unsigned size = r->size && r->size < 8 ? r->size : 8;

	if (r->spill)
		return "a member of a struct passed in a register is not on "
		       "this backend yet";
	for (int i = 0; r->steps && i < r->steps->nsteps; i++)
		if (r->steps->steps[i].index_expr)
			return "a computed index of a user-space value is not "
			       "on this backend yet";
	if (r->reg_address || r->write_target)	/* -g: $x = v, $p->f = v */
		return "a write to a user-space variable is not on this "
		       "backend yet";
	switch (r->root) {
	case ROOT_CONST:
		if (out)
			fprintf(out, "\tv = (__u64)%" PRId64 "LL;\n", r->constant);
		return NULL;
	case ROOT_OPERAND: {
		const struct value_operand *o = &r->operand;
		if (!out)
			return NULL;
		fprintf(out, "\tv = (__u64)%" PRId64 "LL", o->offset);
		if (o->reg)
			fprintf(out, " + (__u64)ctx->%s", o->reg);
		if (o->index)
			fprintf(out, " + (__u64)ctx->%s * %d", o->index,
				o->scale ? o->scale : 1);
		fputs(";\n", out);
		if (o->memory)
			fprintf(out, "\t{ __u64 a = v, x = 0; if "
				"(bpf_probe_read_user(&x, %u, (void *)a)) f = 1; "
				"else v = x; }\n", size);
		break;
	}
	case ROOT_DWARF: {
		struct urender ur = { .a = a, .code = out };
		struct dwloc_value dv;
		const char *err = dwloc_eval(a, r->dwarf, r->dwarf_size,
					     &u_render, &ur, &dv);
		if (err)
			return err;
		if (ur.why)
			return ur.why;
		if (r->address && dv.kind != DWL_MEMORY)
			return "the address of a user-space variable not in "
			       "memory";
		if (!out)
			return NULL;
		if (r->address) {
			/* &$var, or an aggregate read member by member: the
			 * variable's address, as the module's stp_addr */
			fprintf(out, "\tif (!f) v = %s;\n", dv.expr);
			if (r->steps)
				steps_c(r->steps, out);
			return NULL;
		}
		if (dv.kind == DWL_MEMORY)
			fprintf(out, "\tif (!f) { __u64 a = %s, x = 0; if "
				"(bpf_probe_read_user(&x, %u, (void *)a)) { f = 1; "
				"v = a; } else v = x; }\n", dv.expr, size);
		else
			fprintf(out, "\tif (!f) v = %s;\n", dv.expr);
		break;
	}
	default:
		return "this kind of user-space value is not on this backend "
		       "yet";
	}
	if (size < 8)
		fprintf(out, "\tif (!f) v = (__u64)(%s64)(%s%u)v;\n", sz, sz,
			size * 8);
	if (r->steps)
		steps_c(r->steps, out);
	return NULL;
}

/* ---- pass 2 ------------------------------------------------------------- */

const char *bpf_uprobe_refuses(const struct derived_probe *dp)
{
	const struct probe_body *b = dp->body;
	struct arena a = { 0 };
	const char *why = NULL;

	for (int k = 0; b && k < b->nctxvars && !why; k++) {
		const struct value_recipe *r = k < dp->attach.nvalues ?
					       dp->attach.values[k] : NULL;
		if (!r) {
			why = "a context value this probe has no recipe for "
			      "(only $params of the DWARF and a mark's "
			      "$argN are on this backend)";
			break;
		}
		why = value_c(&a, r, NULL);
	}
	/* the message outlives the arena: the reasons are static texts,
	 * dwloc_eval's are copied */
	static char msg[256];
	if (why) {
		snprintf(msg, sizeof(msg), "%s", why);
		why = msg;
	}
	arena_free(&a);
	return why;
}

int bpf_uprobe_name(const struct derived_probe *dp, const struct node *n)
{
	if (dp->attach.kind != ATTACH_UPROBE || n->kind != N_TARGET)
		return -1;
	if (!strcmp(n->target.name, "$$name"))
		return 0;
	if (!strcmp(n->target.name, "$$provider"))
		return 1;
	return -1;
}

/* ---- pass 3 ------------------------------------------------------------- */

struct name_use {
	bool found;
};

static void find_names(struct node *n, void *arg)
{
	if (n->kind == N_TARGET && (!strcmp(n->target.name, "$$name") ||
				    !strcmp(n->target.name, "$$provider")))
		((struct name_use *)arg)->found = true;
}

/* Whether dp's body reads $$name or $$provider. */
static bool reads_names(const struct derived_probe *dp)
{
	struct name_use u = { false };

	if (dp->body)
		ast_visit(dp->body->probe->probe.body, find_names, &u);
	return u.found;
}

static void find_probe_name_calls(struct node *n, void *arg)
{
	if (n->kind == N_CALL && (!strcmp(n->call.name, "pp") ||
				  !strcmp(n->call.name, "pn")))
		((struct name_use *)arg)->found = true;
}

/* Whether dp is a user-space probe of the kernel half (a uprobe or a
 * process probe: each sets S->probe before its body) whose body calls
 * pp() or pn(). */
static bool user_probe_names(const struct derived_probe *dp)
{
	struct name_use u = { false };
	enum bpf_place p = bpf_place_of(dp, NULL, NULL);

	if (!bpf_place_in_kernel(p) || (dp->attach.kind != ATTACH_UPROBE &&
					p != BPF_PLACE_PROCESS))
		return false;
	if (dp->body)
		ast_visit(dp->body->probe->probe.body, find_probe_name_calls,
			  &u);
	return u.found;
}

bool bpf_user_probe_names(const struct derived_probe *const *dps, int n)
{
	for (int i = 0; i < n; i++)
		if (!user_probe_names(dps[i]))
			return false;
	return n > 0;
}

/*
 * pp() and pn() of a body several user-space probes share (the module's
 * probe table strings, chosen by S->probe): stp_ppn[np] the offsets of
 * pp's and pn's in stp_ppns.
 */
static void emit_probe_names(struct program *prog, FILE *out)
{
	char *buf = NULL, *offs = NULL;
	size_t len = 0, olen = 0;
	int np = 0;
	bool any = false;

	for (int j = 0; j < prog->nprobes; j++)
		any |= user_probe_names(prog->probes[j]);
	if (!any)
		return;
	FILE *f = open_memstream(&buf, &len);
	FILE *o = open_memstream(&offs, &olen);

	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];

		if (!bpf_place_in_kernel(bpf_place_of(dp, NULL, NULL)))
			continue;
		const char *pn = dp->body && dp->body->pn ? dp->body->pn :
				 dp->pp;
		fflush(f);
		fprintf(o, "%s{ %zu, ", np ? ", " : "", len / 4);
		for (const char *c = dp->pp; *c; c++)
			fprintf(f, "\\%03o", (unsigned char)*c);
		fputs("\\000", f);
		fflush(f);
		fprintf(o, "%zu }", len / 4);
		for (const char *c = pn; *c; c++)
			fprintf(f, "\\%03o", (unsigned char)*c);
		fputs("\\000", f);
		np++;
	}
	fclose(f);
	fclose(o);
	fprintf(out, "const char stp_ppns[] = \"%s\";\n"
		"const unsigned stp_ppn[%d][2] = { %s };\n"
		"#define STP_PPNAME(d, w) ({ unsigned i_ = S->probe; if (i_ < %d) "
		"bpf_probe_read_kernel_str(d, STP_STR, stp_ppns + "
		"stp_ppn[i_][w]); else (d)[0] = 0; (d); })\n", buf,
		np ? np : 1, np ? offs : "{ 0, 0 }", np);
	free(buf);
	free(offs);
}

/* The kernel programs' numbers (np) as bpf_emit_programs counts them. */
void bpf_emit_uprobe_names(struct program *prog, FILE *out)
{
	int np = 0, n = 0;
	char *buf = NULL;
	size_t len = 0;
	bool any = false;

	emit_probe_names(prog, out);
	for (int j = 0; j < prog->nprobes; j++)
		any |= prog->probes[j]->attach.kind == ATTACH_UPROBE &&
		       reads_names(prog->probes[j]);
	if (!any)
		return;		/* no table: no .rodata map to load */
	FILE *f = open_memstream(&buf, &len);

	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		const struct attach_uprobe *u = &dp->attach.uprobe;

		if (!bpf_place_in_kernel(bpf_place_of(dp, NULL, NULL)))
			continue;
		fputs(n++ ? ", " : "", f);
		if (dp->attach.kind == ATTACH_UPROBE)
			fprintf(f, "{ \"%s\", \"%s\" }", u->name ? u->name : "",
				u->provider ? u->provider : "");
		else
			fputs("{ \"\", \"\" }", f);
		np++;
	}
	fclose(f);
	/* names as sys/sdt.h allows them (C identifiers) or a PLT's symbol:
	 * no quotes to escape */
	fprintf(out, "const char stp_upnames[%d][2][64] = { %s };\n"
		"#define STP_UPNAME(d, w) ({ unsigned i_ = S->probe; if (i_ < %d) "
		"bpf_probe_read_kernel_str(d, 64, stp_upnames[i_][w]); else "
		"(d)[0] = 0; (d); })\n", np ? np : 1, np ? buf : "{ \"\", \"\" }",
		np);
	free(buf);
}

/* x86-64's struct pt_regs: the user registers a uprobe program gets. */
static const char uregs_decl[] =
	"struct stp_uregs { unsigned long r15, r14, r13, r12, bp, bx, r11, "
	"r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss; };\n"
	"struct stp_uentry { long long c[STP_NCTX]; unsigned long long fm; };\n";

/* The reads of dp's context values into S->c[] and S->fm. */
static int emit_values(struct session *s, const struct derived_probe *dp,
		       FILE *out)
{
	const struct probe_body *b = dp->body;

	for (int k = 0; k < b->nctxvars; k++) {
		const struct value_recipe *r = dp->attach.values[k];
		fprintf(out, "\t{ __u64 v = 0; int f = 0; (void)v;\n");
		const char *why = value_c(&s->arena, r, out);
		if (why) {
			fprintf(stderr, "stap: error: %s: %s\n", dp->pp, why);
			return 1;
		}
		fprintf(out, "\tS->c[%d] = (long long)v; if (f) S->fm |= 1ULL << "
			"%d; }\n", k, k);
	}
	return 0;
}

static const char *ret_cast(const struct attach_uprobe *u)
{
	switch (u->ret_size) {
	case 1: return u->ret_signed ? "(long long)(__s8)" : "(long long)(__u8)";
	case 2: return u->ret_signed ? "(long long)(__s16)" :
		       "(long long)(__u16)";
	case 4: return u->ret_signed ? "(long long)(__s32)" :
		       "(long long)(__u32)";
	default: return "(long long)";
	}
}

int bpf_uprobe_program(struct session *s, const struct derived_probe *dp,
		       int np, bool *declared, FILE *out, bool set_ip)
{
	const struct attach_uprobe *u = &dp->attach.uprobe;
	const struct probe_body *b = dp->body;
	int rc = 0;

	if (!*declared) {
		fputs(uregs_decl, out);
		*declared = true;
	}
	/* dropped while another of our programs runs on this CPU
	 * (attach.c's scratch_decl) */
	const char *scratch = "\tstruct stp_scratch *S; { S = STP_SCRATCH(); "
			      "if (!S || S->busy) "
			      "return 0; }\n\tS->busy = 1;\n\tS->fm = 0;\n";
	if (u->ret && b->nctxvars) {
		/* the parameters at the entry, kept by thread (LRU: a call
		 * that never returns, longjmp'ed over, is forgotten) */
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_LRU_HASH); "
			"__uint(max_entries, 10240); __type(key, __u64); "
			"__type(value, struct stp_uentry); } stp_ue%d "
			"SEC(\".maps\");\n", np);
		fprintf(out, "SEC(\"uprobe\") int stp_e%d(struct stp_uregs *ctx)"
			"\n{\n\tif (G.stp_exit)\n\t\treturn 0;\n%s", np, scratch);
		rc |= emit_values(s, dp, out);
		/* the scratch's ret slot follows c[]: the faults there */
		fprintf(out, "\t{ __u64 t = bpf_get_current_pid_tgid(); S->ret "
			"= (long long)S->fm; bpf_map_update_elem(&stp_ue%d, &t, "
			"(void *)S->c, BPF_ANY); }\n\tS->busy = 0;\n"
			"\treturn 0;\n}\n", np);
	}
	fprintf(out, "SEC(\"%s\") int stp_p%d(struct stp_uregs *ctx)\n{\n"
		"\tif (G.stp_exit)\n\t\treturn 0;\n", u->ret ? "uretprobe" :
		"uprobe", np);
	fputs(scratch, out);
	if (b->nctxvars || u->ret || reads_names(dp) || user_probe_names(dp))
		fprintf(out, "\tS->probe = %d;\n", np);
	if (u->ret && b->nctxvars)
		fprintf(out, "\t{ __u64 t = bpf_get_current_pid_tgid(); struct "
			"stp_uentry *e = bpf_map_lookup_elem(&stp_ue%d, &t); "
			"if (!e) { S->busy = 0; return 0; } "
			"for (int i = 0; i < STP_NCTX; i++) "
			"S->c[i] = e->c[i]; S->fm = e->fm; "
			"bpf_map_delete_elem(&stp_ue%d, &t); }\n", np, np);
	else
		rc |= emit_values(s, dp, out);
	if (u->ret)
		fprintf(out, "\tS->ret = %sctx->ax;\n", ret_cast(u));
	/* addr(): the user registers' ip, as the module's (the probed
	 * instruction, in a uretprobe the address returned to) */
	if (set_ip)
		fputs("\tSTP_KSETIP(ctx->ip, 0);\n", out);
	fprintf(out, "\tstp_b%d();\n", b->index);
	if (set_ip)
		fputs("\tSTP_KOUT();\n", out);
	fputs("\tS->busy = 0;\n\treturn 0;\n}\n", out);
	return rc;
}

/* The loader's table: each uprobe program's binary, offset, semaphore. */
void bpf_emit_uprobe_table(struct program *prog, FILE *out)
{
	int np = 0;

	fputs("const struct { const char *prog, *path; unsigned long long "
	      "offset, ref_ctr; int ret; long long pid; } stp_uprobes[] = { ",
	      out);
	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		enum bpf_place p = bpf_place_of(dp, NULL, NULL);

		if (!bpf_place_in_kernel(p))
			continue;
		if (p == BPF_PLACE_UPROBE) {
			const struct attach_uprobe *u = &dp->attach.uprobe;
			for (int e = 0; e < 2; e++) {
				if (e && !(u->ret && dp->body->nctxvars))
					break;
				fprintf(out, "{ \"stp_%c%d\", \"", e ? 'e' : 'p',
					np);
				for (const char *c = u->path; *c; c++)
					fprintf(out, *c == '"' || *c == '\\' ?
						"\\%c" : "%c", *c);
				fprintf(out, "\", 0x%" PRIx64 "ULL, 0x%" PRIx64
					"ULL, %d, %lld }, ", u->offset,
					u->semaphore_offset, e ? 0 : u->ret,
					(long long)dp->attach.filter.pid);
			}
		}
		np++;
	}
	fputs("{ NULL, NULL, 0, 0, 0, 0 } };\n", out);
}
