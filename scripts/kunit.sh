#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# KUnit tests of the driver's pure logic, in a VM on the debug kernel
# (KASAN, lockdep, kmemleak, DEBUG_OBJECTS: scripts/debug-kernel.config,
# which has CONFIG_KUNIT=y):
#
#   scripts/kunit.sh [--no-build] [--filter GLOB]
#
#   --no-build     use the debug image as it is (make debug-image)
#   --filter GLOB  only the tests GLOB names (kunit.filter_glob, e.g.
#                  'vdxg_res*' or 'vdxg_pt.*map*')
#
# `make debug-module` builds vdxg_kunit.ko, the tests and the logic they
# test without the driver, with W=1 and no warning allowed; the debug
# image carries it. The guest loads it, KUnit runs the suites and logs
# KTAP, and the guest unloads it (kmemleak then scans). kunit.py from the
# debug kernel's source tree parses the log. The same tests also run
# under UML, without this script:
#
#   ./tools/testing/kunit/kunit.py run --kunitconfig=drivers/gpu/drm/vdxg
#
# The last line is "N passed, N failed"; the exit status is non-zero when a
# test failed or crashed, nothing ran, the build failed or warned, or the
# kernel reported a problem (scripts/vm.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$VDXG_TOP"

BUILD=1
FILTER=
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) BUILD=0 ;;
	--filter) FILTER=${2:?--filter needs a glob}; shift ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done

summary() {
	echo "$1 passed, $2 failed"
}

if [ "$BUILD" = 1 ]; then
	make -s debug-image >"$VDXG_OUT/logs/kunit-build.log" 2>&1 || {
		tail -n 40 "$VDXG_OUT/logs/kunit-build.log" >&2
		echo "kunit: make debug-image failed (log: $VDXG_OUT/logs/kunit-build.log)" >&2
		summary 0 0
		exit 1
	}
fi
tarball=$(vdxg_linux_tarball)
kunitpy=$VDXG_CACHE/debug-kernel/src-$(vdxg_linux_source_key "$tarball")/tools/testing/kunit/kunit.py
[ -f "$kunitpy" ] || die "no $kunitpy (scripts/build-debug-kernel.sh)"

# KUnit is off by default there (allnoconfig: no KUNIT_DEFAULT_ENABLED),
# so that the other debug boots run no tests.
append=kunit.enable=1
[ -z "$FILTER" ] || append="$append kunit.filter_glob=$FILTER"
run=$VDXG_OUT/vm/kunit
log=$VDXG_OUT/logs/kunit.log
mkdir -p "$VDXG_OUT/logs"
set +e
scripts/vm.sh --kernel debug --name kunit --timeout 900 --quiet \
	--append "$append" -- \
	'modprobe vdxg_kunit && modprobe -r vdxg_kunit'
vm_rc=$?
set -e

# The module's KTAP: from its header (the last unindented "KTAP version",
# the built-in one of an empty set comes first) to the end, without the
# printk time stamps.
mkdir -p "$run"
ktap=$run/kunit.ktap
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$run/dmesg.txt" 2>/dev/null |
	awk '/^KTAP version/ { n = 0; delete l } { l[n++] = $0 }
	     END { for (i = 0; i < n; i++) print l[i] }' >"$ktap"
python3 "$kunitpy" parse "$ktap" >"$log" 2>&1
cat "$log"

# "Testing complete. Ran 47 tests: passed: 45, failed: 1, crashed: 1"
line=$(grep -oE 'Testing complete\. Ran [0-9]+ tests:.*' "$log" | tail -n1 ||
       true)
count() {
	sed -nE "s/.*[:,] $1: ([0-9]+).*/\\1/p" <<<"$line" | head -n1 |
		grep . || echo 0
}
ran=$(sed -nE 's/.*Ran ([0-9]+) tests.*/\1/p' <<<"$line")
passed=$(count passed)
failed=$(( $(count failed) + $(count crashed) ))
errors=$(count errors)

echo
if [ -z "$line" ] || [ "${ran:-0}" -eq 0 ]; then
	echo "kunit: no test ran (vm.sh exit status $vm_rc); logs: $run/" >&2
	summary 0 0
	exit 1
fi
[ "$errors" -eq 0 ] || echo "kunit: $errors error(s) parsing the test output" >&2
[ "$vm_rc" -eq 0 ] ||
	echo "kunit: the VM run failed (exit status $vm_rc; logs: $run/)" >&2
if [ "$vm_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
fi
summary "$passed" "$failed"
[ "$vm_rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$errors" -eq 0 ]
