s/\(address 0x[0-9a-f]+\)/(address ADDR)/
