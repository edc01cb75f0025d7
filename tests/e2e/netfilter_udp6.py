# A UDP datagram of each size given to ourselves on the IPv6 loopback
# (::1): whether it was sent and received (e2e/netfilter_ipv6 drops the
# 123-byte one).
import socket
import sys

for size in map(int, sys.argv[1:]):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(("::1", 0))
    s.settimeout(1.0)
    try:
        s.sendto(b"x" * size, s.getsockname())
        sent = "sent"
    except OSError as e:
        sent = "send refused (%s)" % e.strerror
    try:
        got = "received %d bytes" % len(s.recv(4096))
    except socket.timeout:
        got = "nothing received"
    print("%d bytes: %s, %s" % (size, sent, got), flush=True)
    s.close()
