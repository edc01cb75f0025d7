# A bridge with the kernel's spanning tree on and one port (an end of a
# veth pair, the addresses fixed): e2e/netfilter_bridge watches the
# configuration BPDUs the bridge sends out of it (every 2 s, hello time).
# iproute2's ip (this machine's, through the guest's view of its files):
# busybox's (the guest's /usr/sbin/ip) cannot make bridges or veths.
ip=/host/usr/bin/ip
[ -x $ip ] || ip=/host/usr/sbin/ip
for m in llc stp bridge veth; do insmod /bin/$m.ko 2>/dev/null; done
$ip link add nfbr0 address 02:00:00:00:00:10 type bridge stp_state 1 || exit 1
$ip link add nfb0 address 02:00:00:00:00:01 type veth \
	peer name nfb1 address 02:00:00:00:00:02 || exit 1
$ip link set nfb0 master nfbr0 || exit 1
$ip link set nfb1 up
$ip link set nfb0 up
$ip link set nfbr0 up
sleep 5
exit 0
