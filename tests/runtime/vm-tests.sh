# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the test VM (sourced by its /init); prints only deterministic
# text between the BEGIN and END markers, compared with expected.txt.
echo "=== BEGIN"
run() {		# run NAME [staprun options...]: stdout, stderr, exit status
	name=$1; shift
	echo "--- $name"
	/staprun "$@" /t_$name.ko >/tmp/out 2>/tmp/err
	echo "rc=$?"
	if [ "$name" = flood ]; then
		wc -l </tmp/out; tail -n 2 /tmp/out
	else
		cat /tmp/out
	fi
	echo "stderr:"
	# how far past MAXSKIPPED the count gets depends on timing
	sed 's/skipped probes: 10[1-9]$/skipped probes: 101+/' /tmp/err
}
echo "--- print (-o, byte-exact md5 of print.expected)"
/staprun -o /tmp/p.out /t_print.ko; echo "rc=$?"
md5sum /tmp/p.out | cut -d' ' -f1
run events
run events -x 42
run maxaction
run divzero
run notp
run endfail
run flood
run contend
# vfs_read's hits come from a reader of its own (the shell's read: cat
# may use sendfile): the loader reads nothing
# while it has no data
( i=0; while [ $i -lt 40 ]; do read -r v </proc/version
	sleep 0.05; i=$((i + 1)); done ) & reader=$!
run kfunc
wait $reader
run nokfunc
run kfrefused
echo "--- forever (SIGINT after 2 s)"
/staprun /t_forever.ko >/tmp/out 2>&1 & p=$!
sleep 2; kill -INT $p; wait $p; echo "rc=$?"; cat /tmp/out
echo "--- forever (-c 'sleep 1')"
/staprun -c 'sleep 1; echo child done' /t_forever.ko >/tmp/out 2>&1
echo "rc=$?"; sed 's/target=[0-9][0-9]*$/target=PID/' /tmp/out
echo "--- forever (module already loaded)"
/staprun /t_forever.ko >/tmp/out 2>&1 & p=$!
sleep 1; /staprun /t_forever.ko; echo "second rc=$?"
kill -TERM $p; wait $p; echo "rc=$?"; cat /tmp/out
echo "--- missing module"
/staprun /nope.ko; echo "rc=$?"
echo "--- loader killed, then rmmod"
/staprun /t_forever.ko >/dev/null 2>&1 & p=$!
sleep 1; kill -KILL $p; wait $p 2>/dev/null
rmmod t_forever; echo "rmmod rc=$?"
echo "--- kernel log"
dmesg | grep -E 'BUG:|Oops|WARNING:|general protection|Call Trace' || echo clean
echo "--- modules left"
lsmod | grep -c '^t_' || true
echo "=== END"
