#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: boot the VM with the vdxg device, load the driver, show what
# it found, then run vdxg-demo (a rotating textured cube rendered by the
# RENDER engine and flipped at vblank, with VRAM oversubscribed) for a few
# seconds. Midway the guest asks the host for a screendump of the vdxg
# screen (scripts/vm-hostd.py); it is saved as out/demo.png.
#
# Then the same by GPU virtual address (vdxg-demo --va: a VM, EXEC, no
# lists). Then the reference-image test: vdxg-demo -s (a still: the scene
# at a fixed time, flipped by PRESENT) and a second screendump, compared by
# scripts/imgcmp.py at a quarter of the size with tools/demo-reference.png
# (out/demo-still.png is what it saw), and the same still with --va.
#
# Then the 3D scene (vdxg-demo --3d: shader programs draw a lit, textured,
# mipmapped, depth-tested cube and a blended translucent one) by SUBMIT
# and by EXEC, its frame rates printed, and its still by each: in the
# guest the still's first and last frames are read back and compared bit
# for bit with the reference 3D pipeline (vdxg_ref3d) drawing the same
# frame (-c), and on the host each screendump is compared, every pixel
# exactly, with the reference pipeline's picture of the scene drawn here
# (vdxg-scene3d-ref, built with the tools: no committed image, nothing
# that a libm could move), out/demo-3d.png and out/demo-3d-reference.png.
#
# Last, kmscube (GLES 2.0 through Mesa's vdxg driver, in the GL image) by
# EXEC with a screendump, out/kmscube.png, and by SUBMIT, their frame
# rates printed.
#
# make check runs this script; its exit status is the comparisons'.
# VDXG_DEMO_UPDATE=1 rewrites the 2D reference from this run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SECONDS_RUN=${VDXG_DEMO_SECONDS:-8}
# In the guest (on the kernel command line: kept short), shot NAME LINES
# ARGS... runs vdxg-demo -t 0 ARGS, asks for screendump NAME once it has
# printed LINES lines of frame rates (frames: until it has printed $1 of
# them, a second of frames each, or ended) and stops it by SIGTERM after
# twice that many: the screendump is of the running demo however slow the
# machine. A failing demo fails the script (set -e, its wait); one that
# hangs ends by its own 30 s guard.
# These helpers start both boots' commands (the 2D demo, then the 3D
# scene: one command line would be too long for the kernel's).
HOST_LIB='
set -e
modprobe vdxg
# The host channel: a screendump of head 0 named $1, the answer read away.
tty=/dev/$(sed -n "s/.*vdxgvm.hostd=\([^ ]*\).*/\1/p" /proc/cmdline)
stty -F "$tty" raw -echo
screendump() {
	exec 3<>"$tty"
	printf "VDXG-HOST %s screendump 0 none\n" "$1" >&3
	timeout 120 sed -n "/^VDXG-HOST-\(END\|ERROR\) $1/q" <&3 >/dev/null
	exec 3>&-
}
'
GUEST_LIB=$HOST_LIB'
frames() {
	while [ $(grep -c "^vdxg-demo: frame " /tmp/demo.log) -lt $1 ]; do
		kill -0 $demo 2>/dev/null || return 0
		sleep 0.2
	done
}
shot() {
	name=$1 lines=$2
	shift 2
	vdxg-demo -t 0 "$@" >/tmp/demo.log 2>&1 &
	demo=$!
	tail -f /tmp/demo.log &
	frames $lines
	screendump $name
	frames $((lines * 2))
	kill $demo
	wait $demo
	sleep 0.5
	kill $!
}
'
"$VDXG_TOP/scripts/vm.sh" --name demo --timeout 600 -- sh -c "$GUEST_LIB"'
echo "--- lspci"
lspci -nnk -d 1234:d3d0
echo "--- vdxg-info"
vdxg-info
card=$(ls /dev/dri | grep -m1 "^card")
d=/sys/kernel/debug/dri/${card#card}
echo "--- $d/resources (IO_RESOURCE_DESCRIPTOR view)"
cat "$d/resources"
echo "--- vdxg-demo, '"$SECONDS_RUN"' s"
shot demo $(('"$SECONDS_RUN"' / 2))
echo "--- vdxg-demo --va -t '"$SECONDS_RUN"' (the same scene by GPU virtual address: EXEC, no lists)"
vdxg-demo --va -t '"$SECONDS_RUN"'
echo "--- vdxg-demo -p -s 1.3 (a still, for the reference image)"
shot still 1 -p -s 1.3
echo "--- vdxg-demo --va -p -s 1.3 (the still by GPU virtual address)"
shot still-va 1 --va -p -s 1.3
echo "--- kernel log"
dmesg | grep -E "vdxg [0-9a-f]{4}:|Initialized vdxg"
'
# The 3D scene: running by SUBMIT and by EXEC (their frame rates), then
# its still by each, the first and last frames checked in the guest (-c).
"$VDXG_TOP/scripts/vm.sh" --name demo3d --timeout 600 -- sh -c "$GUEST_LIB"'
echo "--- vdxg-demo --3d -t '"$SECONDS_RUN"' (the 3D scene: shader programs; SUBMIT)"
vdxg-demo --3d -t '"$SECONDS_RUN"'
echo "--- vdxg-demo --3d --va -t '"$SECONDS_RUN"' (the 3D scene by EXEC)"
vdxg-demo --3d --va -t '"$SECONDS_RUN"'
echo "--- vdxg-demo --3d -p -s 1.3 -c 100000 (its still; the first and last frames checked against vdxg_ref3d)"
shot still3d 1 --3d -p -s 1.3 -c 100000
echo "--- vdxg-demo --3d --va -p -s 1.3 -c 100000 (the still by EXEC)"
shot still3d-va 1 --3d --va -p -s 1.3 -c 100000
'
# kmscube, an unmodified GLES 2.0 client, on the vdxg engine through Mesa's
# vdxg driver (the GL image): by EXEC, its screen dumped midway, then by
# SUBMIT with the patch model. Both print their frame rates.
"$VDXG_TOP/scripts/vm.sh" --gl --name demo-gl --timeout 600 -- sh -c "$HOST_LIB"'
# kmscube stops waiting for a flip when its stdin is readable: -N. Its
# stdout is a file: line-buffered by stdbuf, or its "Rendered" lines come
# a 4 KiB block at a time (about 40 s of frames).
cube() {
	stdbuf -oL kmscube -N "$@" >/tmp/cube.log 2>&1 &
	cube=$!
	while [ $(grep -c "^Rendered " /tmp/cube.log) -lt 2 ]; do
		kill -0 $cube 2>/dev/null || break
		sleep 0.2
	done
}
echo "--- kmscube (GLES 2.0 through Mesa'"'"'s vdxg driver, EXEC), '"$SECONDS_RUN"' s"
cube -c 100000
grep -E "renderer|^Rendered" /tmp/cube.log
screendump kmscube
sleep '"$SECONDS_RUN"'
kill $cube; wait $cube || true
grep "^Rendered" /tmp/cube.log | tail -n1
echo "--- kmscube -M rgba (textured) by SUBMIT (VDXG_SUBMIT=patch), '"$SECONDS_RUN"' s"
VDXG_SUBMIT=patch cube -M rgba -c 100000
grep "renderer" /tmp/cube.log
sleep '"$SECONDS_RUN"'
kill $cube; wait $cube || true
grep "^Rendered" /tmp/cube.log | tail -n1
'
for n in demo/demo demo/still demo/still-va demo3d/still3d demo3d/still3d-va \
	 demo-gl/kmscube; do
	[ -f "$VDXG_OUT/vm/${n%/*}/screendump-${n#*/}.ppm" ] ||
		die "no screendump ${n#*/} from the guest (see $VDXG_OUT/vm/${n%/*}/hostd.log)"
