# The kernel's NFS server with no user-space tools, serving a tmpfs at
# /tmp/nfsx-v3 (fsid 0) to 127.0.0.1 over NFSv3: what mountd would
# answer nfsd's cache upcalls with is written to the caches' channels
# (the client's domain, the fsid's path, the export: fsid, no subtree
# check, insecure ports; expiry in 2038). Then seven NFSv3 calls
# (tapset_nfsd_v3.py) after the NFSv4 grace period (as tapset_nfsd_v4's).
for m in sunrpc grace lockd nfs_acl auth_rpcgss nfsd; do
	# loaded already when another test of the same guest boot ran
	insmod /bin/$m.ko 2>/dev/null || grep -q "^$m " /proc/modules || exit 1
done
mkdir -p /proc/fs/nfsd /tmp/nfsx-v3
mount -t tmpfs tmpfs /tmp/nfsx-v3 || exit 1
grep -q " /proc/fs/nfsd " /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || exit 1
# the v4 tests turn NFSv3 off (allowed while no thread runs)
echo "+3" >/proc/fs/nfsd/versions
# the shortest grace period (rename and remove wait for its end)
echo 10 >/proc/fs/nfsd/nfsv4gracetime
echo 10 >/proc/fs/nfsd/nfsv4leasetime
# nfsd registers NFSv3 with rpcbind when it starts: a stand-in answers
rm -f /tmp/rpcbind.ready
python3 tapset_nfsd_rpcbind.py &
rpcbind=$!
while [ ! -e /tmp/rpcbind.ready ]; do sleep 0.1; done
echo 1 >/proc/fs/nfsd/threads || { kill $rpcbind; exit 1; }
echo "nfsd 127.0.0.1 2147483647 stapdom" >/proc/net/rpc/auth.unix.ip/channel || exit 1
printf 'stapdom 1 \\x00000000 2147483647 /tmp/nfsx-v3\n' >/proc/net/rpc/nfsd.fh/channel || exit 1
# NFSEXP_FSID | NFSEXP_NOSUBTREECHECK | NFSEXP_INSECURE_PORT
echo "stapdom /tmp/nfsx-v3 2147483647 9218 65534 65534 0" >/proc/net/rpc/nfsd.export/channel || exit 1
sleep 11
python3 tapset_nfsd_v3.py
echo 0 >/proc/fs/nfsd/threads
kill $rpcbind
umount /tmp/nfsx-v3
exit 0
