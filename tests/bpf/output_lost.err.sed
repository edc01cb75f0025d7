s/^WARNING: [0-9]+ output records lost$/WARNING: N output records lost/
