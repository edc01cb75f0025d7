s/^begin stapbpf \(target\)$/begin stap (target)/
