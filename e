/dev/fd/3: line 20: ./stapvm: No such file or directory
