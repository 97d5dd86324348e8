#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make check: every test vdxg has, in stages. Each stage prints its own
# "N passed, N failed[, N skipped]" line; this script adds them up, prints
# the total last and fails if anything failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$VDXG_TOP"

mkdir -p "$VDXG_OUT/logs"
passed=0 failed=0 skipped=0
declare -a report

# stage NAME CMD...: run CMD, log it, take its summary line.
stage() {
	local name=$1 log=$VDXG_OUT/logs/check-$1.log line rc start
	shift
	start=$SECONDS
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" |
	       tail -n1 | sed -E 's/^[A-Za-z-]+: //')
	if [ -n "$line" ]; then
		local p f s
		p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
		s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
		# A stage that failed without counting a failure still failed.
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		passed=$((passed + p)) failed=$((failed + f))
		skipped=$((skipped + ${s:-0}))
	elif [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	report+=("$(printf '%-10s rc=%-3s %4ss  %s' "$name" "$rc" \
		$((SECONDS - start)) "${line:-(one check)}")")
	return "$rc"
}

stage host make -s -C igt-tests check O="$VDXG_OUT/igt-tests"
# Host tests too: libvdxg's builder and reference renderer (own log).
stage host-lib make -s -C libvdxg check O="$VDXG_OUT/libvdxg"
# vm.sh's kernel-problem matcher on sample reports (KASAN, lockdep, ...)
stage host-log scripts/vm-log-selftest.sh
stage kunit scripts/kunit.sh
stage lint make -s lint
if stage qemu make -s qemu; then
	stage qtest scripts/qtest.sh
	# QEMU's generic fuzzer on the device (its own ASan build, cached)
	stage qemu-fuzz env QFUZZ_CONFIG="pf sriov" \
		scripts/qemu-fuzz.sh "${QFUZZ_CHECK_SECONDS:-60}"
	if stage build make -s image; then
		# The debug kernel (cached), vdxg.ko for it, its image. The vm
		# stage runs without it; its debug boots then fail.
		stage debug make -s debug-image
		stage vm scripts/igt.sh
		# make demo itself, and its still against the reference image
		stage demo scripts/demo.sh
		# live migration with clients attached (a few minutes)
		stage migrate scripts/migrate-test.sh --no-build
	fi
fi

echo
echo "=== summary"
printf '%s\n' "${report[@]}"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
