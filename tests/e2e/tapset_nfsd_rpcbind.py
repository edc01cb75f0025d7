# A stand-in rpcbind for the guest's NFSv3 server (the kernel registers
# NFSv3 and NLM with rpcbind when nfsd starts, and fails without one):
# it listens where the kernel's rpcb client looks for rpcbind, the
# abstract AF_LOCAL address (6.12), /var/run/rpcbind.sock and TCP
# 127.0.0.1:111 (6.1), and answers every call (SET, UNSET, any version)
# with an accepted reply whose result is TRUE. Runs until killed.
import os
import socket
import struct
import threading


def serve(conn):
    try:
        while True:
            data = b""
            while True:
                hdr = conn.recv(4)
                if len(hdr) < 4:
                    return
                n = struct.unpack(">I", hdr)[0]
                frag = b""
                while len(frag) < (n & 0x7FFFFFFF):
                    chunk = conn.recv((n & 0x7FFFFFFF) - len(frag))
                    if not chunk:
                        return
                    frag += chunk
                data += frag
                if n & 0x80000000:
                    break
            xid = data[0:4]
            reply = xid + struct.pack(">IIIIII", 1, 0, 0, 0, 0, 1)
            conn.sendall(struct.pack(">I", 0x80000000 | len(reply)) + reply)
    finally:
        conn.close()


def listen(family, address):
    s = socket.socket(family, socket.SOCK_STREAM)
    if family == socket.AF_INET:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        if family == socket.AF_UNIX and address[0] != "\0":
            os.unlink(address)
    except OSError:
        pass
    s.bind(address)
    s.listen(8)
    return s


def accept_all(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


listeners = [listen(socket.AF_UNIX, "\0/run/rpcbind.sock"),
             listen(socket.AF_INET, ("127.0.0.1", 111))]
try:
    listeners.append(listen(socket.AF_UNIX, "/var/run/rpcbind.sock"))
except OSError:
    pass
for s in listeners[1:]:
    threading.Thread(target=accept_all, args=(s,), daemon=True).start()
open(os.environ.get("READY", "/tmp/rpcbind.ready"), "w").close()
accept_all(listeners[0])
