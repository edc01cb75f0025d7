# The kernel's NFS server with no user-space tools (as tapset_nfsd_v4.sh:
# a tmpfs at /tmp/nfsx-client exported as NFSv4's root to 127.0.0.1 through the
# caches' channels) and the kernel's NFS client mounting it
# (tapset_nfs_client.py). 6.1's nfs needs fscache, a module of its own
# there only (6.12 builds it into netfs): stap-build copied each kernel's.
for m in sunrpc grace lockd nfs_acl auth_rpcgss nfsd netfs; do
	# loaded already when another test of the same guest boot ran
	insmod /bin/$m.ko 2>/dev/null || grep -q "^$m " /proc/modules || exit 1
done
[ -f fscache-$(uname -r).ko ] && insmod fscache-$(uname -r).ko 2>/dev/null
for m in dns_resolver nfs nfsv4; do
	# loaded already when another test of the same guest boot ran
	insmod /bin/$m.ko 2>/dev/null || grep -q "^$m " /proc/modules || exit 1
done
mkdir -p /proc/fs/nfsd /tmp/nfsx-client
mount -t tmpfs tmpfs /tmp/nfsx-client || exit 1
grep -q " /proc/fs/nfsd " /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || exit 1
echo "-3" >/proc/fs/nfsd/versions
echo 10 >/proc/fs/nfsd/nfsv4gracetime
echo 10 >/proc/fs/nfsd/nfsv4leasetime
echo 1 >/proc/fs/nfsd/threads || exit 1
echo "nfsd 127.0.0.1 2147483647 stapdom" >/proc/net/rpc/auth.unix.ip/channel || exit 1
printf 'stapdom 1 \\x00000000 2147483647 /tmp/nfsx-client\n' >/proc/net/rpc/nfsd.fh/channel || exit 1
# NFSEXP_FSID | NFSEXP_NOSUBTREECHECK | NFSEXP_INSECURE_PORT
echo "stapdom /tmp/nfsx-client 2147483647 9218 65534 65534 0" >/proc/net/rpc/nfsd.export/channel || exit 1
sleep 11
python3 tapset_nfs_client.py
echo 0 >/proc/fs/nfsd/threads
umount /tmp/nfsx-client
exit 0
