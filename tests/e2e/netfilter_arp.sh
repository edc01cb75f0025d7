# An ARP request out of one end of a veth pair to the other (the pair's
# addresses fixed): e2e/netfilter_arp watches it leave and arrive.
# iproute2's ip (this machine's, through the guest's view of its files):
# busybox's (the guest's /usr/sbin/ip) cannot name a veth's peer.
ip=/host/usr/bin/ip
[ -x $ip ] || ip=/host/usr/sbin/ip
insmod /bin/veth.ko 2>/dev/null
$ip link add nfa0 address 02:00:00:00:00:01 type veth \
	peer name nfa1 address 02:00:00:00:00:02 || exit 1
$ip addr add 10.9.0.1/24 dev nfa0
$ip link set nfa0 up
$ip link set nfa1 up
# the kernel asks (arping would send from user space, past NF_ARP_OUT)
busybox ping -c 1 -W 1 10.9.0.2 >/dev/null
exit 0
