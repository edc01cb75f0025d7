/^abcdefghijklmno$/d
