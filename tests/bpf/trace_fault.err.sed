$!N
s/at 0x[0-9a-f]+ near/at 0xADDR near/g
s/Number of errors: [0-9]+,/Number of errors: N,/g
/^(.*)\n\1$/!P
D
