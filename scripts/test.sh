#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Set up (packages, the test tools among them, build) and run the whole
# test suite. The last line is
# "N passed, N failed, N skipped"; the exit status is non-zero on failure.
set -u
cd "$(dirname "$0")/.."
if ! ./scripts/setup.sh --test; then
	echo "setup failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
# the unit test binaries (make check would also run the suite)
if ! make -s -j"$(nproc)" check TESTS= >/dev/null; then
	echo "building the tests failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
exec tests/run-tests.sh "$@"
