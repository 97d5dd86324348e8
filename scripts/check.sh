#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make check: every test vdxg has, in stages. Each stage prints its own
# "N passed, N failed[, N skipped]" line; this script adds them up, prints
# the total last and fails if anything failed.
#
# Progress: each stage starts with "=== [i/N] stage" and what it runs;
# while it runs, a line every VDXG_CHECK_TICK seconds (default 60) says
# how long it has run and about how long it and the whole run have left,
# from the times of the last run on this machine ($VDXG_CACHE/check-times,
# written at the end of every run; typical figures when there is none).
# The summary is a table of each stage's wall time, how busy the CPUs
# were meanwhile (all work on the machine) and its result, then of
# each VM boot's (out/vm/*/elapsed of this run), then the total.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$VDXG_TOP"

mkdir -p "$VDXG_OUT/logs" "$VDXG_CACHE"
passed=0 failed=0 skipped=0
declare -a report
TIMES=$VDXG_CACHE/check-times
TICK=${VDXG_CHECK_TICK:-60}
# Marks the run's start: the VM boots that ran since are this run's.
MARK=$VDXG_OUT/logs/check-start
: >"$MARK"
check_start=$SECONDS

# The stages in order, and typical warm wall times in seconds on two
# cores, for the estimates of a first run.
STAGES=(host host-lib host-tools host-log lint qemu qtest qemu-fuzz build
	mesa debug kunit vm demo migrate)
declare -A LAST=([host]=10 [host-lib]=15 [host-tools]=10 [host-log]=2
	[kunit]=60 [lint]=80 [qemu]=5 [qtest]=160 [qemu-fuzz]=80 [build]=30
	[mesa]=20 [debug]=40 [vm]=1500 [demo]=240 [migrate]=180)
declare -A NOW
if [ -f "$TIMES" ]; then
	while read -r name secs; do
		[[ $secs =~ ^[0-9]+$ ]] && LAST[$name]=$secs
	done <"$TIMES"
fi

# left_after I: the estimated seconds of the stages after index I.
left_after() {
	local i t=0
	for ((i = $1 + 1; i < ${#STAGES[@]}; i++)); do
		t=$((t + ${LAST[${STAGES[$i]}]:-0}))
	done
	echo "$t"
}

# cpu_ticks: the machine's busy and total CPU ticks so far ("busy total").
cpu_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i
		       print t - $5 - $6, t }' /proc/stat
}

mins() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

# vm_boots: the VM boots running now, each with igt_runner's "[done/all]"
# when it has one.
vm_boots() {
	local d n
	for d in "$VDXG_OUT"/vm/*/; do
		d=${d%/}
		[ "$d/serial.log" -nt "$MARK" ] || continue
		[ ! -f "$d/elapsed" ] || [ "$d/serial.log" -nt "$d/elapsed" ] ||
			continue
		n=$(grep -ao '\] \[[0-9]*/[0-9]*\]' "$d/output.log" 2>/dev/null |
		    tail -n1 | tr -d '] [')
		printf ' %s%s' "${d##*/}" "${n:+ ($n)}"
	done
}

