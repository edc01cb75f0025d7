# counts and times vary between kernels and runs: numbers become N (but
# not the pass's)
s/^Pass 5: /Pass-five /
s/[0-9]+/N/g
s/^Pass-five /Pass 5: /
