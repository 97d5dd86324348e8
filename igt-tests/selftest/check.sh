#!/bin/sh
# SPDX-License-Identifier: MIT
# Check vtest's igt_runner protocol with vtest_selftest: usage check.sh BIN
set -u
BIN=$1 fails=0 checks=0
expect() {	# expect DESCRIPTION COMMAND...
	checks=$((checks + 1))
	d=$1; shift
	if "$@"; then :; else echo "FAIL: $d"; fails=$((fails + 1)); fi
}
out=$("$BIN" --list-subtests); rc=$?
expect "--list-subtests exits 0" [ $rc = 0 ]
expect "--list-subtests lists 6 names" [ "$(echo "$out" | tr '\n' ' ')" = "pass skip fail errno crash timeout " ]
"$BIN" --run-subtest pass >/tmp/vtest.$$ 2>&1; rc=$?
expect "pass exits 0" [ $rc = 0 ]
expect "IGT-Version first" [ "$(head -n1 /tmp/vtest.$$ | cut -c1-13)" = "IGT-Version: " ]
expect "Starting line" grep -qx "Starting subtest: pass" /tmp/vtest.$$
expect "SUCCESS line" grep -qE "^Subtest pass: SUCCESS \([0-9]+\.[0-9]{3}s\)$" /tmp/vtest.$$
"$BIN" --run-subtest skip >/tmp/vtest.$$ 2>&1; rc=$?
expect "skip exits 77" [ $rc = 77 ]
expect "SKIP line" grep -qE "^Subtest skip: SKIP " /tmp/vtest.$$
"$BIN" --run-subtest=fail >/tmp/vtest.$$ 2>&1; rc=$?
expect "fail exits 98" [ $rc = 98 ]
expect "FAIL line" grep -qE "^Subtest fail: FAIL " /tmp/vtest.$$
expect "assertion names file:line and values" grep -q "vtest_selftest.c:[0-9]* test_fail(): assertion failed: 1ull << 20 == 3: 1048576 (0x100000) == 3 (0x3)" /tmp/vtest.$$
"$BIN" --run-subtest errno >/tmp/vtest.$$ 2>&1
expect "errno assertion shows both errnos" grep -q "errno 9 (Bad file descriptor); expected -1, errno 22" /tmp/vtest.$$
"$BIN" --run-subtest crash >/tmp/vtest.$$ 2>&1; rc=$?
expect "crash exits 98" [ $rc = 98 ]
expect "CRASH line" grep -qE "^Subtest crash: CRASH " /tmp/vtest.$$
"$BIN" --run-subtest timeout >/tmp/vtest.$$ 2>&1; rc=$?
expect "TIMEOUT line" grep -qE "^Subtest timeout: TIMEOUT \(1\.[0-9]{3}s\)" /tmp/vtest.$$
"$BIN" --run-subtest 'p*,skip' --hook x --debug >/tmp/vtest.$$ 2>&1; rc=$?
expect "wildcards and lists, ignored options" [ $rc = 0 ] && [ "$(grep -c '^Subtest ' /tmp/vtest.$$)" = 2 ]
"$BIN" --run-subtest nosuch >/dev/null 2>&1; rc=$?
expect "unknown subtest exits 79" [ $rc = 79 ]
"$BIN" --run-subtest pass --dynamic-subtest x >/dev/null 2>&1; rc=$?
expect "--dynamic-subtest exits 79" [ $rc = 79 ]
"$BIN" --bogus >/dev/null 2>&1; rc=$?
expect "unknown option exits 79" [ $rc = 79 ]
IGT_SENTINEL_ON_STDERR=1 "$BIN" --run-subtest pass 2>/tmp/vtest.$$ >/dev/null
expect "sentinels on stderr" grep -qx "Starting subtest: pass" /tmp/vtest.$$
"$BIN" >/tmp/vtest.$$ 2>&1; rc=$?
expect "all subtests: exit 98, six results" [ $rc = 98 ] && [ "$(grep -c '^Subtest ' /tmp/vtest.$$)" = 6 ]
rm -f /tmp/vtest.$$
echo "vtest selftest: $((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
