# A UDP datagram of each size given to ourselves on the loopback: whether
# it was sent and received (e2e/netfilter_drop drops the 123-byte one).
import socket
import sys

for size in map(int, sys.argv[1:]):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
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
