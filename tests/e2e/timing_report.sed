s/cycles: [0-9]+min\/[0-9]+avg\/[0-9]+max, variance: [0-9]+/cycles: Nmin\/Navg\/Nmax, variance: V/
