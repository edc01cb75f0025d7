#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Generate the syscall tapset from the kernel headers:
#   tapsets/linux/x86_64/syscalls.stp      syscall.NAME and syscall.NAME.return
#   tapsets/linux/x86_64/syscall_table.stp syscall_name(nr), syscall_num(name)
#   tapsets/linux/x86_64/syscall_families.stp  nd_syscall.*, tp_syscall.*,
#                                          dw_syscall.*: SystemTap's other
#                                          names for the same probes
#
#   scripts/gen-syscall-tapset.sh [HEADERS_DIR...]
#
# HEADERS_DIR is a kernel's build headers (/usr/src/linux-headers-RELEASE);
# the default is every installed linux-headers-*-amd64, the newest release
# of each MAJOR.MINOR. From each kernel it reads the x86_64 system calls
# (arch/x86/include/generated/asm/syscalls_64.h: number and entry point;
# uapi/asm/unistd_64.h: name; entries that are sys_ni_syscall are left out)
# and the prototypes (include/linux/syscalls.h of the -common headers: the
# argument names and C types). A call present in only some of the kernels
# gets a %( kernel_v ... %) guard.
#
# Hand-written files refine the result:
#   scripts/syscall-args.txt    argument names and kinds where the prototype
#                               has none or SystemTap names them otherwise,
#                               and the version a call appeared or went
#   scripts/syscall-detail/*.stp the bodies of the calls, with
#                               SystemTap's exact decoding and argstr
#   scripts/syscall-names48.stp SystemTap 4.8's names that are no x86_64
#                               call (syscall.pread, umount, compat_*, ...):
#                               the call each stands for, 64-bit or a
#                               32-bit task's (uapi/asm/unistd_32.h), and
#                               its body
# Every other call gets its arguments by name and an argstr of them.
#
# Every alias has the same shape, which the compiler may rely on to
# dispatch all the aliases of one tracepoint with a single test of the
# task's kind and a switch on the number (module/emit_tracepoint.c):
#   probe syscall.NAME = kernel.trace("raw_syscalls:sys_enter")
#   { if ($id != NR || __sysc_compat()) next  ... }
#   probe syscall.NAME.return = kernel.trace("raw_syscalls:sys_exit")
#   { if ($regs->orig_ax != NR || __sysc_compat()) next  ... }
# (a call that never returns has `.return = never`, as in SystemTap).
# A 32-bit task's call of syscall-names48.stp has `!__sysc_compat()`
# instead: a 32-bit task's numbers are another table's, and a 64-bit
# alias does not fire on them.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/tapsets/linux/x86_64
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -eq 0 ]; then
	# the newest installed release of each MAJOR.MINOR
	for d in /usr/src/linux-headers-*-amd64; do
		[ -f "$d/arch/x86/include/generated/asm/syscalls_64.h" ] || continue
		v=$(sed -n 's/^#define LINUX_VERSION_CODE //p' \
			"$d/include/generated/uapi/linux/version.h")
		echo "$((v >> 16)).$(((v >> 8) & 255)) $d"
	done | sort -V | awk '{ d[$1] = $2 } END { for (v in d) print d[v] }' |
		sort -V >"$tmp/dirs"
	set -- $(cat "$tmp/dirs")
