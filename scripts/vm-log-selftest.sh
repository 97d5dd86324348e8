#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Self-test of scripts/vm.sh's kernel-problem matcher (vm.sh --check-log)
# on the sample logs in scripts/testdata/kernel-logs/: each bad-*.txt (a
# KASAN, lockdep, RCU-lockdep, sleep-in-atomic, kmemleak, DEBUG_OBJECTS or
# KFENCE report) must be flagged, each good-*.txt (a clean debug-kernel
# boot, with the VM's clocksource noise) must not. Prints
# "N passed, N failed" last.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

passed=0 failed=0
for f in "$VDXG_TOP"/scripts/testdata/kernel-logs/*.txt; do
	name=${f##*/}
	"$VDXG_TOP/scripts/vm.sh" --check-log "$f" >/dev/null 2>&1
	rc=$?
	case $name in
	bad-*) want=126 ;;
	good-*) want=0 ;;
	*) echo "vm-log-selftest: $name is neither bad-* nor good-*" >&2
	   failed=$((failed + 1)); continue ;;
	esac
	if [ "$rc" = "$want" ]; then
		echo "ok   $name (exit $rc)"
		passed=$((passed + 1))
	else
		echo "FAIL $name: vm.sh --check-log exited $rc, want $want"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
