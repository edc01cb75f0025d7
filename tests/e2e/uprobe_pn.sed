s|/[^ "]*/e2e-files/|OUT/|g
s|@[^ "]*uprobe_prog\.c|@SRC/uprobe_prog.c|g
