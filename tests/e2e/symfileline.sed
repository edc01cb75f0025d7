/^ 0x/{/ at /!d}
s/^ 0x[0-9a-f]+ : ([a-z_0-9]+)\+0x[0-9a-f]+\/0x[0-9a-f]+ at ([a-z_/.]+):[0-9]+ \[kernel\]$/ 0xADDR : \1+OFF\/SIZE at \2:LINE [kernel]/
