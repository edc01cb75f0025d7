s/^ *[0-9]+ [^(]+\([0-9]+\):/TIME PROC(PID):/
s/m=0x[0-9a-f]+/m=0xADDR/
