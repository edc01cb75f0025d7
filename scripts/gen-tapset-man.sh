#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The tapset library's man pages, from its doc comments:
#
#   scripts/gen-tapset-man.sh OUTDIR VERSION STAPPROBES_IN TAPSET.stp[m]...
#
# writes into OUTDIR
#   function::NAME.3stap  one page per public function (overloads of a
#                         name share its page: one synopsis line each)
#   probe::NAME.3stap     one page per documented probe alias
#   macro::NAME.3stap     one page per documented macro (*.stpm)
#   stapfuncs.3stap       the index of the function and macro pages
#   stapprobes.3stap      STAPPROBES_IN (hand-written) with its line
#                         "@ALIASES@" replaced by the index of probe pages
#
# A doc comment is SystemTap's kernel-doc form (HACKING.md, "Tapsets"):
#
#   /**
#    * sfunction NAME - summary        (or: probe NAME, smacro NAME)
#    * @arg: what it is                 (also "@a, @b: ..." and "@arg :")
#    *
#    * Description: paragraphs...
#    * Context: where the probe fires  (probes)
#    * Example: ...                    (up to an empty comment line)
#    */
#   function NAME:TYPE (ARGS)          (or: probe NAME = POINTS,
#                                       @define NAME(ARGS) %( ... %))
#
# Names starting with '_' and private functions get no page. Needs only
# a POSIX shell, awk and sort; the output depends on nothing but the
# inputs (no dates), so a rebuild writes the same bytes.
set -eu

