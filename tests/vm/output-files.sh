#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# output-files.sh - stap -o FILE with switch_file() and -S SIZE[,N]
# (issue 27), as SystemTap 4.8's stapio writes them, on the first kernel
# with headers:
#  - a run in a throwaway guest (--vm): the guest's loader frames the
#    output (staprun -m), stap writes the files. switch_file() without
#    -S: FILE, FILE.1, FILE.2, each with what was printed between the
#    calls (the probe's output before a call stays in the file before);
#    with -S 1,2: FILE.0.. and the oldest removed by a switch; 3,600,000
#    bytes with -S 1,2: FILE.2 (1 MB) and FILE.3 left, their bytes the
#    stream's last ones, FILE.0 and FILE.1 removed.
#  - the loader writing the files itself (staprun -o FILE -S 1,2 in the
#    guest, as on a host that loads modules): the same files.
#  - -S without -o: SystemTap 4.8's error at pass 5, before any boot.
# Before: -S was refused ("not supported yet") and switch_file() unknown.
# Prints PASS/FAIL per check; exits 1 if any check failed, 77 to skip.
# Usage: tests/vm/output-files.sh (STAP=path/to/stap to test another build)

set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
stap=${STAP:-$top_builddir/stap/stap}
stapvm=${STAPVM:-$top_builddir/stap/stapvm}
staprun=${STAPRUN:-$top_builddir/stap/staprun}
t=$(mktemp -d /tmp/stap-output-files.XXXXXX)
bound=300
. "$here/checks.sh"

cleanup() {
	kill_leftovers
	[ -n "${KEEP:-}" ] || rm -rf "$t"
}
trap cleanup EXIT

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$stap" ] || { echo "SKIP: no $stap (build first)"; exit 77; }
r=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' |
	sort -V | head -1)
[ -n "$r" ] || { echo "SKIP: no kernel headers"; exit 77; }

cat >"$t/switch.stp" <<'EOT'
probe begin {
	print("one\n")
	switch_file()
	print("two\n")
	switch_file()
	printf("three\n")
	exit()
}
probe end { println("end") }
EOT
# 36,000 lines of 100 bytes
cat >"$t/big.stp" <<'EOT'
global n
probe begin {
	for (i = 0; i < 36000; i++)
		printf("%099d\n", n++)
	exit()
}
EOT
for ((i = 0; i < 36000; i++)); do printf '%099d\n' $i; done >"$t/big.exp"
mkdir "$t/tmp" "$t/a" "$t/b" "$t/c" "$t/d"
run() { # dir args...
	local d=$1
	shift
	(cd "$t/$d" && TMPDIR=$t/tmp timeout -k 5 $bound "$stap" --vm -r "$r" \
		"$@" >"$t/$d.out" 2>"$t/$d.err")
}
# the files of dir: "NAME SIZE" a line, in name order
files() { (cd "$t/$1" && for f in *; do [ -e "$f" ] && echo "$f $(wc -c <"$f")"; done); }

# the kept files of a -S 1,2 run of big.stp (sizes in $1, "NAME SIZE"
# lines; their bytes in the files $2...): FILE.2 and FILE.3, FILE.2 full
# (1 MB but for the last record that would not fit), together the
# stream's last bytes
check_big() { # label sizes file...
	local label=$1 sizes=$2 s2 s3
	shift 2
	s2=$(sed -n 's/^out\.2 //p' <<<"$sizes")
	s3=$(sed -n 's/^out\.3 //p' <<<"$sizes")
	if [ "$(cut -d' ' -f1 <<<"$sizes" | tr '\n' ' ')" = "out.2 out.3 " ] &&
	   [ "$s2" -le 1048576 ] && [ "$s2" -gt $((1048576 - 65536)) ] &&
	   [ $((2 * 1048576 + s2 + s3)) -ge 3600000 ] &&
	   cat "$@" | cmp -s - <(tail -c $((s2 + s3)) "$t/big.exp"); then
		pass "$label"
	else
		fail "$label" "$(tr '\n' ' ' <<<"$sizes")"
	fi
}

