# SPDX-License-Identifier: GPL-2.0-or-later
# checks.sh - sourced by the tests in tests/vm (they drive stap, the VM
# runner and their guests from the host): a PASS/FAIL line per check
# (fails counts them), and waiting for something a guest or a signal is
# about to do; with $t, the test's own directory, what of the test is
# still running (anything of it has $t in its command line: qemu's
# -initrd, kbuild's M=, a kept guest's directory, the script's path).

fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1${2:+ ($2)}"; fails=$((fails + 1)); }

# wait (up to $2 tenths of a second) until command $1 succeeds
wait_for() {
	local i
	for ((i = 0; i < $2; i++)); do
		eval "$1" && return 0
		sleep 0.1
	done
	return 1
}

leftovers() { pgrep -f "$t/" | grep -v "^$$\$"; }
kill_leftovers() {
	local p
	for p in $(leftovers); do kill -9 "$p" 2>/dev/null; done
}
