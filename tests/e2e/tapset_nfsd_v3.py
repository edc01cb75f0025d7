# NFSv3 calls (RFC 1813) to 127.0.0.1:2049 over TCP with AUTH_SYS root
# credentials on the export's root, whose handle is known without the
# MOUNT protocol (version 1, FSID_NUM, fsid 0): CREATE "f" (UNCHECKED,
# mode 0644), LOOKUP "f", WRITE 5 bytes UNSTABLE at 0, COMMIT, READ 5
# bytes at 0, RENAME "f" to "g", REMOVE "g". Prints a call's status
# only when it failed.
import socket
import struct

xid = 0x5354c000
ROOT = bytes([1, 0, 1, 0, 0, 0, 0, 0])


def pack_str(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)


def rpc_call(sock, proc, args):
    global xid
    xid += 1
    cred = struct.pack(">I", 0) + pack_str(b"stap") + struct.pack(">III", 0, 0, 0)
    call = struct.pack(">IIIIII", xid, 0, 2, 100003, 3, proc)
    call += struct.pack(">I", 1) + pack_str(cred) + struct.pack(">II", 0, 0)
    call += args
    sock.sendall(struct.pack(">I", 0x80000000 | len(call)) + call)
    data = b""
    while True:
        hdr = sock.recv(4)
        while len(hdr) < 4:
            hdr += sock.recv(4 - len(hdr))
        n = struct.unpack(">I", hdr)[0]
        frag = b""
        while len(frag) < (n & 0x7FFFFFFF):
            frag += sock.recv((n & 0x7FFFFFFF) - len(frag))
        data += frag
        if n & 0x80000000:
            break
    # xid, REPLY, accepted, verifier (flavor, body), accept state 0
    vlen = struct.unpack(">I", data[16:20])[0]
    off = 20 + vlen + (-vlen % 4) + 4
    return data[off:]


def status_of(res):
    return struct.unpack(">I", res[0:4])[0]


def dirop(fh, name):
    return pack_str(fh) + pack_str(name)


s = socket.create_connection(("127.0.0.1", 2049), timeout=30)
# CREATE: UNCHECKED, sattr3 with the mode set, nothing else
res = rpc_call(s, 8, dirop(ROOT, b"f") + struct.pack(">IIIIIIII", 0, 1, 0o644, 0, 0, 0, 0, 0))
if status_of(res) != 0:
    print("create f: status %d" % status_of(res))
# post_op_fh3: handle_follows, the handle
n = struct.unpack(">I", res[8:12])[0]
fh = res[12:12 + n]
for what, proc, args in (
        ("lookup f", 3, dirop(ROOT, b"f")),
        ("write f", 7, pack_str(fh) + struct.pack(">QII", 0, 5, 0) + pack_str(b"hello")),
        ("commit f", 21, pack_str(fh) + struct.pack(">QI", 0, 0)),
        ("read f", 6, pack_str(fh) + struct.pack(">QI", 0, 5)),
        ("rename f g", 14, dirop(ROOT, b"f") + dirop(ROOT, b"g")),
        ("remove g", 12, dirop(ROOT, b"g"))):
    res = rpc_call(s, proc, args)
    if status_of(res) != 0:
        print("%s: status %d" % (what, status_of(res)))
s.close()
