#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The IGT harness: boots the guest with the vdxg device, loads vdxg (and
# vgem), runs igt_runner over the upstream tests (igt-tests/upstream-
# tests.txt) and vdxg's own tests, brings results.json back and summarises
# it with scripts/igt-results.py against igt-tests/expected-failures.txt.
#
# Boots (each a VM run; the list's "[BOOT]" lines say which tests go where):
#   default   the core, dumb-buffer, syncobj and drm_read tests, and vdxg's
#             (those the debug boot runs, only when it does not, but for
#             the oversubscription subtests, which do less there)
#   kms       the display tests, on a device with two CRTCs and one monitor
#             (outputs=2,connected1=off) so that the writeback connector
#             gets a CRTC of its own
#   flip      kms_flip, the same device (a boot of its own: about 12 of its
#             13 minutes are page flips in real time)
#   kms2      the subtests that need two monitors (kms_flip 2x-*,
#             kms_cursor_legacy 2x-*, kms_setmode's clone ones), on a
#             device with two CRTCs and two monitors of different
#             preferred modes (outputs=2); only these, since with two
#             monitors IGT runs its per-pipe subtests twice. At 4 ns an
#             instruction, as flip: at 16 ns the 2x cursor subtests, two
#             processes updating cursors while each screen flips every
#             frame, miss their frames
#   vram128-msi, intx
#             vdxg_getparam with a non-default VRAM size and MSI, then
#             INTx, so GET_PARAM and the interrupt fallbacks are checked;
#             the intx boot's device has no resizable BAR (rebar=off), so
#             the VRAM BAR is the alternative 64 MiB window and vdxg_gem
#             runs there too, with CPU faults on VRAM beyond the BAR; and
#             it has 8 address spaces (address-spaces=8), for
#             vdxg_exec@many-vms's 4096 VMs
#   sriov     vdxg_sriov, with the PF behind a PCIe root port (SR-IOV and
#             ARI need one) and two of its four VFs enabled by the test
#   gl        vdxg_gl: Debian's GL clients (kmscube, glmark2-es2-drm) on
#             Mesa's vdxg driver, their frames against softpipe's, in the
#             GL image (scripts/build-image.sh --gl, built here; its base,
#             with the clients and sid's Mesa, is cached like the other)
#   debug, debug-sriov
#             vdxg's own tests (DEBUG_TESTS below; one not built is left
#             out) on the debug kernel (KASAN, lockdep, kmemleak,
#             DEBUG_OBJECTS, failslab: scripts/build-debug-kernel.sh,
#             make debug-image), then vdxg_sriov on it behind the sriov
#             boot's root port; any report of those checkers, or a leak
#             found by the scan at the end, fails the boot (scripts/vm.sh)
#   debug-gl  only when named (--boots debug-gl; not in make check, for
#             its time): vdxg_gl's subtests with several clients
#             (DEBUG_GL_TESTS) on the debug kernel, in the GL image for
#             it (scripts/build-image.sh --debug --gl, 3 GB of memory)
#   BOOT-retry
#             after them, the failed subtests of BOOT that assert
#             wall-clock timing (igt-tests/timing-tests.txt), once more on
#             the same device and on the counted clock below; their second
#             result counts
#
# The display boots (kms, flip, kms2) and every retry boot run on QEMU's
# instruction-counted clock (-icount shift=2,sleep=off): the guest's time,
# its clocksource and the device's vblank timers advance with the
# instructions the guest executes, 4 ns each (a 250 MIPS guest: 4 million
# instructions a 60 Hz frame), and jump ahead when every vCPU idles. A stall of the host then stops the guest's clock with it, so
# the tests that count frames in real time (kms_flip, kms_vblank,
# kms_cursor_legacy) measure the driver, not the load of the machine; and
# waits for vblanks cost no host time. Loops that run for a time (the
# cursor stress tests run 20 s) cost host time in proportion to the
# instructions they take: at 4 ns, half of what 2 ns took. The kms boot,
# the one with such loops (kms_cursor_legacy: most of its time), runs at
# 16 ns (shift=4, a 62.5 MIPS guest: about 600 s of host time against 900
# at 8 ns beside another boot, with the same results; at 32 ns the cursor
# loops take so much longer in the guest's time that it saves little
# more). icount runs the vCPUs in one host
# thread, which is why the other boots keep multi-threaded TCG; and a
# guest waiting on the host (vdxg_present's screendumps over the serial
# channel) would see its timeouts jump ahead, so --only keeps it too.
#
#   scripts/igt.sh [--device NAME] [--expected FILE] [--no-extra]
#                  [--only TEST[,TEST]] [--boots LIST] [--timeout S]
#                  [--no-build] [--strict] [--no-debug] [--no-gl]
#                  [--debug-only] [--kernel debug]
#
#   --device NAME   vdxg (default) or a peer such as bochs-display: then the
#                   module is the peer's, the device gets no properties, the
#                   extra boots are not run, vdxg's own tests neither, and
#                   the expected failures default to
#                   igt-tests/expected-failures-NAME.txt
#   --only LIST     run just these tests (igt_runner names) in one boot
#                   (named "default", with the display boots' device)
#   --boots LIST    run only these of default, kms, flip and kms2 (comma list);
#                   the extra boots vram128-msi, intx, sriov and gl, and
#                   debug-gl, may be named too (with --no-extra, just the
#                   boots named: --boots sriov --no-extra runs the sriov
#                   boot alone)
#   --no-extra      skip the extra boots (vram128-msi, intx, sriov, gl,
#                   and the debug boots)
#   --no-debug      skip the debug boots
#   --no-gl         skip the gl boot (and building the GL image)
#   --debug-only    run only the debug boots
#   --kernel debug  with --only: boot the debug kernel (the boot is named
#                   "debug" and has the default device), and no extra boot
#   --no-build      use the image as it is (default: rebuild tests, image)
#   --strict        an expected failure that passes fails the harness
#   --fg-done FILE  create FILE when either of the two chains of boots
#                   (the display chain: kms, flip, gl; and the boots
#                   beside it) has ended, or when this script exits: make
#                   check then starts its last stages on the CPU that
#                   chain leaves
#
# Exit status: 0 when every result is a pass, a skip or an expected failure
# and every VM run was clean (no WARN, BUG...; see scripts/vm.sh).
# Results land in out/vm/igt-*/; out/igt/summary.txt keeps the summary.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

