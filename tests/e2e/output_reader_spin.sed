/^loader call$/d
