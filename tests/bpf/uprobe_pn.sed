s|/[^ "]*/bpf-(guest-)?files/|OUT/|g
s|@[^ "]*/e2e/uprobe_prog\.c|@SRC/uprobe_prog.c|g