RETRY=$VDXG_TOP/igt-tests/timing-tests.txt
DEVICE=vdxg EXPECTED= EXTRA=1 ONLY= BOOTS=default,kms,flip,kms2 TIMEOUT=3600 BUILD=1 STRICT=
DEBUG=1 ONLY_KERNEL= GL=1 FG_DONE=
while [ $# -gt 0 ]; do
	case $1 in
	--device) DEVICE=$2; shift 2 ;;
	--expected) EXPECTED=$2; shift 2 ;;
	--no-extra) EXTRA=0; shift ;;
	--only) ONLY=$2; shift 2 ;;
	--boots) BOOTS=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--no-build) BUILD=0; shift ;;
	--strict) STRICT=--strict; shift ;;
	--fg-done) FG_DONE=$2; shift 2 ;;
	--no-debug) DEBUG=0; shift ;;
	--no-gl) GL=0; shift ;;
	--debug-only) BOOTS= EXTRA=0 DEBUG=1; shift ;;
	--kernel)
		[ "$2" = debug ] || die "--kernel: only debug"
		ONLY_KERNEL=debug; shift 2 ;;
	-h|--help) sed -n '4,91p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1" ;;
	esac
done
# fg_done: tell make check that the foreground boots have ended.
fg_done() { [ -z "$FG_DONE" ] || : >"$FG_DONE"; }
trap fg_done EXIT

case $DEVICE in
vdxg) MODULE=vdxg ;;
bochs-display|VGA|bochs) MODULE=bochs ;;
virtio-gpu-pci|virtio-vga) MODULE=virtio_gpu ;;
*) die "--device $DEVICE: which module drives it?" ;;
esac
if [ -z "$EXPECTED" ]; then
	if [ "$DEVICE" = vdxg ]; then
		EXPECTED=$VDXG_TOP/igt-tests/expected-failures.txt
	else
		EXPECTED=$VDXG_TOP/igt-tests/expected-failures-$DEVICE.txt
	fi
