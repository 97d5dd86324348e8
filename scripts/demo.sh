#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: boot the VM with the vdxg device, load the driver and show
# what it found.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

exec "$VDXG_TOP/scripts/vm.sh" --name demo --timeout 300 -- sh -c '
set -e
modprobe vdxg
echo "--- lspci"
lspci -nnk -d 1234:d3d0
echo "--- /dev/dri"
ls -l /dev/dri
echo "--- vdxg-info"
vdxg-info
card=$(ls /dev/dri | grep -m1 "^card")
d=/sys/kernel/debug/dri/${card#card}
echo "--- $d/resources (IO_RESOURCE_DESCRIPTOR view)"
cat "$d/resources"
echo "--- $d/interrupts"
head -3 "$d/interrupts"
if [ -f "$d/paging" ]; then
	echo "--- $d/paging (the probe-time paging self-test)"
	head -6 "$d/paging"
fi
echo "--- kernel log"
dmesg | grep -E "vdxg [0-9a-f]{4}:|Initialized vdxg"
'
