#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# QEMU's generic fuzzer (tests/qtest/fuzz/generic_fuzz.c, libFuzzer) on the
# vdxg device, for a bounded time:
#
#   scripts/qemu-fuzz.sh [SECONDS]           default $QFUZZ_SECONDS or 120
#   QFUZZ_CONFIG=sriov scripts/qemu-fuzz.sh  another configuration (below;
#                                            "pf sriov": one run each)
#   scripts/qemu-fuzz.sh --repro FILE        run one input again, and write
#                                            its qtest trace
#
# qemu-fuzz-x86_64 comes from scripts/build-qemu.sh --fuzz (clang, ASan,
# cached like the normal build). The fuzzer turns each input into PIO,
# MMIO, PCI config accesses, DMA patterns and clock steps on the memory
# regions that QEMU_FUZZ_OBJECTS matches, and resets the machine after it.
# The corpus is kept in out/qemu-fuzz-run/CONFIG/corpus across runs.
#
# Prints libFuzzer's final stats (executions, exec/s, coverage) and
# "qemu-fuzz: N passed, N failed". A crash (ASan report, abort, assertion),
# a hang longer than QFUZZ_TIMEOUT seconds or an input using more than
# QFUZZ_RSS_MB fails it; the input is kept in out/qemu-fuzz-run/CONFIG/,
# with its stack (.log) and a qtest trace (.trace) that the normal QEMU
# replays:
#   out/qemu/qemu-system-x86_64 $(cat out/qemu/firmware-args) ARGS \
#       -qtest stdio < out/qemu-fuzz-run/CONFIG/crash-....trace
# (ARGS: the .trace.args file). QFUZZ_FLAGS adds libFuzzer options
# (-use_value_profile=1, -jobs=N ...). The trace is reordered by QEMU's
# scripts/oss-fuzz/reorder_fuzzer_qtest_trace.py; QEMU's
# scripts/oss-fuzz/minimize_qtest_trace.py shortens it further.
set -uo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONFIG=${QFUZZ_CONFIG:-pf}
TIMEOUT=${QFUZZ_TIMEOUT:-10}
RSS_MB=${QFUZZ_RSS_MB:-4096}
MAX_LEN=${QFUZZ_MAX_LEN:-4096}

repro=
if [ "${1:-}" = --repro ]; then
	repro=${2:?"usage: $0 --repro FILE"}
	repro=$(realpath "$repro")
	SECONDS_=0
else
	SECONDS_=${1:-${QFUZZ_SECONDS:-120}}
fi

# QFUZZ_CONFIG="pf sriov": a run of SECONDS for each, and a total.
if [ -z "$repro" ] && [ "$CONFIG" != "${CONFIG%% *}" ]; then
	passed=0 failed=0
	for c in $CONFIG; do
		if QFUZZ_CONFIG=$c "$0" "$SECONDS_"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
	echo "qemu-fuzz: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi

# The configurations: QEMU_FUZZ_ARGS and QEMU_FUZZ_OBJECTS.
#   pf     vdxg on the q35 root complex, with all 4 outputs: the fuzzer
#          maps its BARs and fuzzes the registers (vdxg.mmio), the MSI-X
#          table and PBA, its config space (PCI ops) and the engines' DMA
#          from guest memory. SR-IOV needs a PCI Express port above the PF.
#   sriov  the PF behind a root port (bus 1) with its VFs. generic-fuzz
#          maps BARs on bus 0 only, so it gets ECAM and the config space
#          of the root port and of the host bridge instead,
#          and a seed (scripts/qemu-fuzz-seed.py) that turns ECAM on and
#          programs the bridge, the PF, its SR-IOV capability and the VFs.
case $CONFIG in
pf)
	ARGS="-machine q35 -nodefaults -vga none -device vdxg,outputs=4"
	OBJECTS="vdxg"
	;;