fi
[ -f "$EXPECTED" ] || { echo "igt.sh: no $EXPECTED; no failure is expected" >&2; EXPECTED=; }
[ "$DEVICE" = vdxg ] || EXTRA=0
# The debug boots are extra boots of vdxg's (--debug-only turns them on
# alone); --only runs one boot, on the debug kernel with --kernel debug.
if [ "$DEVICE" != vdxg ] || [ -n "$ONLY" ]; then
	DEBUG=0
elif [ "$EXTRA" = 0 ] && [ -n "$BOOTS" ]; then
	DEBUG=0
fi
[ -z "$ONLY_KERNEL" ] || [ -n "$ONLY" ] || die "--kernel debug goes with --only"
# The extra boots are the normal kernel's: not with --only --kernel debug.
[ -z "$ONLY_KERNEL" ] || EXTRA=0
# vdxg's tests on the debug kernel; vdxg_fuzz and vdxg_failslab run once
# they are built (igt-tests/), like any of these.
DEBUG_TESTS=(vdxg_gem vdxg_submit vdxg_reset vdxg_prime vdxg_lib vdxg_module vdxg_hostile
	     vdxg_present vdxg_fuzz vdxg_failslab vdxg_vm vdxg_exec vdxg_split vdxg_3d)
DEBUG_SRIOV_TESTS=(vdxg_sriov)
# The GL subtests with more than one client, on the debug kernel too.
DEBUG_GL_TESTS=igt@vdxg_gl@two-clients,igt@vdxg_gl@gl-beside-present,igt@vdxg_gl@gl-beside-kms-test

if [ "$BUILD" = 1 ]; then
	make -s -C "$VDXG_TOP/igt-tests" O="$VDXG_OUT/igt-tests" ||
		die "building igt-tests failed"
	"$VDXG_TOP/scripts/build-sw-sync.sh" || die "building sw_sync.ko failed"
	"$VDXG_TOP/scripts/build-image.sh" || die "building the guest image failed"
fi
# The debug image: built (its kernel is cached) when a debug boot runs. A
# failed build fails those boots, not the others.
debug_image=1
# The debug-gl boot runs only when named (--boots debug-gl): it is not in
# make check, whose time it would take past its budget.
debug_gl=0
case ",$BOOTS," in
*,debug-gl,*) [ "$DEVICE" != vdxg ] || [ "$GL" = 0 ] || debug_gl=1 ;;
esac
if [ "$DEBUG" = 1 ] || [ -n "$ONLY_KERNEL" ] || [ "$debug_gl" = 1 ]; then
	if [ "$BUILD" = 1 ] && ! make -s -C "$VDXG_TOP" debug-image; then
		echo "igt.sh: building the debug image failed; the debug boots fail" >&2
		debug_image=0
	fi
	[ -f "$VDXG_OUT/guest-debug/initrd.img" ] || debug_image=0
fi
# The GL image: built when the gl boot runs (as an extra boot, or named
# by --boots). A failed build fails that boot, not the others.
gl_boot=0
if [ "$DEVICE" = vdxg ] && [ -z "$ONLY" ] && [ "$GL" = 1 ]; then
	case ",$BOOTS," in
	*,gl,*) gl_boot=1 ;;
	*) [ "$EXTRA" = 0 ] || gl_boot=1 ;;
	esac
fi
gl_image=1
if [ "$gl_boot" = 1 ]; then
	if [ "$BUILD" = 1 ] && ! "$VDXG_TOP/scripts/build-image.sh" --gl; then
		echo "igt.sh: building the GL image failed; the gl boot fails" >&2
		gl_image=0
	fi
	[ -f "$VDXG_OUT/guest-gl/initrd.img" ] || gl_image=0
fi
# The GL image for the debug kernel (the GL image's base, cached), for
# the debug-gl boot.
debug_gl_image=1
if [ "$debug_gl" = 1 ]; then
	if [ "$BUILD" = 1 ] && { [ "$debug_image" = 0 ] ||
		! "$VDXG_TOP/scripts/build-image.sh" --debug --gl; }; then
		echo "igt.sh: building the debug GL image failed; the debug-gl boot fails" >&2
		debug_gl_image=0
	fi
	[ -f "$VDXG_OUT/guest-debug-gl/initrd.img" ] || debug_gl_image=0
