s|/[^ ]*/bpf-files/|OUT/|g
