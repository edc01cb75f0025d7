# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by bench/output.sh and bench/overhead.sh: SystemTap 4.8 beside
# ours in the same guest boots.
#   stap48_init DIR     a copy of 4.8's runtime in DIR/stp48-runtime with
#                       task_work_cancel() renamed to task_work_cancel_func()
#                       (as in bench/turnaround.sh), and stap48_files: the
#                       stapvm --file options that put /usr/bin/staprun,
#                       stapio and their shared libraries in the guest;
#                       fails when 4.8 is not installed or NO_STAP48 is set
#   stap48_build RELEASE NAME SCRIPT [OPTION...]
#                       its pass 4 (NAME.ko in the current directory); on
#                       failure (e.g. 6.12: 4.8's runtime predates it) the
#                       reason on stdout, and a non-zero status
# A job then runs the module with 4.8's loader: "/usr/bin/staprun=>NAME.ko".
stap48_files=()
stap48_dir=
stap48_init() {
	local f
	[ -z "${NO_STAP48:-}" ] && [ -x /usr/bin/stap ] &&
		[ -x /usr/lib/systemtap/stapio ] || return 1
	stap48_dir=$1/stp48-runtime
	cp -r /usr/share/systemtap/runtime "$stap48_dir"
	sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' \
		"$stap48_dir/stp_task_work.c"
	for f in /usr/bin/staprun /usr/lib/systemtap/stapio $(
		ldd /usr/bin/staprun /usr/lib/systemtap/stapio |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' |
		sort -u); do
		stap48_files+=(--file "$f:$f")
	done
}
stap48_build() {
	local release=$1 name=$2 script=$3
	shift 3
	if ! /usr/bin/stap -R "$stap48_dir" -p4 -r "$release" -m "$name" "$@" \
		"$script" >/dev/null 2>stp48.err; then
		echo "SystemTap 4.8: pass 4 failed for $release:" \
			"$(grep -m1 'error:' stp48.err || tail -1 stp48.err)"
		return 1
	fi
}