fi
# Boots of the normal kernel: unless --debug-only or --only --kernel debug.
if [ -n "$BOOTS" ] || [ "$EXTRA" = 1 ] || { [ -n "$ONLY" ] && [ -z "$ONLY_KERNEL" ]; }; then
	if [ "$DEVICE" = vdxg ] && [ ! -f "$VDXG_OUT/module/vdxg.ko" ]; then
		echo "igt.sh: warning: no $VDXG_OUT/module/vdxg.ko (make module); the image has no vdxg" >&2
	fi
	if [ ! -f "$VDXG_OUT/module/sw_sync/sw_sync.ko" ]; then
		echo "igt.sh: warning: no $VDXG_OUT/module/sw_sync/sw_sync.ko (make sw-sync); the syncobj tests skip" >&2
	fi
fi

SUFFIX=
[ "$DEVICE" = vdxg ] || SUFFIX=-$DEVICE
# The display boots' device: two CRTCs, a monitor on the first only; and
# the kms2 boot's, a monitor on each (vdxg only: the peers have one).
KMS_ARGS= KMS2_ARGS=
SRIOV_PORT=pcie-root-port,id=rp0,slot=1,mem-reserve=256M,pref64-reserve=1G
[ "$DEVICE" != vdxg ] || KMS_ARGS=outputs=2,connected1=off KMS2_ARGS=outputs=2
RUNS=()
vm_failed=()
declare -A ARGS

# boot NAME DEVICE-ARGS GUEST-ARGS...: one VM run of vdxg-igt-run; its
# result goes to out/vm/igt-NAME[-DEVICE]/status.
boot() {
	local name=igt-$1$SUFFIX config=$1 devargs=$2 rc
	shift 2
	ARGS[$config]=$devargs
	if { [[ $config == debug* ]] && [ "$debug_image" = 0 ]; } ||
	   { [[ $config == debug-gl* ]] && [ "$debug_gl_image" = 0 ]; } ||
	   { [[ $config == gl* ]] && [ "$gl_image" = 0 ]; }; then
		echo "=== igt.sh: boot $config: no ${config%%-*} image; not run" >&2
		rm -rf "$VDXG_OUT/vm/$name"
		mkdir -p "$VDXG_OUT/vm/$name"
		echo 1 >"$VDXG_OUT/vm/$name/status"
		return 1
	fi
	echo "=== igt.sh: boot $config: -device $DEVICE${devargs:+,$devargs}: vdxg-igt-run $*"
	scripts_vm=("$VDXG_TOP/scripts/vm.sh" --name "$name" --timeout "$TIMEOUT"
		    --device "$DEVICE" --collect /tmp/igt/collect)
	case $config in
	debug|debug-*)
		scripts_vm+=(--kernel debug) ;;
	esac
	case $config in
	gl|gl-retry)
		scripts_vm+=(--gl) ;;
	debug-gl|debug-gl-retry)
		# KASAN's shadow and quarantine, and a root of 800 MB
		scripts_vm+=(--gl --mem 3072) ;;
	esac
	case $config in
	kms)
		scripts_vm+=(--qemu-arg -icount --qemu-arg shift=4,sleep=off) ;;
	flip|kms2|*-retry)
		scripts_vm+=(--qemu-arg -icount --qemu-arg shift=2,sleep=off) ;;
	esac
	case $config in
	sriov|sriov-retry|debug-sriov|debug-sriov-retry)
		# The firmware sizes bridge windows for the BARs it sees: the
		# root port reserves room for the VF BARs and for the PF's
		# VRAM BAR to grow. iomem=relaxed lets the test map the PF's
		# VRAM BAR through sysfs while vdxg has it claimed.
		scripts_vm+=(--qemu-arg -device
			     --qemu-arg "$SRIOV_PORT"
			     --append iomem=relaxed) ;;
	esac
	[ -z "$devargs" ] || scripts_vm+=(--device-args "$devargs")
	# Each binary's subtests run in one execution of it: IGT's display
	# fixture (probe, reset, modeset) then runs once a test, not once a
	# subtest, which made up most of the display boots; and the debug
	# kernel execs a test binary in half a second. (vdxg's tests fork
	# each subtest all the same.)
	"${scripts_vm[@]}" -- vdxg-igt-run --module "$MODULE,vgem" --multiple "$@"
	rc=$?
	mkdir -p "$VDXG_OUT/vm/$name"
	echo "$rc" >"$VDXG_OUT/vm/$name/status"
	if [ $rc != 0 ]; then
		echo "igt.sh: boot $config: VM run failed (status $rc; see $VDXG_OUT/vm/$name/)" >&2
	fi
	return "$rc"
}