sriov)
	ARGS="-machine q35 -nodefaults -vga none
		-device pcie-root-port,id=rp0,bus=pcie.0,addr=05.0,chassis=1
		-device vdxg,bus=rp0,outputs=4,total-vfs=4"
	# Memory regions by name (their QOM names end in "[N]"): matching
	# the type vdxg would have generic-fuzz map the PF's BARs through
	# 00.0, the host bridge, at bus 0.
	# The host bridge (mch, 00.0) is matched for its PCIEXBAR: the
	# fuzzer's port writes to 0xcf8 can only be bytes (0xcf9 is another
	# region), so config cycles go through ECAM.
	OBJECTS="pcie-root-port mch pcie-mmcfg-mmio* vdxg.mmio* vdxg-vf.*
		msix-*"
	;;
*) die "unknown QFUZZ_CONFIG=$CONFIG (pf or sriov)" ;;
esac

"$VDXG_TOP/scripts/build-qemu.sh" --fuzz || exit 1
FUZZ_DIR=$VDXG_OUT/qemu-fuzz
BIN=$FUZZ_DIR/qemu-fuzz-x86_64
[ -x "$BIN" ] || die "no $BIN"

RUN=$VDXG_OUT/qemu-fuzz-run/$CONFIG
CORPUS=$RUN/corpus
SEEDS=$RUN/seeds
mkdir -p "$CORPUS"
rm -rf "$SEEDS"
python3 "$VDXG_TOP/scripts/qemu-fuzz-seed.py" "$CONFIG" "$SEEDS" ||
	die "no seeds"

# one_line WORDS: WORDS on one line, single spaces
one_line() { tr -s ' \t\n' '   ' <<<"$1" | sed 's/ $//'; }

# q35 loads its BIOS even under qtest.
QEMU_FUZZ_ARGS="$(cat "$FUZZ_DIR/firmware-args") $(one_line "$ARGS")"
QEMU_FUZZ_OBJECTS=$(one_line "$OBJECTS")
export QEMU_FUZZ_ARGS QEMU_FUZZ_OBJECTS
# A DMA read fills only the bytes not read yet in the same fuzzer command,
# as it does when a crash is replayed (QTEST_LOG): reproducible inputs,
# and the seeds rely on it.
export QEMU_AVOID_DOUBLE_FETCH=1
# LeakSanitizer reports at exit what QEMU never frees; not our findings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}

# trace INPUT: INPUT.trace (replayable qtest commands) and INPUT.trace.args
# (QEMU's arguments, less the fuzzer's own).
trace() {
	local in=$1 raw=$1.trace-raw
	QTEST_LOG=1 FUZZ_SERIALIZE_QTEST=1 "$BIN" --fuzz-target=generic-fuzz \
		-runs=1 "$in" >"$raw" 2>&1
	sed -n 's/^Starting .* with Arguments: //p' "$raw" | head -n1 |
		sed -e 's/ -qtest \/dev\/null.*//' -e 's/ -qtest-log none//' \
		>"$in.trace.args"
	python3 "$FUZZ_DIR/reorder_fuzzer_qtest_trace.py" "$raw" \
		>"$in.trace" 2>/dev/null || true
	rm -f "$raw"
}

# The vdxg frames of a crash's stack (its signature), one a line.
vdxg_frames() {
	grep -E '^ *#[0-9]+ 0x[0-9a-f]+ in [^ ]+ .*hw/display/vdxg' "$1" |
		sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ in ([^ ]+) .*\/(hw\/display\/[^ ]+)$/\1 \2/' |
		head -n 8
}

if [ -n "$repro" ]; then
	"$BIN" --fuzz-target=generic-fuzz -runs=1 "$repro"
	rc=$?
	trace "$repro"
	echo "qemu-fuzz: trace $repro.trace, QEMU arguments $repro.trace.args"
	exit "$rc"
fi

