#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The source layout's rules (HACKING.md, "Layout"), checked on the tree:
#   1. includes follow the dependency rules: a folder includes its own
#      headers and those of the folders listed for it below:
#        stap -> module bpf vm flame probes (the driver: all of them)
#        module -> vm semantic            (a backend: no family; its run
#                                          step may boot the guest)
#        bpf -> vm semantic               (a backend: runs on the host,
#                                          or in a guest of -r's kernel)
#        probes -> semantic               (a family: no backend)
#        semantic -> parser -> target -> elf -> lib
#        vm -> target                     (the guest boots a release's kernel)
#        flame -> lib
#      each folder also reaching what those reach below semantic;
#      runtime/ includes no compiler header, and no compiler file includes
#      runtime/ but its user-space ABI (runtime/abi/);
#   2. only probes/ names a probe family: no other compiler folder refers
#      to a family object (*_family) or a family's own data;
#   3. the families are listed once, in probes/registry.c;
#   4. no hand-written source file is over 1,500 lines;
#   5. a backend is named by its own folder and the driver only (stap/
#      picks it through struct backend), and no family sees the backend
#      interface (semantic/backend.h).
# Prints one line per violation; exit status 1 if there is any.
set -u
cd "$(dirname "$0")/.."
dirs=(stap module bpf vm flame probes semantic parser target elf lib)
declare -A may=(
	[stap]="module bpf vm flame probes semantic parser target elf lib"
	[module]="vm semantic parser target elf lib"
	[bpf]="vm semantic parser target elf lib"
	[probes]="semantic parser target elf lib"
	[semantic]="parser target elf lib"
	[parser]="target elf lib"
	[target]="elf lib"
	[elf]="lib"
	[vm]="target elf lib"
	[flame]="lib"
	[lib]=""
)
# Single includes allowed against the rules, each with its reason:
# "FILE INCLUDE".
exceptions=(
)
bad=0
say() { echo "$*"; bad=1; }
excepted() { local e; for e in "${exceptions[@]}"; do [ "$e" = "$1 $2" ] && return 0; done; return 1; }

for dir in "${dirs[@]}"; do
	for f in "$dir"/*.[chyl]; do
		[ -e "$f" ] || continue
		case $f in parser/grammar.[ch]|parser/lexer.c) continue ;; esac
		while IFS= read -r inc; do
			top=${inc%%/*}
			[ "$inc" = "$top" ] && continue	# "config.h" and the like
			[ "$top" = "$dir" ] && continue
			if [ "$top" = runtime ]; then
				[[ $inc == runtime/abi/* ]] ||
					say "$f: includes $inc (only runtime/abi/ is shared with user space)"
				continue
			fi
			if [ -z "${may[$top]+x}" ]; then
				say "$f: includes $inc, not a compiler folder"
			elif [[ " ${may[$dir]} " != *" $top "* ]] && ! excepted "$f" "$inc"; then
				say "$f: includes $inc ($dir must not depend on $top)"
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
done
for f in runtime/*.[ch] runtime/*/*.[ch]; do
	[ -e "$f" ] || continue
	grep -n '^#include "\(lib\|parser\|semantic\|module\|probes\|target\|elf\|vm\|flame\|stap\)/' "$f" |
		sed "s|^|$f:|; s|\$| (runtime/ is kernel-only)|" | while IFS= read -r l; do echo "$l"; done | grep . && bad=1
done

# 2: family objects and per-family data outside probes/
families=$(sed -n 's/^\t&\([a-z_]*_family\),.*/\1/p' probes/registry.c)
for fam in $families; do
	hits=$(grep -rlw "$fam" --include='*.[ch]' stap module bpf vm flame semantic parser target elf lib 2>/dev/null)
	[ -n "$hits" ] && say "$fam named outside probes/: $hits"
done
if grep -rn '\<PF_[A-Z]\|enum probe_kind' --include='*.[ch]' stap module bpf vm flame semantic parser target elf lib 2>/dev/null; then
	say "a family constant outside probes/"
fi

# 3: the family list is written once
n=$(grep -l '&[a-z_]*_family,' probes/*.c | grep -vc registry.c)
[ "$n" = 0 ] || say "the families are listed outside probes/registry.c"

# 5: backends named by their folder and the driver; families blind to them
for b in $(sed -n 's/^const struct backend \([a-z_]*\) = {.*/\1/p' module/*.c bpf/*.c 2>/dev/null); do
	hits=$(grep -rlw "$b" --include='*.[ch]' probes vm flame semantic parser target elf lib 2>/dev/null)
	[ -n "$hits" ] && say "$b named outside its backend and stap/: $hits"
done
hits=$(grep -l '^#include "semantic/backend.h"' probes/*.[ch] 2>/dev/null)
[ -n "$hits" ] && say "a family includes semantic/backend.h: $hits"

# 4: file sizes
for f in $(git ls-files '*.c' '*.h' '*.y' '*.l' 2>/dev/null); do
	n=$(wc -l <"$f")
	[ "$n" -le 1500 ] || say "$f: $n lines (over 1,500: split it by concern)"
done
exit $bad
