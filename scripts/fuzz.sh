#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make fuzz: boot the VM with the vdxg device and run vdxg_fuzz (igt-tests/
# vdxg_fuzz.c) for FUZZ_SECONDS (default 600) with FUZZ_WORKERS workers
# (default 4). The knobs reach the test on the kernel command line as
# vdxg_test.fuzz_seconds and vdxg_test.fuzz_workers (the test also takes
# VDXG_FUZZ_SECONDS etc. from its environment); VTEST_SEED=N replays a run.
# The run fails on the test's failure and, through scripts/vm.sh, on any
# kernel WARN, BUG, oops or lockdep report. The output (ops/s, totals,
# errnos per operation) is kept in out/fuzz.txt; the VM run in out/vm/fuzz/.
# FUZZ_VM_ARGS adds scripts/vm.sh options, e.g. "--kernel debug" where
# vm.sh boots the debug kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SECONDS_=${FUZZ_SECONDS:-600}
WORKERS=${FUZZ_WORKERS:-4}
[[ $SECONDS_ =~ ^[0-9]+$ && $WORKERS =~ ^[0-9]+$ ]] ||
	die "FUZZ_SECONDS and FUZZ_WORKERS want numbers"
APPEND="vdxg_test.fuzz_seconds=$SECONDS_ vdxg_test.fuzz_workers=$WORKERS"
[ -z "${FUZZ_KILL_MS:-}" ] || APPEND+=" vdxg_test.fuzz_kill_ms=$FUZZ_KILL_MS"
ENV="VTEST_TIMEOUT=$((SECONDS_ + 600))"
[ -z "${VTEST_SEED:-}" ] || ENV+=" VTEST_SEED=$VTEST_SEED"

rc=0
# shellcheck disable=SC2086 # FUZZ_VM_ARGS is a list of options
"$VDXG_TOP/scripts/vm.sh" --name fuzz --timeout $((SECONDS_ + 900)) \
	--load vdxg --append "$APPEND" ${FUZZ_VM_ARGS:-} -- \
	"$ENV /opt/vdxg/igt-tests/vdxg_fuzz" || rc=$?
cp "$VDXG_OUT/vm/fuzz/output.log" "$VDXG_OUT/fuzz.txt" 2>/dev/null || true
echo "fuzz.sh: status $rc; $VDXG_OUT/fuzz.txt, $VDXG_OUT/vm/fuzz/"
exit "$rc"