# Each seed replayed once: no device fault, and a seed that runs an
# engine (seed-render*, seed-paging*) reaches its FENCE. A seed whose
# data no longer matches what the device reads stops at a fault, and the
# fuzzer then starts from far less than the seed claims to cover.
seed_traces="-trace vdxg_fault -trace vdxg_rd_fence -trace vdxg_pg_fence"
bad_seeds=0
for seed in "$SEEDS"/*; do
	out=$(QEMU_FUZZ_ARGS="$QEMU_FUZZ_ARGS $seed_traces" \
		"$BIN" --fuzz-target=generic-fuzz -runs=1 "$seed" 2>&1)
	why=
	if grep -q '^vdxg_fault ' <<<"$out"; then
		why=$(grep -m1 '^vdxg_fault ' <<<"$out")
	else
		case ${seed##*/} in
		seed-render*|seed-paging*)
			grep -qE '^vdxg_(rd|pg)_fence ' <<<"$out" ||
				why="no FENCE ran" ;;
		esac
	fi
	if [ -n "$why" ]; then
		echo "qemu-fuzz: $CONFIG: seed ${seed##*/}: $why" >&2
		bad_seeds=$((bad_seeds + 1))
	fi
done
if [ "$bad_seeds" != 0 ]; then
	echo "qemu-fuzz: $CONFIG: $bad_seeds seeds do not run as written"
	echo "qemu-fuzz: 0 passed, 1 failed"
	exit 1
fi

log=$RUN/fuzz.log
echo "qemu-fuzz: $CONFIG for ${SECONDS_}s, corpus $CORPUS" \
     "($(find "$CORPUS" -type f | wc -l) inputs)"
echo "qemu-fuzz: QEMU_FUZZ_ARGS=$QEMU_FUZZ_ARGS"
echo "qemu-fuzz: QEMU_FUZZ_OBJECTS=$QEMU_FUZZ_OBJECTS"
read -r -a flags <<<"${QFUZZ_FLAGS:-}"
(cd "$RUN" && "$BIN" --fuzz-target=generic-fuzz \
	-max_total_time="$SECONDS_" -timeout="$TIMEOUT" \
	-rss_limit_mb="$RSS_MB" -max_len="$MAX_LEN" \
	-print_final_stats=1 -artifact_prefix="$RUN/" \
	${QFUZZ_SEED:+-seed=$QFUZZ_SEED} "${flags[@]}" \
	"$CORPUS" "$SEEDS") >"$log" 2>&1
rc=$?

# The matched regions, the progress lines worth seeing, the stats.
grep -E '^(Matching objects|  \* |INFO: Seed|#[0-9]+[[:space:]]+(INITED|DONE))' "$log" |
	head -n 40
grep -E '^stat::' "$log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n1)

artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
if [ "$rc" -eq 0 ] && [ -z "$artifact" ]; then
	echo "qemu-fuzz: $CONFIG: ${execs:-?} executions in ${SECONDS_}s" \
	     "(${speed:-?}/s), $cov, no crash"
	echo "qemu-fuzz: 1 passed, 0 failed"
	exit 0
fi

echo "qemu-fuzz: $CONFIG: FAILED (libFuzzer rc=$rc) after ${execs:-?}" \
     "executions; last lines of $log:"
grep -nE 'ERROR: |SUMMARY: |==[0-9]+==|#[0-9]+ 0x' "$log" | head -n 40
if [ -n "$artifact" ] && [ -f "$artifact" ]; then
	cp "$log" "$artifact.log"
	echo "qemu-fuzz: vdxg frames:"
	vdxg_frames "$log" | sed 's/^/    /'
	trace "$artifact"
	echo "qemu-fuzz: input $artifact"
	echo "qemu-fuzz: again: scripts/qemu-fuzz.sh --repro $artifact" \
	     "(QFUZZ_CONFIG=$CONFIG)"
	echo "qemu-fuzz: qtest trace: out/qemu/qemu-system-x86_64" \
	     "\$(cat $artifact.trace.args)" \
	     "-qtest stdio < $artifact.trace"
fi
echo "qemu-fuzz: 0 passed, 1 failed"
exit 1