# 1. switch_file() without -S: FILE, FILE.1, FILE.2
run a -o out "$t/switch.stp"
rc=$?
[ $rc = 0 ] && [ "$(files a | tr '\n' ' ')" = "out 4 out.1 4 out.2 10 " ] &&
	[ "$(cat "$t/a/out")" = one ] && [ "$(cat "$t/a/out.1")" = two ] &&
	[ "$(cat "$t/a/out.2")" = "$(printf 'three\nend')" ] &&
	[ ! -s "$t/a.out" ] &&
	pass "switch_file() with -o: out, out.1, out.2, output in order" ||
	fail "switch_file() with -o" "rc $rc: $(files a | tr '\n' ' ') $(tail -3 "$t/a.err")"

# 2. switch_file() with -S 1,2: out.0 removed when out.2 starts
run b -o out -S 1,2 "$t/switch.stp"
rc=$?
[ $rc = 0 ] && [ "$(files b | tr '\n' ' ')" = "out.1 4 out.2 10 " ] &&
	[ "$(cat "$t/b/out.1")" = two ] &&
	pass "switch_file() with -S 1,2: out.1, out.2 kept, out.0 removed" ||
	fail "switch_file() with -S 1,2" "rc $rc: $(files b | tr '\n' ' ') $(tail -3 "$t/b.err")"

# 3. -S 1,2 by size: 3,600,000 bytes in 1 MB files, the last two kept
run c -DMAXACTION=1000000 -o out -S 1,2 "$t/big.stp"
rc=$?
if [ $rc = 0 ]; then
	check_big "-S 1,2 by size (stap writes the guest's files)" \
		"$(files c)" "$t/c/out.2" "$t/c/out.3"
else
	fail "-S 1,2 by size" "rc $rc: $(tail -3 "$t/c.err")"
fi

# 4. the loader writing the files itself: staprun -o FILE -S 1,2 in the
# guest, then the files listed and copied out through its stdout
ko=$(cd "$t/d" && TMPDIR=$t/tmp "$stap" -p4 -r "$r" -DMAXACTION=1000000 \
	"$t/big.stp" 2>"$t/d.err")
cat >"$t/files-loader" <<'EOT'
#!/bin/sh
mkdir /outfiles && cd /outfiles || exit 1
/bin/staprun -o out -S 1,2 "$@" || exit
for f in *; do echo "$f $(wc -c <"$f")"; done
echo ===
cat out.2 out.3
EOT
chmod +x "$t/files-loader"
if [ -n "$ko" ] && (cd "$t/d" && timeout -k 5 $bound "$stapvm" -r "$r" \
	--staprun "$staprun" --file "$t/files-loader" --batch "$t/d/vm" "/bin/files-loader=>$ko" \
	>"$t/d.log" 2>&1); then
	sed '/^===$/,$d' "$t/d/vm/0.stdout" >"$t/d/sizes"
	sed '1,/^===$/d' "$t/d/vm/0.stdout" >"$t/d/kept"
	check_big "-S 1,2 by size (staprun -o writes the files)" \
		"$(cat "$t/d/sizes")" "$t/d/kept"
else
	fail "staprun -o -S 1,2" "$(tail -3 "$t/d.err" "$t/d.log" "$t/d/vm/0.stderr" 2>/dev/null)"
fi

# 5. -S without -o: SystemTap 4.8's message at pass 5 (no boot)
(cd "$t" && TMPDIR=$t/tmp "$stap" --vm -r "$r" -S 1 "$t/switch.stp" \
	>"$t/e.out" 2>"$t/e.err")
rc=$?
[ $rc = 1 ] && [ "$(cat "$t/e.err")" = "ERROR: You have to specify output FILE with '-S' option." ] &&
	pass "-S without -o: refused at pass 5" ||
	fail "-S without -o" "rc $rc: $(cat "$t/e.err")"

[ $fails = 0 ]
