/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The target kernel's BTF (BPF Type Format) type information, for typing
 * `$arg->member` accesses in pass 2.
 *
 * Where the BTF comes from, tried in order by btf_load():
 *   1. CACHE_DIR/btf-RELEASE: a raw BTF blob behind a small header that
 *      records the file it was extracted from, with that file's size and
 *      mtime; valid while they still match;
 *   2. /sys/kernel/btf/vmlinux, when RELEASE is the running kernel;
 *   3. the .BTF section of /usr/lib/debug/boot/vmlinux-RELEASE (the -dbg
 *      package's vmlinux), else of /lib/modules/RELEASE/build/vmlinux (a
 *      kernel built here) (the paths are struct target's);
 *   4. /boot/vmlinuz-RELEASE: the compressed vmlinux inside the bzImage
 *      (gzip, xz, lz4 or zstd) is decompressed by the external tool
 *      (gzip -dc, ...) and .BTF is read from the ELF image.
 * Sources 3 and 4 refresh the cache. Only vmlinux's own types are there;
 * btf_add_module() adds a module's (btrfs, sunrpc, watchdog, ...): its
 * .BTF section is split BTF on top of vmlinux's, whose types it uses by
 * id and does not repeat.
 *
 * Scopes: every module added is a scope of its own (1, 2, ...), vmlinux
 * is scope 0. A name is looked up in one scope: a module's own type of
 * that name, else vmlinux's; scope 0 sees vmlinux's types only, whatever
 * modules were added. A module's types keep their ids once added.
 *
 * Type ids are BTF's own (0 is void). btf_find_type() may add types BTF
 * does not have ("struct foo const*" when no code in the kernel uses that
 * pointer type): their ids follow BTF's and are valid for the same
 * struct btf only. Every other function leaves the struct btf unchanged.
 * Invalid ids are never a crash: they resolve to BTF_CLASS_OTHER.
 *
 * Memory: a struct btf owns all its memory (the BTF blob, the type index,
 * the name hash table, added types) and btf_free() releases it. Strings
 * returned by btf_type_name() and error messages are malloc'ed and belong
 * to the caller.
 */
#ifndef TARGET_BTF_H
#define TARGET_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/*
 * Load the BTF of kernel RELEASE ("6.1.0-56-cloud-amd64") from the sources
 * above; cache_dir NULL disables the cache (a cache that cannot be written
 * is silently skipped). Returns 0 with *out set, or -1 with a malloc'ed
 * message in *err saying what was tried (and, when a decompressor is
 * missing, which Debian package provides it).
 */
int btf_load(const char *release, const char *cache_dir, struct btf **out,
	     char **err);

/*
 * Load BTF from one file, whatever it is: raw BTF (/sys/kernel/btf/vmlinux,
 * a cache file), an ELF vmlinux with a .BTF section, or a bzImage. No
 * cache. Same result convention as btf_load().
 */
int btf_load_file(const char *path, struct btf **out, char **err);

/* The same for a target (its paths and cache directory): target_btf()
 * is the remembering front end. */
struct target;
int btf_load_target(const struct target *t, struct btf **out, char **err);

void btf_free(struct btf *b);

/* Where the types came from: "/boot/vmlinuz-6.1.0-56-cloud-amd64",
 * "cache /home/u/.cache/stap/btf-6.1.0-56-cloud-amd64 (from ...)". */
const char *btf_source(const struct btf *b);

/*
 * A C type as the tracepoint catalog spells it (SystemTap's spelling) or
 * as C spells it: "struct task_struct*", "char const*", "const char *",
 * "long unsigned int", "unsigned long", "pid_t", "bool", "u64", "void*",
 * "char[16]", "char[]", "int (*) (unsigned int, struct hlist_node*)".
 * Returns its type id, or 0 when a name in it is unknown to BTF or the
 * spelling is not understood (0 is also "void": the caller knows whether
 * it asked for "void"). Derived types (pointers, qualifiers, arrays,
 * function prototypes) are found in BTF, else added (see above).
 */
int btf_find_type(struct btf *b, const char *c_type);

/* The same with the names of SCOPE (btf_add_module's result, or 0). */
int btf_find_type_in(struct btf *b, const char *c_type, int scope);

/*
 * Add the split BTF BLOB (LEN bytes, malloc'ed: owned by b afterwards,
 * freed on failure too) of module NAME ("watchdog"), built on top of the
 * vmlinux BTF b was loaded from (no module added before matters: each is
 * on top of vmlinux alone). Returns the module's scope (> 0), or 0 with a
 * malloc'ed message in *err (a blob that is not split BTF on b's types,
 * a bad record).
 */
int btf_add_module(struct btf *b, const char *name, uint8_t *blob,
		   size_t len, char **err);

/*
 * Add the DWARF types of an ELF file (a user program, a library, a
 * module's debug file: elf/elf.h) as a scope of their own, named name,
 * converted into the same records as the kernel's (elf_file_btf): pass
 * 2's member, pretty-printing and @cast code reads them as it reads the
 * kernel's. The scope, or 0 with a malloc'ed *err.
 */
struct elf_file;
int btf_add_elf(struct btf *b, const char *name, struct elf_file *f,
		char **err);

enum btf_class {
	BTF_CLASS_VOID,
	BTF_CLASS_INT,		/* also _Bool and char */
	BTF_CLASS_ENUM,
	BTF_CLASS_PTR,
	BTF_CLASS_ARRAY,
	BTF_CLASS_STRUCT,
	BTF_CLASS_UNION,
	BTF_CLASS_FUNC_PTR,	/* pointer to a function prototype */
	BTF_CLASS_FLOAT,
	BTF_CLASS_OTHER		/* functions, variables, unresolved forward
				 * declarations, invalid ids */
};

struct btf_info {
	enum btf_class cls;
	int id;		/* the type after typedefs, const, volatile,
			 * restrict and type tags are stripped and forward
			 * declarations replaced by their definition */
	unsigned size;	/* bytes; pointers 8; arrays nelems * element */
	bool is_signed;	/* INT, ENUM */
	bool is_char;	/* INT: char, signed char or unsigned char; PTR and
			 * ARRAY: the pointee or element is one */
	int target;	/* PTR: pointee id (unstripped); FUNC_PTR: the
			 * prototype; ARRAY: element id (unstripped) */
	unsigned nelems;	/* ARRAY: 0 for a flexible array member */
};

void btf_resolve(const struct btf *b, int id, struct btf_info *out);

/* The scope (btf_add_module, btf_add_elf: 0 for vmlinux's) of the type
 * id names, through pointers and arrays: that of what they point to. */
int btf_type_scope(const struct btf *b, int id);

/*
 * Parameter I of the function prototype PROTO_ID (a FUNC_PTR's target):
 * its type id (0 for a trailing "..."); with I < 0 the parameter count;
 * -1 when PROTO_ID is no prototype or I is past the last parameter.
 */
int btf_proto_param(const struct btf *b, int proto_id, int i);

/*
 * Member NAME of the struct or union STRUCT_ID (typedefs and qualifiers
 * are looked through), searching anonymous struct/union members too.
 * Returns 0 with the member's type id, its bit offset from the start of
 * STRUCT_ID and its bitfield width (0 when not a bitfield), or -1 when
 * STRUCT_ID is not a struct or union or has no such member.
 */
int btf_member(const struct btf *b, int struct_id, const char *name,
	       int *type_id, unsigned *bit_offset, unsigned *bitfield_size);

/*
 * Member I (declaration order, anonymous members included: their name is
 * "") of the struct or union STRUCT_ID: 0 with its name, type id, bit
 * offset and bitfield width (0: not a bitfield); -1 past the last one or
 * when STRUCT_ID is no struct or union. With I < 0: the member count.
 */
int btf_member_at(const struct btf *b, int struct_id, int i,
		  const char **name, int *type_id, unsigned *bit_offset,
		  unsigned *bitfield_size);

/*
 * The type's name as SystemTap prints it (its dwarf_type_name()):
 * "struct task_struct*", "char const*", "long unsigned int", "pid_t",
 * "char[]" (arrays print no size), "struct {...}" (anonymous),
 * "int (*) (unsigned int, struct hlist_node*)", "void (*) (void)",
 * "<unknown>" for ids that are not types. Malloc'ed.
 */
char *btf_type_name(const struct btf *b, int id);

#endif /* TARGET_BTF_H */
