#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The source layout's rules (HACKING.md, "Layout"), checked on the tree:
#   1. includes follow the dependency order
#        stap -> probes -> codegen -> semantic -> parser -> target -> elf -> lib
#      (a folder includes its own headers and those of folders after it:
#      elf/, the ELF/DWARF reader, includes only lib/);
#      runtime/ includes no compiler header, and no compiler file includes
#      runtime/ but its user-space ABI (runtime/abi/);
#   2. only probes/ names a probe family: no other compiler folder refers
#      to a family object (*_family) or a family's own data;
#   3. the families are listed once, in probes/registry.c;
#   4. no hand-written source file is over 1,500 lines.
# Prints one line per violation; exit status 1 if there is any.
set -u
cd "$(dirname "$0")/.."
order=(stap probes codegen semantic parser target elf lib)
bad=0
say() { echo "$*"; bad=1; }

rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }

for dir in "${order[@]}"; do
	r=$(rank "$dir")
	for f in "$dir"/*.[chyl]; do
		[ -e "$f" ] || continue
		case $f in parser/grammar.[ch]|parser/lexer.c) continue ;; esac
		while IFS= read -r inc; do
			top=${inc%%/*}
			[ "$inc" = "$top" ] && continue	# "config.h" and the like
			if [ "$top" = runtime ]; then
				[[ $inc == runtime/abi/* ]] ||
					say "$f: includes $inc (only runtime/abi/ is shared with user space)"
				continue
			fi
			tr=$(rank "$top")
			if [ "$tr" -lt 0 ]; then
				say "$f: includes $inc, not a compiler folder"
			elif [ "$tr" -lt "$r" ]; then
				say "$f: includes $inc ($dir must not depend on $top)"
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
done
for f in runtime/*.[ch] runtime/*/*.[ch]; do
	[ -e "$f" ] || continue
	grep -n '^#include "\(lib\|elf\|parser\|semantic\|codegen\|probes\|target\|stap\)/' "$f" |
		sed "s|^|$f:|; s|\$| (runtime/ is kernel-only)|" | while IFS= read -r l; do echo "$l"; done | grep . && bad=1
done

# 2: family objects and per-family data outside probes/
families=$(sed -n 's/^\t&\([a-z_]*_family\),.*/\1/p' probes/registry.c)
for fam in $families; do
	hits=$(grep -rlw "$fam" --include='*.[ch]' stap codegen semantic parser target elf lib 2>/dev/null)
	[ -n "$hits" ] && say "$fam named outside probes/: $hits"
done
if grep -rn 'PF_[A-Z]\|enum probe_kind' --include='*.[ch]' stap codegen semantic parser target elf lib; then
	say "a family constant outside probes/"
fi

# 3: the family list is written once
n=$(grep -l '&[a-z_]*_family,' probes/*.c | grep -vc registry.c)
[ "$n" = 0 ] || say "the families are listed outside probes/registry.c"

# 4: file sizes
for f in $(git ls-files '*.c' '*.h' '*.y' '*.l' 2>/dev/null); do
	n=$(wc -l <"$f")
	[ "$n" -le 1500 ] || say "$f: $n lines (over 1,500: split it by concern)"
done
exit $bad
