/^WARNING: Number of errors: 0, skipped probes: [0-9]+$/d
