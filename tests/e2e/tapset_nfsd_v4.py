# NFSv4.0 COMPOUNDs (RFC 7530) to 127.0.0.1:2049 over TCP with AUTH_SYS
# root credentials, each from the export's root (PUTROOTFH): CREATE
# directory "d", LOOKUP "d", RENAME "d" to "e", REMOVE "e". Prints a
# compound's status and number of results only when it failed.
import socket
import struct

xid = 0x5354b000


def pack_str(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)


def rpc_call(sock, ops):
    global xid
    xid += 1
    cred = struct.pack(">I", 0) + pack_str(b"stap") + struct.pack(">III", 0, 0, 0)
    call = struct.pack(">IIIIII", xid, 0, 2, 100003, 4, 1)
    call += struct.pack(">I", 1) + pack_str(cred) + struct.pack(">II", 0, 0)
    call += pack_str(b"") + struct.pack(">II", 0, len(ops)) + b"".join(ops)
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
    status = struct.unpack(">I", data[off:off + 4])[0]
    taglen = struct.unpack(">I", data[off + 4:off + 8])[0]
    off += 8 + taglen + (-taglen % 4)
    nres = struct.unpack(">I", data[off:off + 4])[0]
    return status, nres


PUTROOTFH = struct.pack(">I", 24)
SAVEFH = struct.pack(">I", 32)


def create_dir(name):
    # CREATE, NF4DIR, the name, no attributes (empty bitmap and list)
    return struct.pack(">II", 6, 2) + pack_str(name) + struct.pack(">II", 0, 0)


def lookup(name):
    return struct.pack(">I", 15) + pack_str(name)


def rename(old, new):
    return struct.pack(">I", 29) + pack_str(old) + pack_str(new)


def remove(name):
    return struct.pack(">I", 28) + pack_str(name)


s = socket.create_connection(("127.0.0.1", 2049), timeout=30)
for what, ops in (("create d", [PUTROOTFH, create_dir(b"d")]),
                  ("lookup d", [PUTROOTFH, lookup(b"d")]),
                  ("rename d e", [PUTROOTFH, SAVEFH, rename(b"d", b"e")]),
                  ("remove e", [PUTROOTFH, remove(b"e")])):
    status, nres = rpc_call(s, ops)
    if status != 0:
        print("%s: status %d, %d results" % (what, status, nres))
s.close()
