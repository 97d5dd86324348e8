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
for d in /sys/kernel/debug/dri/*/; do
	[ -f "$d/resources" ] || continue
	echo "--- $d""resources"
	cat "$d/resources"
	echo "--- $d""interrupts"
	cat "$d/interrupts"
done
echo "--- dmesg | grep vdxg"
dmesg | grep -i vdxg
'