# ticker NAME I START: every TICK seconds, the stage's progress.
ticker() {
	local name=$1 i=$2 start=$3 now est left boots
	est=${LAST[$name]:-0}
	while sleep "$TICK"; do
		now=$((SECONDS - start))
		boots=$(vm_boots)
		[ -z "$boots" ] || echo "... check: VM boots running:$boots" >&2
		if [ "$now" -lt "$est" ]; then
			left=$((est - now))
			printf '... check: [%d/%d] %s: %s so far; about %s left of it, %s in all (last run: %s)\n' \
				$((i + 1)) ${#STAGES[@]} "$name" "$(mins "$now")" \
				"$(mins "$left")" "$(mins $((left + $(left_after "$i"))))" \
				"$(mins "$est")" >&2
		else
			printf '... check: [%d/%d] %s: %s so far, longer than last run'"'"'s %s; then about %s\n' \
				$((i + 1)) ${#STAGES[@]} "$name" "$(mins "$now")" \
				"$(mins "$est")" "$(mins "$(left_after "$i")")" >&2
		fi
	done
}

# stage NAME CMD...: run CMD, log it, take its summary line.
stage() {
	local name=$1 log=$VDXG_OUT/logs/check-$1.log line rc start i tick
	local busy0 total0 busy1 total1 cpu
	shift
	read -r busy0 total0 < <(cpu_ticks)
	for i in "${!STAGES[@]}"; do
		[ "${STAGES[$i]}" = "$name" ] && break
	done
	start=$SECONDS
	echo "=== [$((i + 1))/${#STAGES[@]}] $name: $*"
	echo "=== about $(mins "${LAST[$name]:-0}") (last run), then $(mins "$(left_after "$i")") for the rest"
	ticker "$name" "$i" "$start" &
	tick=$!
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	kill "$tick" 2>/dev/null
	wait "$tick" 2>/dev/null
	NOW[$name]=$((SECONDS - start))
	# How busy the machine's CPUs were during the stage, this run's and
	# others' work alike: what overlapping could still gain.
	read -r busy1 total1 < <(cpu_ticks)
	cpu=$(( (busy1 - busy0) * 100 / (total1 - total0 > 0 ? total1 - total0 : 1) ))
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
	report+=("$(printf '%-10s %5ss %4s%%  rc=%-3s %s' "$name" "${NOW[$name]}" \
		"$cpu" "$rc" "${line:-(one check)}")")
	return "$rc"
}

# stage_bg NAME CMD...: stage NAME in the background, its output kept
# until stage_join NAME, which prints it and adds its results to this
# run's. BG_PID[NAME] is its process.
declare -A BG_PID
stage_bg() {
	local name=$1 out=$VDXG_OUT/logs/check-$1.bg
	echo "=== $name: in the background: ${*:2} (its output when it ends)"
	(
		passed=0 failed=0 skipped=0 report=()
		stage "$@" >"$out.log"
		rc=$?
		{
			echo "$passed $failed $skipped ${NOW[$name]}"
			printf '%s\n' "${report[@]}"
		} >"$out"
		exit "$rc"
	) &
	BG_PID[$name]=$!
}
stage_join() {
	local name=$1 out=$VDXG_OUT/logs/check-$1.bg p f s t line
	wait "${BG_PID[$name]}"
	cat "$out.log"
	{
		read -r p f s t || { p=0 f=1 s=0 t=0; }
		while IFS= read -r line; do report+=("$line"); done
	} <"$out" 2>/dev/null || {
		p=0 f=1 s=0 t=0
		report+=("$name: no result")
	}
	passed=$((passed + p)) failed=$((failed + f))
	skipped=$((skipped + s)) NOW[$name]=$t
	unset "BG_PID[$name]"
}

# The longest builds, the debug kernel, the fuzzing QEMU and Mesa, start
# now in the background at the lowest priority: on a machine without them
# cached they take the CPU time that the early stages leave idle. The
# stage that needs one raises it to normal priority, and the build script
# it runs waits for it (each takes a lock, then finds its result cached).
# Where they are cached, each exits at once.
declare -A PRE
prebuild() {
	local name=$1
	shift
	# setsid: a process group of its own, to renice and to stop it whole.
	setsid nice -n 19 "$@" >"$VDXG_OUT/logs/prebuild-$name.log" 2>&1 &
	PRE[$name]=$!
}
# hurry NAME: the prebuild NAME at normal priority (root may raise it).
hurry() {
	[ -n "${PRE[$1]:-}" ] || return 0
	renice -n 0 -g "${PRE[$1]}" >/dev/null 2>&1 || true
}
stop_prebuilds() {
	local p
	for p in "${PRE[@]}"; do
		kill -- -"$p" 2>/dev/null || true
	done
}
trap stop_prebuilds EXIT
prebuild debug-kernel scripts/build-debug-kernel.sh
prebuild qemu-fuzz scripts/build-qemu.sh --fuzz
prebuild mesa scripts/build-mesa.sh

# The lint and the fuzzer run beside the other early stages, which leave
# a CPU idle for a third of their time.
stage_bg lint make -s lint
stage host make -s -C igt-tests check O="$VDXG_OUT/igt-tests"
# Host tests too: libvdxg's builder and reference renderer (own log).
stage host-lib make -s -C libvdxg check O="$VDXG_OUT/libvdxg"
# and the tools' (the demo's 3D scene)
stage host-tools make -s -C tools check O="$VDXG_OUT/tools"
# vm.sh's kernel-problem matcher on sample reports (KASAN, lockdep, ...)
stage host-log scripts/vm-log-selftest.sh
if stage qemu make -s qemu; then
	# QEMU's generic fuzzer on the device (its own ASan build, cached)
	hurry qemu-fuzz
	stage_bg qemu-fuzz env QFUZZ_CONFIG="pf sriov" \
		scripts/qemu-fuzz.sh "${QFUZZ_CHECK_SECONDS:-30}"
	stage qtest scripts/qtest.sh
	stage_join lint
	stage_join qemu-fuzz
	# The image carries Mesa (make mesa)
	hurry mesa
	if stage build make -s image; then
		# The Gallium driver's host tests (its TGSI encoder against
		# libvdxg's reference pipeline), in Mesa's build tree
		stage mesa scripts/build-mesa.sh --check
		# The debug kernel (cached), vdxg.ko for it, its image. The vm
		# stage runs without it; its debug boots then fail.
		hurry debug-kernel
		stage debug make -s debug-image
		# KUnit on the debug kernel: vdxg_kunit.ko in a VM
		stage kunit scripts/kunit.sh --no-build
		# The VM boots in the background, in two chains; once
		# either has ended, the demo and the migration test take
		# its CPU while the other finishes.
		fg_done=$VDXG_OUT/logs/check-vm-fg-done
		rm -f "$fg_done"
		stage_bg vm scripts/igt.sh --fg-done "$fg_done"
		while [ ! -e "$fg_done" ] && kill -0 "${BG_PID[vm]}" 2>/dev/null; do
			sleep 5
		done
		# make demo itself, and its still against the reference image
		stage demo scripts/demo.sh
		# live migration with clients attached (a few minutes)
		stage migrate scripts/migrate-test.sh --no-build
		stage_join vm
	fi
fi

# A background stage not joined yet (a failed stage skipped the rest).
for name in "${!BG_PID[@]}"; do
	stage_join "$name"
done

# This run's times replace the last run's (stages that did not run keep
# theirs).
for name in "${STAGES[@]}"; do
	echo "$name ${NOW[$name]:-${LAST[$name]}}"
done >"$TIMES.tmp" && mv "$TIMES.tmp" "$TIMES"

echo
echo "=== summary"
printf '%-10s %6s %5s  %-6s %s\n' stage wall cpu status result
printf '%s\n' "${report[@]}"
boots=$(find "$VDXG_OUT/vm" -mindepth 2 -maxdepth 2 -name elapsed \
	-newer "$MARK" 2>/dev/null | sort)
if [ -n "$boots" ]; then
	echo
	printf '%-22s %6s\n' "VM boot" wall
	while read -r f; do
		d=${f%/elapsed}
		printf '%-22s %5.0fs\n' "${d##*/}" "$(cat "$f")"
	done <<<"$boots"
fi
# The failed TAP tests of each stage, with the first lines of their
# reports: the end of the output is what a CI log shows.
for name in "${STAGES[@]}"; do
	log=$VDXG_OUT/logs/check-$name.log
	[ "$log" -nt "$MARK" ] || continue
	fails=$(awk '/^not ok /{n = 6} n > 0 && /^(not ok |# )/{print; n--; next}
		     {n = 0}' "$log" | head -n 30)
	[ -z "$fails" ] || printf '\n%s failures:\n%s\n' "$name" "$fails"
done
echo
echo "check: wall time $(mins $((SECONDS - check_start)))"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