if [ $# -lt 3 ]; then
	echo "usage: $0 OUTDIR VERSION STAPPROBES_IN TAPSET.stp[m]..." >&2
	exit 2
fi
out=$1 version=$2 probes_in=$3
shift 3
mkdir -p "$out"
index=$out/.index.tmp

LC_ALL=C awk -v out="$out" -v version="$version" -v index_file="$index" '
# groff-safe text: backslashes, and a line that would start a request
function esc(s) {
	gsub(/\\/, "\\e", s)
	if (s ~ /^[.\047]/)
		s = "\\&" s
	return s
}
function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}
# a paragraph of the current block: kind "d" (description), "c"
# (context) or "e" (example)
function para_start(kind, text) {
	npara++
	pkind[npara] = kind
	ptext[npara] = text
	cur = "para"
}
function para_add(text) {
	if (ptext[npara] == "")
		ptext[npara] = text
	else
		ptext[npara] = ptext[npara] "\n" text
}
function start_block() {
	inblock = 1; kind = ""; name = ""; summary = ""; cur = "head"
	nargs = 0; npara = 0; want_decl = 0; decl = ""
}
# one content line of a doc comment (comment markers removed)
function block_line(l,    m, names) {
	if (kind == "" && name == "") {
		if (l ~ /^(sfunction|probe|smacro)[ \t]+[A-Za-z_0-9.]+[ \t]+-[ \t]/) {
			kind = l; sub(/[ \t].*/, "", kind)
			name = l; sub(/^[a-z]+[ \t]+/, "", name)
			sub(/[ \t].*/, "", name)
			summary = l; sub(/^[^-]*-[ \t]+/, "", summary)
		} else if (l != "")
			kind = "none"	# another comment: not documentation
		return
	}
	if (kind == "none")
		return
	if (l == "") {
		cur = "gap"
		return
	}
	# "@a: text", "@a : text", "@a, @b: text" (mawk mishandles a
	# starred group with a starred class inside: test the prefix)
	m = index(l, ":")
	names = substr(l, 1, m - 1)
	# (not "@cast to @type: ...", prose: words apart with no comma)
	if (m > 1 && names ~ /^@[A-Za-z_0-9]/ && names ~ /^[@A-Za-z_0-9, \t]+$/ &&
	    names !~ /[A-Za-z_0-9][ \t]+[@A-Za-z_0-9]/) {
		gsub(/[@ \t]/, "", names)
		gsub(/,/, ", ", names)
		nargs++
		aname[nargs] = names
		atext[nargs] = trim(substr(l, m + 1))
		cur = "arg"
		return
	}
	if (l ~ /^Description[ \t]*:/) {
		sub(/^Description[ \t]*:[ \t]*/, "", l)
		para_start("d", l)
		return
	}
	if (l ~ /^Context[ \t]*:/) {
		sub(/^Context[ \t]*:[ \t]*/, "", l)
		para_start("c", l)
		return
	}
	if (l ~ /^Example[ \t]*:/) {
		sub(/^Example[ \t]*:[ \t]*/, "", l)
		para_start("e", l)
		return
	}
	if (cur == "head") {
		summary = summary " " l
	} else if (cur == "arg") {
		atext[nargs] = atext[nargs] " " l
	} else if (cur == "para") {
		para_add(l)
	} else {
		# after an empty line: a new paragraph of the section before
		# (a context or an example ends at the empty line)
		para_start("d", l)
	}
}
# the block is complete with its declaration: file it under its name
function end_block(    k, i, n, key) {
	if (kind != "sfunction" && kind != "probe" && kind != "smacro")
		return
	if (name ~ /^_/ || decl ~ /^private[ \t]/)
		return
	key = (kind == "sfunction" ? "function" : \
	       kind == "smacro" ? "macro" : "probe") SUBSEP name
	if (!(key in nover)) {
		nover[key] = 0
		keys[++nkeys] = key
		ksummary[key] = trim(summary)
	}
	if (kind == "sfunction") {
		sub(/^(@__private30[ \t]+)?function[ \t]+/, "", decl)
		sub(/[ \t]*(%\{|\{).*$/, "", decl)
		decl = trim(decl)
	} else if (kind == "smacro") {
		# "@define NAME(ARGS) %(" is used as "@NAME(ARGS)"
		sub(/^.*@define[ \t]+/, "", decl)
		sub(/[ \t]*%\(.*$/, "", decl)
		decl = "@" trim(decl)
	} else
		decl = name
	# an identical declaration again (the two arms of a %( %? %)):
	# one entry
	for (i = 1; i <= nover[key]; i++)
		if (osyn[key, i] == decl)
			return
	n = ++nover[key]
	osyn[key, n] = decl
	onargs[key, n] = nargs
	for (i = 1; i <= nargs; i++) {
		oaname[key, n, i] = aname[i]
		oatext[key, n, i] = trim(atext[i])
	}
	onpara[key, n] = npara
	for (i = 1; i <= npara; i++) {
		opkind[key, n, i] = pkind[i]
		optext[key, n, i] = ptext[i]
	}
}
function emit_text(f, s,    nl, lines, i) {
	nl = split(s, lines, "\n")
	for (i = 1; i <= nl; i++)
		if (trim(lines[i]) != "")
			print esc(trim(lines[i])) > f
}
function write_page(key,    k, nm, f, sec, n, i, j, seen, an, any, title) {
	split(key, k, SUBSEP)
	nm = k[2]
	f = out "/" k[1] "::" nm ".3stap"
	title = toupper(k[1] "::" nm)
	printf(".\\\" Generated by scripts/gen-tapset-man.sh from the tapsets\047 doc comments: edit those.\n") > f
	printf(".TH \"%s\" 3stap \"\" \"stap %s\" \"stap tapset library\"\n", title, version) > f
	print ".SH NAME" > f
	print esc(k[1] "::" nm) " \\- " esc(ksummary[key]) > f
	print ".SH SYNOPSIS" > f
	print ".nf" > f
	for (n = 1; n <= nover[key]; n++) {
		if (k[1] == "probe")
			print ".B \"probe " esc(osyn[key, n]) "\"" > f
		else
			print ".B \"" esc(osyn[key, n]) "\"" > f
	}
	print ".fi" > f
	# arguments (values, for a probe): each name once
	any = 0
	for (n = 1; n <= nover[key]; n++)
		for (i = 1; i <= onargs[key, n]; i++) {
			an = oaname[key, n, i]
			if ((key, an) in seen)
				continue
			seen[key, an] = 1
			if (!any++)
				print ".SH " (k[1] == "probe" ? "VALUES" : "ARGUMENTS") > f
			print ".TP" > f
			print ".I " esc(an) > f
			emit_text(f, oatext[key, n, i] == "" ? "(not described)" : oatext[key, n, i])
		}
	# context (probes)
	any = 0
	for (n = 1; n <= nover[key]; n++)
		for (i = 1; i <= onpara[key, n]; i++)
			if (opkind[key, n, i] == "c") {
				if (!any++)
					print ".SH CONTEXT" > f
				else
					print ".PP" > f
				emit_text(f, optext[key, n, i])
			}
	# description: per overload when there are several
	any = 0
	for (n = 1; n <= nover[key]; n++) {
		j = 0
		for (i = 1; i <= onpara[key, n]; i++) {
			if (opkind[key, n, i] != "d")
				continue
			if (!any++)
				print ".SH DESCRIPTION" > f
			if (!j++ && nover[key] > 1) {
				print ".TP" > f
				print ".B \"" esc(osyn[key, n]) "\"" > f
			} else if (j > 1 && nover[key] > 1)
				print ".IP" > f
			else
				print ".PP" > f
			emit_text(f, optext[key, n, i])
		}
	}
	any = 0
	for (n = 1; n <= nover[key]; n++)
		for (i = 1; i <= onpara[key, n]; i++)
			if (opkind[key, n, i] == "e") {
				if (!any++)
					print ".SH EXAMPLE" > f
				print ".PP" > f
				print ".nf" > f
				print ".RS" > f
				gsub(/\n/, " ", optext[key, n, i])
				emit_text(f, optext[key, n, i])
				print ".RE" > f
				print ".fi" > f
			}
	print ".SH SEE ALSO" > f
	if (k[1] != "probe")
		print ".BR stapfuncs (3stap)," > f
	print ".BR stapprobes (3stap)," > f
	print ".BR stap (1)" > f
	close(f)
	# the index: kind, name, summary (for stapfuncs and stapprobes)
	print k[1] "\t" nm "\t" ksummary[key] > index_file
}
FNR == 1 { inblock = 0; want_decl = 0 }
{
	line = $0
	if (!inblock && line ~ /^[ \t]*\/\*\*/) {
		start_block()
		sub(/^[ \t]*\/\*\*+[ \t]*/, "", line)
		if (line ~ /\*\/[ \t]*$/) {
			sub(/[ \t]*\*\/[ \t]*$/, "", line)
			block_line(trim(line))
			inblock = 0; want_decl = 1
		} else if (line != "")
			block_line(trim(line))
		next
	}
	if (inblock) {
		if (line ~ /\*\//) {
			sub(/[ \t]*\*+\/.*$/, "", line)
			sub(/^[ \t]*\*?[ \t]?/, "", line)
			if (trim(line) != "")
				block_line(trim(line))
			inblock = 0; want_decl = 1
			next
		}
		sub(/^[ \t]*\*[ \t]?/, "", line)
		block_line(trim(line))
		next
	}
	if (want_decl) {
		# the declaration the comment documents: preprocessor lines
		# and empty lines may stand between
		if (line ~ /^[ \t]*(%\(|%\?|%\)|$)/)
			next
		if (kind == "sfunction" && decl == "" &&
		    line !~ /(^|[ \t])function[ \t]/) {
			want_decl = 0
			next
		}
		if (kind == "smacro" && line !~ /^[ \t]*@define[ \t]/) {
			want_decl = 0
			next
		}
		decl = decl (decl == "" ? "" : " ") trim(line)
		if (kind == "sfunction" && decl !~ /\)/)
			next		# the arguments go on
		want_decl = 0
		end_block()
	}
}
END {
	for (i = 1; i <= nkeys; i++)
		write_page(keys[i])
}
' "$@"

# The index pages: names in C order.
LC_ALL=C sort -t '	' -k1,1 -k2,2 -u "$index" -o "$index"

# The index's entries of one kind (function, macro): a .TP each, naming
# the page, with the summary.
index_entries() { # KIND
	awk -F '	' -v kind="$1" '$1 == kind {
		s = $3; gsub(/\\/, "\\e", s)
		print ".TP"
		print ".BR " kind "::" $2 " (3stap)"
		print s
	}' "$index"
}
{
	printf '.\\" Generated by scripts/gen-tapset-man.sh from the tapsets'"'"' doc comments.\n'
	printf '.TH STAPFUNCS 3stap "" "stap %s" "stap tapset library"\n' "$version"
	cat <<'EOF'
.SH NAME
stapfuncs \- the functions of the stap tapset library
.SH DESCRIPTION
The tapset library is a set of script files installed with
.BR stap (1)
(tapsets/ and tapsets/linux/ under the package data directory).
A script may call any of the functions below without declaring them:
pass 2 finds the tapset file that defines a name and adds it to the
program.
.B "stap \-\-dump\-functions"
prints each with its argument and result types.
.PP
Each function has a page of its own,
.BI function:: NAME (3stap),
written from the doc comment above its definition.
Functions the compiler provides itself (print, printf, sprintf, exit,
the string and statistics built-ins, ...) are part of the language and
are not listed here.
.SH FUNCTIONS
EOF
	index_entries function
	if grep -q '^macro	' "$index"; then
		cat <<'EOF'
.SH MACROS
The library's macro files (*.stpm) define these for every script;
each expands where it is written, as
.BI @ NAME ( ARGS ).
EOF
		index_entries macro
	fi
	cat <<'EOF'
.SH SEE ALSO
.BR stap (1),
.BR stapprobes (3stap)
EOF
} >"$out/stapfuncs.3stap"

awk -F '	' -v idx="$index" '
$0 == "@ALIASES@" {
	while ((getline l < idx) > 0) {
		split(l, f, "\t")
		if (f[1] != "probe")
			continue
		s = f[3]; gsub(/\\/, "\\e", s)
		print ".TP"
		print ".BR probe::" f[2] " (3stap)"
		print s
	}
	next
}
{ print }' "$probes_in" >"$out/stapprobes.3stap"

rm -f "$index"
