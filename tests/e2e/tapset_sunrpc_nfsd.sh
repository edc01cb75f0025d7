# The kernel's NFS server with no user-space tools: nfsd's modules, its
# control file system, NFSv4 only (no rpcbind runs: v4's registration
# is optional), one thread (it opens TCP and UDP port 2049 and registers
# with rpcbind, which fails), an RPC NULL call to it over TCP from
# tapset_sunrpc_null.py, then no threads (the service is destroyed).
for m in sunrpc grace lockd nfs_acl auth_rpcgss nfsd; do
	# loaded already when another test of the same guest boot ran
	insmod /bin/$m.ko 2>/dev/null || grep -q "^$m " /proc/modules || exit 1
done
mkdir -p /proc/fs/nfsd
grep -q " /proc/fs/nfsd " /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || exit 1
echo "-3" >/proc/fs/nfsd/versions
echo 1 >/proc/fs/nfsd/threads || exit 1
python3 tapset_sunrpc_null.py
echo 0 >/proc/fs/nfsd/threads
sleep 1
exit 0
