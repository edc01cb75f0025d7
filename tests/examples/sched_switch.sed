s/^second ([0-9]): [0-9]+ context switches$/second \1: N context switches/
