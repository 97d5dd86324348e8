#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run the vdxg device's qtests against out/qemu (built first by
# scripts/build-qemu.sh, which does nothing when it is up to date), and
# the host unit tests of the device's pure parts (test-vdxg-mmu,
# test-vdxg-3d).
#
# Prints the TAP output and ends with "N passed, N failed". Exits non-zero
# when a test fails, when the test binary dies, or when no test ran.
# Arguments select tests, e.g. -p /x86_64/vdxg/msix to run one (or a
# group: -p /x86_64/vdxg/bar-sizes, or the unit tests: -p /vdxg-mmu).
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$VDXG_TOP/scripts/build-qemu.sh"

QEMU_DIR=$VDXG_OUT/qemu
[ -x "$QEMU_DIR/vdxg-test" ] || die "no $QEMU_DIR/vdxg-test"

TEST_TIMEOUT=${VDXG_QTEST_TIMEOUT:-300}

export QTEST_QEMU_BINARY=$QEMU_DIR/qemu-system-x86_64
# q35 loads its BIOS even under the qtest accelerator.
VDXG_QEMU_ARGS=$(cat "$QEMU_DIR/firmware-args")
export VDXG_QEMU_ARGS

# Each test runs in its own process: a failed assertion aborts the test
# binary, and must not hide the tests after it. The unit tests' binary
# takes the same arguments; it is there once QEMU is built by this tree.
bins=("$QEMU_DIR/vdxg-test")
[ ! -x "$QEMU_DIR/test-vdxg-mmu" ] || bins+=("$QEMU_DIR/test-vdxg-mmu")
[ ! -x "$QEMU_DIR/test-vdxg-3d" ] || bins+=("$QEMU_DIR/test-vdxg-3d")
tests=() tbins=()
for b in "${bins[@]}"; do
	while read -r t; do
		tests+=("$t")
		tbins+=("$b")
	done < <("$b" -l "$@" | grep '^/' || true)
done
if [ "${#tests[@]}" -eq 0 ]; then
	echo "qtest: no test to run" >&2
	echo "0 passed, 0 failed"
	exit 1
fi

# report I: test I's TAP line, and its output when it failed.
report() {
	local t=${tests[$1]} n=$(($1 + 1)) rc out
	rc=$(cat "$tmp/$1.rc")
	out=$(cat "$tmp/$1.out")
	if [ "$rc" -eq 0 ] && grep -qE "^ok 1 $t( |$)" <<<"$out"; then
		passed=$((passed + 1))
		echo "ok $n $t"
	else
		failed=$((failed + 1))
		echo "not ok $n $t"
		[ "$rc" -ne 124 ] || echo "# timed out after $TEST_TIMEOUT s"
		grep -vE '^(ok|not ok|1\.\.)|starting QEMU|^# (Start|End) of ' \
			<<<"$out" | sed 's/^\([^#]\)/# \1/' || true
	fi
}

# Tests run JOBS at a time (VDXG_QTEST_JOBS, default the number of CPUs),
# each into a file of its own; results print in order as they come.
JOBS=${VDXG_QTEST_JOBS:-$(nproc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_one I: test I, its output in $tmp/I.out and its status in $tmp/I.rc.
run_one() {
	local rc=0
	timeout "$TEST_TIMEOUT" "${tbins[$1]}" --tap -p "${tests[$1]}" \
		>"$tmp/$1.out" 2>&1 || rc=$?
	echo "$rc" >"$tmp/$1.rc.tmp"
	mv "$tmp/$1.rc.tmp" "$tmp/$1.rc"
}

echo "1..${#tests[@]}"
passed=0 failed=0 next=0 running=0
for i in "${!tests[@]}"; do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run_one "$i" &
	running=$((running + 1))
	# Print the finished ones, in order.
	while [ -f "$tmp/$next.rc" ]; do
		report "$next"
		next=$((next + 1))
	done
done
wait
while [ "$next" -lt "${#tests[@]}" ]; do
	report "$next"
	next=$((next + 1))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