fi
[ $# -gt 0 ] || { echo "no kernel headers found" >&2; exit 1; }

i=0
: >"$tmp/kernels"
for d in "$@"; do
	gen=$d/arch/x86/include/generated
	common=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$d/Makefile")
	[ -n "$common" ] || common=$d
	v=$(sed -n 's/^#define LINUX_VERSION_CODE //p' \
		"$d/include/generated/uapi/linux/version.h")
	echo "$i $((v >> 16)).$(((v >> 8) & 255))" >>"$tmp/kernels"
	# NR NAME ENTRY NORETURN
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$/\2 \1/p' \
		"$gen/uapi/asm/unistd_64.h" | sort -k1,1 >"$tmp/names.$i"
	sed -n 's/^__SYSCALL\(_NORETURN\)\{0,1\}(\([0-9]*\), sys_\([a-z0-9_]*\))$/\2 \3 \1/p' \
		"$gen/asm/syscalls_64.h" | sort -k1,1 >"$tmp/entries.$i"
	join "$tmp/names.$i" "$tmp/entries.$i" |
		awk -v k=$i '$3 != "ni_syscall" {
			print "E", k, $1, $2, $3, ($4 == "_NORETURN") }' \
		>"$tmp/calls.$i"
	# every __NR_ name, for syscall_name()
	awk -v k=$i '{ print "N", k, $1, $2 }' "$tmp/names.$i" >>"$tmp/calls.$i"
	# every 32-bit call (a 32-bit task's numbers), for syscall-names48.stp
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$/\2 \1/p' \
		"$gen/uapi/asm/unistd_32.h" |
		awk -v k=$i '{ print "I", k, $1, $2 }' >>"$tmp/calls.$i"
	# P K ENTRY|PARAMS: the asmlinkage prototypes, joined, the last of
	# each name winning (the #else branch is the generic one)
	awk -v k=$i '
		/^asmlinkage long sys_[a-z0-9_]+\(/ { buf = $0; on = 1 }
		on && buf != $0 { buf = buf " " $0 }
		on && /\);/ {
			on = 0
			gsub(/[ \t]+/, " ", buf)
			match(buf, /sys_[a-z0-9_]+\(/)
			name = substr(buf, RSTART + 4, RLENGTH - 5)
			rest = substr(buf, RSTART + RLENGTH)
			sub(/\);.*/, "", rest)
			print "P", k, name "|" rest
		}' "$common/include/linux/syscalls.h" >>"$tmp/calls.$i"
	i=$((i + 1))
done

cat "$tmp"/calls.* >"$tmp/all"

cat "$top"/scripts/syscall-detail/*.stp >"$tmp/detail"
awk -v kernels="$tmp/kernels" -v argsfile="$top/scripts/syscall-args.txt" \
    -v detailfile="$tmp/detail" \
    -v namesfile="$top/scripts/syscall-names48.stp" \
    -v out="$out/syscalls.stp" -v table="$out/syscall_table.stp" \
    -v families="$out/syscall_families.stp" '
function die(msg) {
	print "gen-syscall-tapset: " msg > "/dev/stderr"
	dead = 1
	exit 1
}
function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }

# The kind of a C parameter type: int uint long ulong mode ptr str.
function kind_of(type, name) {
	if (type ~ /\*/ || type ~ /cap_user_(header|data)_t/) {
		if (type ~ /^const char __user \*$/ &&
		    name !~ /^(buf|msg_ptr|u_msg_ptr)$/)
			return "str"
		return "ptr"
	}
	sub(/^const /, "", type)
	if (type ~ /^enum /)
		return "int"
	if (type == "umode_t")
		return "mode"
	if (type ~ /unsigned/)
		return type ~ /long/ ? "ulong" : "uint"
	if (type ~ /^(size_t|u64|__u64|aio_context_t)$/)
		return "ulong"
	if (type ~ /^(u32|__u32|uint32_t|uid_t|gid_t|qid_t|old_uid_t|old_gid_t|u16)$/)
		return "uint"
	if (type ~ /^(long|long long|off_t|loff_t|ssize_t|s64|__s64|__kernel_old_time_t|time_t)$/)
		return "long"
	if (type ~ /^(int|pid_t|key_t|key_serial_t|clockid_t|timer_t|mqd_t|rwf_t|s32|__s32)$/)
		return "int"
	print "gen-syscall-tapset: unknown type \"" type "\" (" name "), as long" > "/dev/stderr"
	return "long"
}