done
python3 "$VDXG_TOP/scripts/ppm2png.py" "$VDXG_OUT/vm/demo/screendump-demo.ppm" \
	"$VDXG_OUT/demo.png"
python3 "$VDXG_TOP/scripts/imgcmp.py" ${VDXG_DEMO_UPDATE:+--update} \
	--out "$VDXG_OUT/demo-still.png" "$VDXG_OUT/vm/demo/screendump-still.ppm" \
	"$VDXG_TOP/tools/demo-reference.png"
# Both submission models draw the same still.
python3 "$VDXG_TOP/scripts/imgcmp.py" \
	--out "$VDXG_OUT/demo-still-va.png" "$VDXG_OUT/vm/demo/screendump-still-va.ppm" \
	"$VDXG_TOP/tools/demo-reference.png"
# The 3D still, by SUBMIT and by EXEC: exactly the reference pipeline's.
python3 "$VDXG_TOP/scripts/ppm2png.py" "$VDXG_OUT/vm/demo3d/screendump-still3d.ppm" \
	"$VDXG_OUT/demo-3d.png"
status=0
"$VDXG_OUT/tools/vdxg-scene3d-ref" -s 1.3 -o "$VDXG_OUT/demo-3d-reference.ppm" \
	"$VDXG_OUT/vm/demo3d/screendump-still3d.ppm" || status=1
"$VDXG_OUT/tools/vdxg-scene3d-ref" -s 1.3 \
	"$VDXG_OUT/vm/demo3d/screendump-still3d-va.ppm" || status=1
python3 "$VDXG_TOP/scripts/ppm2png.py" "$VDXG_OUT/demo-3d-reference.ppm" \
	"$VDXG_OUT/demo-3d-reference.png"
python3 "$VDXG_TOP/scripts/ppm2png.py" "$VDXG_OUT/vm/demo-gl/screendump-kmscube.ppm" \
	"$VDXG_OUT/kmscube.png"
exit $status
