# An ONC RPC NULL call (RFC 5531) to NFS version 4 at 127.0.0.1:2049 over
# TCP (one record), AUTH_NONE; prints the reply's accept state.
import socket
import struct

XID = 0x5354a901
call = struct.pack(">IIIIIIIIII", XID, 0, 2, 100003, 4, 0, 0, 0, 0, 0)
s = socket.create_connection(("127.0.0.1", 2049), timeout=20)
s.sendall(struct.pack(">I", 0x80000000 | len(call)) + call)
reply = b""
while len(reply) < 4 + 24:
    chunk = s.recv(4096)
    if not chunk:
        break
    reply += chunk
s.close()
xid, mtype, stat, _, _, accept = struct.unpack(">IIIIII", reply[4:28])
print("null reply xid %#x type %d stat %d accept %d" % (xid, mtype, stat, accept))