# The default arguments of a call from its prototype: "kind:name ...".
function from_proto(call, params,   n, p, i, a, t, nm, res, kd, k) {
	if (params ~ /^ *void *$/ || params ~ /^ *$/)
		return ""
	n = split(params, p, ",")
	res = ""
	for (i = 1; i <= n; i++) {
		a = trim(p[i])
		k = split(a, t, " ")
		nm = t[k]
		sub(/^\*+/, "", nm)
		sub(/\[\]$/, "", nm)
		if (k < 2 || a ~ /\*$/ || nm ~ /^(int|long|char|short|unsigned|signed)$/) {
			print "gen-syscall-tapset: " call ": argument " i " has no name" > "/dev/stderr"
			nm = "arg" i
			type = a
		} else {
			type = trim(substr(a, 1, length(a) - length(t[k])))
			if (t[k] ~ /^\*/)
				type = type " " substr(t[k], 1, length(t[k]) - length(nm))
		}
		kd = kind_of(type, nm)
		if (kd == "ptr")
			nm = nm "_uaddr"
		res = res (res == "" ? "" : " ") kd ":" nm
	}
	return res
}

BEGIN {
	nk = 0
	while ((getline line < kernels) > 0) {
		split(line, f, " ")
		kver[f[1]] = f[2]
		nk++
	}
	while ((getline line < argsfile) > 0) {
		sub(/#.*/, "", line)
		line = trim(line)
		if (line == "")
			continue
		n = split(line, f, " ")
		if (f[1] == "@since") {
			since[f[2]] = f[3]
			continue
		}
		if (f[1] == "@until") {
			until[f[2]] = f[3]
			continue
		}
		args[f[1]] = trim(substr(line, length(f[1]) + 1))
		hasargs[f[1]] = 1
	}
	cur = ""
	while ((getline line < detailfile) > 0) {
		if (cur == "" && line ~ /^probe syscall\.[a-z0-9_]+(\.return)? \{$/) {
			cur = line
			sub(/^probe syscall\./, "", cur)
			sub(/ \{$/, "", cur)
			detail[cur] = ""
			hasdetail[cur] = 1
			continue
		}
		if (cur != "" && line == "}") {
			cur = ""
			continue
		}
		if (cur != "")
			detail[cur] = detail[cur] line "\n"
	}
	# syscall-names48.stp: block b is NAME48[b] = SPEC48[b] { BODY48[b] }
	nb = 0
	cur = ""
	while ((getline line < namesfile) > 0) {
		if (cur == "" && line ~ /^probe syscall\.[a-z0-9_]+ = [a-z0-9_, ]+ \{$/) {
			cur = line
			sub(/^probe syscall\./, "", cur)
			nb++
			name48[nb] = substr(cur, 1, index(cur, " ") - 1)
			spec48[nb] = cur
			sub(/^[a-z0-9_]+ = /, "", spec48[nb])
			sub(/ \{$/, "", spec48[nb])
			body48[nb] = ""
			continue
		}
		if (cur != "" && line == "}") {
			cur = ""
			continue
		}
		if (cur != "")
			body48[nb] = body48[nb] line "\n"
		else if (line ~ /^probe/)
			die("syscall-names48.stp: cannot read \"" line "\"")
	}
}

$1 == "E" {
	k = $2; nr = $3; name = $4
	if (!(name in callnr)) {
		callnr[name] = nr
		order[++ncalls] = name
	} else if (callnr[name] != nr)
		die(name " has numbers " callnr[name] " and " nr)
	entry[name] = $5
	noreturn[name] = noreturn[name] || $6
	present[name, k] = 1
	next
}
$1 == "I" {
	nr32[$4] = $3
	have["i:" $4, $2] = 1
	next
}
$1 == "N" {
	allnr[$4] = $3
	have["n:" $4, $2] = 1
	if (!($4 in seenname)) {
		seenname[$4] = 1
		names[++nnames] = $4
	}
	next
}
$1 == "P" {
	s = $0
	sub(/^P [0-9]+ /, "", s)
	e = substr(s, 1, index(s, "|") - 1)
	proto[e] = substr(s, index(s, "|") + 1)
	hasproto[e] = 1
	next
}

# The guard of a call missing from some kernels: %( kernel_v ... %? or "".
function guard(name,   k, first, last, n) {
	first = -1; last = -1; n = 0
	for (k = 0; k < nk; k++)
		if ((name, k) in present) {
			if (first < 0)
				first = k
			last = k
			n++
		}
	if (n == nk)
		return ""
	if (n != last - first + 1)
		die(name " comes and goes between the kernels")
	if (first > 0 && last == nk - 1)
		return "kernel_v >= \"" (name in since ? since[name] : kver[first]) "\""
	if (first == 0)
		return "kernel_v < \"" (name in until ? until[name] : kver[last + 1]) "\""
	return "kernel_v >= \"" (name in since ? since[name] : kver[first]) \
	       "\" && kernel_v < \"" (name in until ? until[name] : kver[last + 1]) "\""
}

# The guard of an alias of syscall-names48.stp on key ("n:CALL" a 64-bit
# call, "i:CALL" a 32-bit one): "" when every kernel has it.
function guard48(key,   k, first, last, n) {
	first = -1; last = -1; n = 0
	for (k = 0; k < nk; k++)
		if ((key, k) in have) {
			if (first < 0)
				first = k
			last = k
			n++
		}
	if (n == 0)
		die("syscall-names48.stp: no kernel has " key)
	if (n == nk)
		return ""
	if (n != last - first + 1)
		die(key " comes and goes between the kernels")
	if (first > 0 && last == nk - 1)
		return "kernel_v >= \"" kver[first] "\""
	if (first == 0)
		return "kernel_v < \"" kver[last + 1] "\""
	return "kernel_v >= \"" kver[first] "\" && kernel_v < \"" kver[last + 1] "\""
}

# syscall.NAME and .return of block b for one side: a 64-bit call ("n"),
# a call of a 32-bit task ("i": the compat test, the registers of the
# 32-bit ABI) or
# none ("never").
function alias48(b, side, call,   name, body, nm, g, nr, pre, first, key, ret, ns, sd, si) {
	name = name48[b]
	body = body48[b]
	nm = "\tname = \"" name "\"\n"
	if (match(body, /^\tname = "[a-z0-9_]+"\n/)) {
		nm = substr(body, RSTART, RLENGTH)
		body = substr(body, RLENGTH + 1)
	}
	if (side == "never") {
		print "" > out
		print "probe syscall." name " = never" > out
		printf "{\n%s%s}\n", nm, body > out
		print "probe syscall." name ".return = never" > out
		printf "{\n%s\tretval = 0\n\tretstr = \"0\"\n}\n", nm > out
		return
	}
	key = side ":" call
	nr = side == "i" ? nr32[call] : allnr[call]
	if (nr == "")
		die("syscall-names48.stp: " name ": no " (side == "i" ? "32-bit " : "") "call " call)
	g = guard48(key)
	# the return of a 64-bit call of the block with its own (that of mmap:
	# an address in hex), for each side
	ret = "\tretval = $ret\n\tretstr = __sysc_retstr(1, retval)\n"
	ns = split(spec48[b], sd, /, */)
	for (si = 1; si <= ns; si++)
		if ((sd[si] ".return") in hasdetail)
			ret = detail[sd[si] ".return"]
	task = " || __sysc_compat()"
	if (side == "i") {
		task = " || !__sysc_compat()"
		gsub(/__sysc_int\(/, "__sysc32_int(", body)
		gsub(/__sysc_uint\(/, "__sysc32_uint(", body)
		gsub(/__sysc_arg\(/, "__sysc32_arg(", body)
	}
	# the test of a subcall (socketcall, ipc) holds at the exit too
	first = ""
	if (match(body, /^\tif \([^\n]*\) next\n/))
		first = substr(body, RSTART, RLENGTH)
	print "" > out
	if (g != "")
		print "%( " g " %?" > out
	print "# " name ": " (side == "i" ? "32-bit task: " : "") call " (" nr ")" > out
	print "probe syscall." name " = kernel.trace(\"raw_syscalls:sys_enter\")" > out
	# (the compiler switches on the number once the kind of task is
	# known: a number both kinds have, 34 for pause and for nice of a
	# 32-bit task, is a case in each switch)
	printf "{\n\tif ($id != %d%s) next\n%s%s}\n", nr, task, nm,
		body > out
	print "probe syscall." name ".return = kernel.trace(\"raw_syscalls:sys_exit\")" > out
	printf "{\n\tif ($regs->orig_ax != %d%s) next\n%s%s%s}\n", nr,
		task, first, nm, ret > out
	if (g != "")
		print "%)" > out
	if (g == "")
		for (k = 0; k < nk; k++)
			has48[name, k] = 1
	else
		for (k = 0; k < nk; k++)
			if ((key, k) in have)
				has48[name, k] = 1
}

function fmt_of(kind) {
	if (kind == "int" || kind == "long") return "%d"
	if (kind == "uint" || kind == "ulong") return "%u"
	if (kind == "mode") return "%#o"
	if (kind == "dfd") return "%s"
	if (kind == "ptr") return "%p"
	return "%s"
}

# The generic body of syscall.NAME: each argument, then argstr.
function generic_body(name, list,   n, a, i, kn, kind, var, s, fmt, vars, reader) {
	s = ""
	fmt = ""
	vars = ""
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) {
		split(a[i], kn, ":")
		kind = kn[1]; var = kn[2]
		if (kind == "int" || kind == "dfd")
			reader = "__sysc_int($regs, " i ")"
		else if (kind == "uint" || kind == "mode")
			reader = "__sysc_uint($regs, " i ")"
		else if (kind == "long" || kind == "ulong" || kind == "ptr")
			reader = "__sysc_arg($regs, " i ")"
		else if (kind == "str")
			reader = ""
		else
			die(name ": unknown kind " kind)
		if (kind == "str") {
			s = s "\t" var " = __sysc_ustr_quoted(__sysc_arg($regs, " i "))\n"
			s = s "\t" var "_unquoted = __sysc_ustr(__sysc_arg($regs, " i "))\n"
		} else {
			s = s "\t" var " = " reader "\n"
		}
		if (kind == "dfd")
			s = s "\t" var "_str = __sysc_dfd_str(" var ")\n"
		fmt = fmt (i > 1 ? ", " : "") fmt_of(kind)
		vars = vars ", " var (kind == "dfd" ? "_str" : "")
	}
	if (n == 0)
		s = s "\targstr = \"\"\n"
	else
		s = s "\targstr = sprintf(\"" fmt "\"" vars ")\n"
	return s
}

END {
	if (dead)
		exit 1
	# sort the calls by number
	for (i = 1; i <= ncalls; i++)
		for (j = i; j > 1 && callnr[order[j - 1]] + 0 > callnr[order[j]] + 0; j--) {
			t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
		}
	vers = ""
	for (k = 0; k < nk; k++)
		vers = vers (k ? (k == nk - 1 ? " and " : ", ") : "") kver[k]

	print "// SPDX-License-Identifier: GPL-2.0-or-later" > out
	print "// GENERATED by scripts/gen-syscall-tapset.sh from the headers of Linux " vers "," > out
	print "// scripts/syscall-args.txt and scripts/syscall-detail/: do not edit." > out
	print "//" > out
	print "// syscall.NAME fires on entry to system call NAME of a 64-bit task, with" > out
	print "// name, each argument by name, string forms of some, and argstr (the" > out
	print "// arguments as SystemTap prints them); syscall.NAME.return on its exit," > out
	print "// with name, retval and retstr (\"3\", or \"-2 (ENOENT)\" for an error)." > out
	print "// Each alias tests the call number first, always in the same form." > out
	print "// SPDX-License-Identifier: GPL-2.0-or-later" > families
	print "// GENERATED by scripts/gen-syscall-tapset.sh from the headers of Linux " vers ":" > families
	print "// do not edit." > families
	print "//" > families
	print "// SystemTap names each system call probe in several families: nd_syscall" > families
	print "// (no debuginfo: kprobes), tp_syscall (tracepoints) and dw_syscall (DWARF)." > families
	print "// Here syscall.NAME needs no debuginfo in the first place, so each of" > families
	print "// them is syscall.NAME under another name, with the same variables." > families
	# a 64-bit call that syscall-names48.stp names otherwise (pread64 is
	# pread in 4.8, mmap is mmap2) has only that name: syscall.* must
	# not see the call twice
	for (b = 1; b <= nb; b++) {
		ns = split(spec48[b], sides, /, */)
		for (si = 1; si <= ns; si++)
			if (sides[si] in callnr)
				renamed[sides[si]] = name48[b]
	}
	for (i = 1; i <= ncalls; i++) {
		name = order[i]
		if (name in renamed)
			continue
		nr = callnr[name]
		e = entry[name]
		g = guard(name)
		if (name in hasdetail)
			list = ""
		else if (name in hasargs)
			list = args[name]
		else if (e in hasproto)
			list = from_proto(name, proto[e])
		else
			die(name ": no prototype and no entry in syscall-args.txt")
		if ((name in hasargs) && (e in hasproto) && !(name in hasdetail)) {
			pn = split(proto[e], tmpa, ",")
			if (proto[e] ~ /^ *void *$/) pn = 0
			ln = split(list, tmpb, " ")
			if (pn != ln)
				die(name ": " ln " arguments in syscall-args.txt, " pn " in the prototype")
		}
		print "" > out
		if (g != "")
			print "%( " g " %?" > out
		if (e in hasproto)
			print "# " name "(" trim(proto[e]) ")" > out
		print "" > families
		if (g != "")
			print "%( " g " %?" > families
		for (fi = 1; fi <= 3; fi++) {
			fam = fi == 1 ? "nd_syscall" : fi == 2 ? "tp_syscall" : "dw_syscall"
			print "probe " fam "." name " = syscall." name " { }" > families
			print "probe " fam "." name ".return = syscall." name ".return { }" > families
		}
		if (g != "")
			print "%)" > families
		print "probe syscall." name " = kernel.trace(\"raw_syscalls:sys_enter\")" > out
		print "{" > out
		print "\tif ($id != " nr " || __sysc_compat()) next" > out
		print "\tname = \"" name "\"" > out
		if (name in hasdetail)
			printf "%s", detail[name] > out
		else
			printf "%s", generic_body(name, list) > out
		print "}" > out
		if (noreturn[name]) {
			print "probe syscall." name ".return = never" > out
			print "{" > out
			print "\tname = \"" name "\"" > out
			print "\tretval = 0" > out
			print "\tretstr = \"0\"" > out
			print "}" > out
		} else {
			print "probe syscall." name ".return = kernel.trace(\"raw_syscalls:sys_exit\")" > out
			print "{" > out
			print "\tif ($regs->orig_ax != " nr " || __sysc_compat()) next" > out
			print "\tname = \"" name "\"" > out
			if ((name ".return") in hasdetail)
				printf "%s", detail[name ".return"] > out
			else {
				print "\tretval = $ret" > out
				print "\tretstr = __sysc_retstr(1, retval)" > out
			}
			print "}" > out
		}
		if (g != "")
			print "%)" > out
	}
	# the other names of SystemTap 4.8 (syscall-names48.stp)
	print "" > out
	print "// SystemTap 4.8'"'"'s names that are no x86_64 call (scripts/syscall-names48.stp):" > out
	print "// a 64-bit call under another name, or a call of a 32-bit task." > out
	for (b = 1; b <= nb; b++) {
		if (name48[b] in callnr)
			die("syscall-names48.stp: " name48[b] " is a call of these kernels")
		ns = split(spec48[b], sides, /, */)
		for (si = 1; si <= ns; si++) {
			if (sides[si] == "never") {
				alias48(b, "never", "")
				for (k = 0; k < nk; k++)
					has48[name48[b], k] = 1
			} else if (sides[si] ~ /^ia32 [a-z0-9_]+$/)
				alias48(b, "i", substr(sides[si], 6))
			else if (sides[si] ~ /^[a-z0-9_]+$/)
				alias48(b, "n", sides[si])
			else
				die("syscall-names48.stp: " name48[b] ": cannot read \"" sides[si] "\"")
		}
	}
	# their nd_, tp_ and dw_syscall names, once per name
	for (b = 1; b <= nb; b++) {
		name = name48[b]
		if (name in fam48)
			continue
		fam48[name] = 1
		n = 0
		for (k = 0; k < nk; k++)
			if ((name, k) in has48)
				n++
		g = ""
		if (n < nk) {
			for (k = 0; k < nk && !((name, k) in has48); k++)
				;
			g = k > 0 ? "kernel_v >= \"" kver[k] "\"" : ""
			for (; k < nk && ((name, k) in has48); k++)
				;
			if (k < nk)
				g = (g == "" ? "" : g " && ") "kernel_v < \"" kver[k] "\""
		}
		print "" > families
		if (g != "")
			print "%( " g " %?" > families
		for (fi = 1; fi <= 3; fi++) {
			fam = fi == 1 ? "nd_syscall" : fi == 2 ? "tp_syscall" : "dw_syscall"
			print "probe " fam "." name " = syscall." name " { }" > families
			print "probe " fam "." name ".return = syscall." name ".return { }" > families
		}
		if (g != "")
			print "%)" > families
	}

	for (d in hasdetail) {
		b = d
		sub(/\.return$/, "", b)
		if (!(b in callnr))
			die("scripts/syscall-detail: " d " is no system call of these kernels")
	}

	# syscall_name() and syscall_num(): every __NR_ name, each under
	# #ifdef so that one table serves every kernel
	for (i = 1; i <= nnames; i++)
		for (j = i; j > 1 && allnr[names[j - 1]] + 0 > allnr[names[j]] + 0; j--) {
			t = names[j]; names[j] = names[j - 1]; names[j - 1] = t
		}
	print "// SPDX-License-Identifier: GPL-2.0-or-later" > table
	print "// GENERATED by scripts/gen-syscall-tapset.sh from the headers of Linux " vers ":" > table
	print "// do not edit." > table
	print "//" > table
	print "// The names of the x86_64 system calls (64-bit tasks), from the target" > table
	print "// kernel'"'"'s own __NR_ macros." > table
	print "" > table
	print "%{" > table
	print "#include <asm/unistd.h>" > table
	print "" > table
	print "static const char *const __stp_sysc_names[] __maybe_unused = {" > table
	for (i = 1; i <= nnames; i++) {
		print "#ifdef __NR_" names[i] > table
		print "\t[__NR_" names[i] "] = \"" names[i] "\"," > table
		print "#endif" > table
	}
	print "};" > table
	print "%}" > table
	print "" > table
	print "/**" > table
	print " * sfunction syscall_name - the name of a system call" > table
	print " * @nr: its number (a 64-bit task'"'"'s)" > table
	print " *" > table
	print " * Description: returns \"\" for a number the kernel does not define." > table
	print " */" > table
	print "function syscall_name:string (nr:long) %{ /* pure */ /* unprivileged */" > table
	print "\tif (STAP_ARG_nr >= 0 && STAP_ARG_nr < ARRAY_SIZE(__stp_sysc_names) &&" > table
	print "\t    __stp_sysc_names[STAP_ARG_nr])" > table
	print "\t\tstrlcpy(STAP_RETVALUE, __stp_sysc_names[STAP_ARG_nr], MAXSTRINGLEN);" > table
	print "%}" > table
	print "" > table
	print "/**" > table
	print " * sfunction syscall_num - the number of a system call" > table
	print " * @name: its name" > table
	print " *" > table
	print " * Description: returns -1 for a name the kernel does not define." > table
	print " */" > table
	print "function syscall_num:long (name:string) %{ /* pure */ /* unprivileged */" > table
	print "\tsize_t i;" > table
	print "" > table
	print "\tSTAP_RETVALUE = -1;" > table
	print "\tfor (i = 0; i < ARRAY_SIZE(__stp_sysc_names); i++)" > table
	print "\t\tif (__stp_sysc_names[i] &&" > table
	print "\t\t    !strcmp(__stp_sysc_names[i], STAP_ARG_name)) {" > table
	print "\t\t\tSTAP_RETVALUE = i;" > table
	print "\t\t\tbreak;" > table
	print "\t\t}" > table
	print "%}" > table
}
' "$tmp/all"
echo "wrote $out/syscalls.stp ($(grep -c '^probe syscall\.[a-z0-9_]* =' "$out/syscalls.stp") calls), $out/syscall_families.stp and $out/syscall_table.stp"
