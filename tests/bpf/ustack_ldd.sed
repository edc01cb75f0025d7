s/0x(55|56|7f)[0-9a-f]{10}/0xADDR/g
s|/[^ ]*/bpf-files/|OUT/|g
s|/(usr/)?lib/x86_64-linux-gnu/libc|LIBDIR/libc|g
