s|/[^ ]*/bpf-(guest-)?files/|OUT/|g
