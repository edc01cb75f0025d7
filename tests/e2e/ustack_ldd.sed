s/0x[0-9a-f]{12}\b/0xADDR/g
s|/tmp/[^ /]+/e2e-files/|OUT/|g
s|/(usr/)?lib/x86_64-linux-gnu/libc|LIBDIR/libc|g
