#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: boot the VM with the vdxg device, load the driver, show what
# it found, then run vdxg-demo (a rotating textured cube rendered by the
# RENDER engine and flipped at vblank, with VRAM oversubscribed) for a few
# seconds. Midway the guest asks the host for a screendump of the vdxg
# screen (scripts/vm-hostd.py); it is saved as out/demo.png.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SECONDS_RUN=${VDXG_DEMO_SECONDS:-8}
"$VDXG_TOP/scripts/vm.sh" --name demo --timeout 600 -- sh -c '
set -e
modprobe vdxg
echo "--- lspci"
lspci -nnk -d 1234:d3d0
echo "--- vdxg-info"
vdxg-info
card=$(ls /dev/dri | grep -m1 "^card")
d=/sys/kernel/debug/dri/${card#card}
echo "--- $d/resources (IO_RESOURCE_DESCRIPTOR view)"
cat "$d/resources"
echo "--- vdxg-demo -t '"$SECONDS_RUN"'"
vdxg-demo -t '"$SECONDS_RUN"' &
demo=$!
sleep $(('"$SECONDS_RUN"' / 2))
# The host channel: request a screendump of head 0, read the answer away.
tty=/dev/$(sed -n "s/.*vdxgvm.hostd=\([^ ]*\).*/\1/p" /proc/cmdline)
stty -F "$tty" raw -echo
exec 3<>"$tty"
printf "VDXG-HOST demo screendump 0 gz\n" >&3
timeout 120 sed -n "/^VDXG-HOST-\(END\|ERROR\) demo/q" <&3 >/dev/null
exec 3>&-
wait $demo
echo "--- kernel log"
dmesg | grep -E "vdxg [0-9a-f]{4}:|Initialized vdxg"
'
ppm=$VDXG_OUT/vm/demo/screendump-demo.ppm
[ -f "$ppm" ] || die "no screendump from the guest (see $VDXG_OUT/vm/demo/hostd.log)"
python3 "$VDXG_TOP/scripts/ppm2png.py" "$ppm" "$VDXG_OUT/demo.png"
