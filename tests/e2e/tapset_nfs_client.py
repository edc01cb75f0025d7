# Mounts the guest's own NFS server's root (NFSv4.2 over 127.0.0.1) at
# /tmp/nfsm and works on a file there: writes "hello nfs\n" to f and
# fsyncs it, sets O_APPEND (fcntl F_SETFL), reads it back, maps it, locks
# and unlocks it, then unmounts. Prints only what failed (the module's
# output and this program's are not ordered).
import ctypes
import fcntl
import mmap
import os

libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("/tmp/nfsm", exist_ok=True)
if libc.mount(b"127.0.0.1:/", b"/tmp/nfsm", b"nfs4", 0,
              b"vers=4.2,addr=127.0.0.1,proto=tcp") != 0:
    raise SystemExit("mount: %s" % os.strerror(ctypes.get_errno()))
fd = os.open("/tmp/nfsm/f", os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
os.write(fd, b"hello nfs\n")
os.fsync(fd)
fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)
data = os.pread(fd, 64, 0)
m = mmap.mmap(fd, 10, prot=mmap.PROT_READ)
mapped = m[:5]
m.close()
fcntl.lockf(fd, fcntl.LOCK_EX)
fcntl.lockf(fd, fcntl.LOCK_UN)
os.close(fd)
if data != b"hello nfs\n" or mapped != b"hello":
    print("read %r, mapped %r" % (data, mapped))
if libc.umount2(b"/tmp/nfsm", 0) != 0:
    raise SystemExit("umount: %s" % os.strerror(ctypes.get_errno()))
