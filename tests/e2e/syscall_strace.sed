s/0x[0-9a-f]{8,}/ADDR/g