# collect NAME: after boot NAME, its results and status.
collect() {
	local name=igt-$1$SUFFIX
	[ "$(cat "$VDXG_OUT/vm/$name/status" 2>/dev/null)" = 0 ] ||
		vm_failed+=("$1")
	RUNS+=("$1=$VDXG_OUT/vm/$name/collect/results.json")
}

VDXG_TESTS=()
[ "$DEVICE" != vdxg ] || VDXG_TESTS=(--vdxg)
# A test of vdxg's that the debug boot runs does not run in the default
# boot too: the debug kernel checks all the default one would, and more.
# But the subtests that do less on the debug kernel (the oversubscription
# tests: half the memory, no every-byte read-back; many-vms: an eighth of
# the VMs) run on both.
DEBUG_REDUCED=igt@vdxg_vm@oversubscribed,igt@vdxg_exec@oversubscribed,igt@vdxg_exec@many-vms
# built_tests TEST...: those of TESTs built in out/igt-tests, comma-separated.
built_tests() {
	local t out=()
	for t in "$@"; do
		[ -x "$VDXG_OUT/igt-tests/$t" ] && out+=("$t")
	done
	(IFS=,; echo "${out[*]}")
}

if [ "$DEBUG" = 1 ] && [ "$debug_image" = 1 ] && [ ${#VDXG_TESTS[@]} -gt 0 ]; then
	VDXG_TESTS+=(--except "$(built_tests "${DEBUG_TESTS[@]}")"
		     --also "$DEBUG_REDUCED")
fi

# gl_boot_run: the gl boot (glmark2's and piglit's subtests take minutes,
# piglit's 5 beside the debug boot here: igt_runner's bound is for a
# hang).
gl_boot_run() {
	boot gl "" --only vdxg_gl --timeout 1800
}

# extra_boot NAME: one of the extra boots, and its results.
extra_boot() {
	case $1 in
	vram128-msi)
		boot vram128-msi "vram-size=128M,aperture-size=16M,msix=off" \
			--only vdxg_getparam,vdxg_split ;;
	intx)
		boot intx "msix=off,msi=off,rebar=off,address-spaces=8" \
			--only vdxg_getparam,vdxg_gem,igt@vdxg_exec@many-vms ;;
	sriov)
		boot sriov "bus=rp0" --only vdxg_sriov ;;
	gl)
		gl_boot_run ;;
	esac
	collect "$1"
}

# The display boots, the longest, run on the instruction-counted clock in
# one host thread each, and their clock stops when the host stalls them:
# kms then flip run one after the other in the background from the start,
# then the gl boot (its tests wait on the host, not on a clock), and the
# other boots (default, the other extra boots, the debug boots) run one
# after the other beside them on the other CPU. make check (--fg-done)
# runs the demo and the migration test on the CPU of whichever chain ends
# first. The display chain's output is printed when it ends.
KMS_PID= KMS_BOOTS=()
kms_background() {
	local b
	# Their device arguments, here: a retry boot takes them from ARGS,
	# and boot() sets them in the background's subshell only.
	for b in kms flip kms2; do
		[ "$b" != kms2 ] || [ "$DEVICE" = vdxg ] || continue
		case ",$BOOTS," in
		*,$b,*) KMS_BOOTS+=("$b") ARGS[$b]=$KMS_ARGS ;;
		esac
	done
	[ "$DEVICE" != vdxg ] || ARGS[kms2]=$KMS2_ARGS
	# The gl boot, when it runs at all (named, or as an extra boot).
	[ "$gl_boot" = 0 ] || KMS_BOOTS+=(gl) ARGS[gl]=""
	mkdir -p "$VDXG_OUT/vm"
	echo "=== igt.sh: boots ${KMS_BOOTS[*]}: in the background (their output when they end)"
	{
		for b in "${KMS_BOOTS[@]}"; do
			case $b in
			gl) gl_boot_run ;;
			kms2) boot "$b" "$KMS2_ARGS" --upstream "$b" ;;
			*) boot "$b" "$KMS_ARGS" --upstream "$b" ;;
			esac
		done >"$VDXG_OUT/vm/igt-kms$SUFFIX.out" 2>&1
		fg_done
	} &
	KMS_PID=$!
}

