# the flood may or may not outrun the reader: a loss, if any, must be
# reported against the probe
/^WARNING: [0-9]+ output records lost \(kernel\.trace\("raw_syscalls:sys_enter"\) at output_end_flood\.stp:8:1\)$/d
