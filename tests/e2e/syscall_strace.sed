s/0x7f[0-9a-f]{8,}/ADDR/g
s/^kill\([0-9]+,/kill(PID,/
