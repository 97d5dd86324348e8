#!/bin/sh
# SPDX-License-Identifier: MIT
# Run libvdxg's host test programs (vtest protocol) and sum their results:
#   run.sh BIN...
# Prints each program's output, then "libvdxg: N passed, N failed,
# N skipped" (the line scripts/check.sh counts); fails if any failed.
set -u
pass=0 fail=0 skip=0 out=${TMPDIR:-/tmp}/libvdxg-test.$$
trap 'rm -f "$out"' EXIT
for bin in "$@"; do
	"$bin" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -cE '^Subtest .*: SUCCESS ' "$out")
	f=$(grep -cE '^Subtest .*: (FAIL|CRASH|TIMEOUT) ' "$out")
	s=$(grep -cE '^Subtest .*: SKIP ' "$out")
	# A program that failed without reporting a failed subtest failed.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$f" -eq 0 ]; then
		echo "$bin exited $rc"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "libvdxg: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
