s| at /[^ ]*/tapsets/linux/| at TAPSETS/|
s|/(usr/)?lib/x86_64-linux-gnu/libc|LIBDIR/libc|g