kms_wait() {
	local b
	[ -n "$KMS_PID" ] || return 0
	wait "$KMS_PID"
	cat "$VDXG_OUT/vm/igt-kms$SUFFIX.out"
	rm -f "$VDXG_OUT/vm/igt-kms$SUFFIX.out"
	KMS_PID=
	for b in "${KMS_BOOTS[@]}"; do
		collect "$b"
	done
}

if [ -n "$ONLY" ] && [ -n "$ONLY_KERNEL" ]; then
	boot debug "" --only "$ONLY" --timeout 900
	collect debug
elif [ -n "$ONLY" ]; then
	boot default "$KMS_ARGS" --only "$ONLY"
	collect default
else
	case ",$BOOTS," in
	*,kms,*) [ "$BOOTS" = kms ] || kms_background "$KMS_ARGS" ;;
	esac
	for b in ${BOOTS//,/ }; do
		case $b in
		default|kms|flip) ;;
		kms2) [ "$DEVICE" = vdxg ] || continue ;;
		vram128-msi|intx|sriov) extra_boot "$b"; continue ;;
		debug-gl)
			boot debug-gl "" --only "$DEBUG_GL_TESTS" --timeout 900
			collect debug-gl
			continue ;;
		gl) [ "$gl_boot" = 0 ] || [ -n "$KMS_PID" ] || extra_boot gl
		    continue ;;
		*) die "--boots: no boot $b" ;;
		esac
		args=$KMS_ARGS
		[ "$b" != default ] || args=
		[ "$b" != kms2 ] || args=$KMS2_ARGS
		if [ "$b" = default ]; then
			boot "$b" "$args" --upstream "$b" "${VDXG_TESTS[@]}"
		elif [ -n "$KMS_PID" ] && [[ $b == kms || $b == flip || $b == kms2 ]]; then
			continue
		else
			boot "$b" "$args" --upstream "$b"
		fi
		collect "$b"
	done
fi
if [ "$EXTRA" = 1 ]; then
	for b in vram128-msi intx sriov gl; do
		case ",$BOOTS," in *",$b,"*) continue ;; esac
		[ "$b" != gl ] || { [ "$gl_boot" = 1 ] && [ -z "$KMS_PID" ]; } || continue
		extra_boot "$b"
	done
fi
# vdxg's tests on the debug kernel (KASAN and lockdep make them several
# times slower), beside the display boots too.
if [ "$DEBUG" = 1 ]; then
	boot debug-sriov "bus=rp0" --only "$(built_tests "${DEBUG_SRIOV_TESTS[@]}")" \
		--timeout 900
	collect debug-sriov
	boot debug "" --only "$(built_tests "${DEBUG_TESTS[@]}")" --timeout 900
	collect debug
fi
fg_done
kms_wait

# A failed timing subtest gets a second run: one boot per boot that had one.
reruns=$(python3 "$VDXG_TOP/scripts/igt-results.py" --want-retry \
	${EXPECTED:+--expected "$EXPECTED"} --retry "$RETRY" "${RUNS[@]}")
for b in $(echo "$reruns" | awk '{ print $1 }' | sort -u); do
	only=$(echo "$reruns" | awk -v b="$b" '$1 == b { print $2 }' | paste -sd,)
	boot "$b-retry" "${ARGS[$b]}" --only "$only"
	collect "$b-retry"
	RUNS[${#RUNS[@]}-1]="$b+retry=${RUNS[${#RUNS[@]}-1]#*=}"
done

mkdir -p "$VDXG_OUT/igt"
echo "=== igt.sh: results (expected failures: ${EXPECTED:-none})"
python3 "$VDXG_TOP/scripts/igt-results.py" ${EXPECTED:+--expected "$EXPECTED"} \
	--retry "$RETRY" $STRICT "${RUNS[@]}" | tee "$VDXG_OUT/igt/summary.txt"
status=${PIPESTATUS[0]}
if [ ${#vm_failed[@]} -gt 0 ]; then
	echo "igt.sh: VM runs failed: ${vm_failed[*]} (kernel warnings, crash or timeout; see above)" |
		tee -a "$VDXG_OUT/igt/summary.txt" >&2
	status=1
fi
exit "$status"
