#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make igt-compare: the upstream IGT list on vdxg, on QEMU's bochs-display
# (the bochs DRM driver) and on virtio-gpu-pci (virtio_gpu), one after the
# other with the same guest kernel, image, QEMU and boots (vdxg's kms2
# boot, two monitors, only on vdxg: the peers have one), then a table of
# pass, fail and skip per test for each (scripts/igt-compare.py;
# out/igt/compare.txt).
#
#   scripts/igt-compare.sh [--reuse]
#
#   --reuse   take vdxg's results from the last scripts/igt.sh run
#
# Exit status: scripts/igt.sh's on vdxg; the peers' failures are what the
# table is for.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

REUSE=0
case ${1:-} in
--reuse) REUSE=1 ;;
"") ;;
*) die "usage: $0 [--reuse]" ;;
esac

status=0
if [ "$REUSE" = 0 ]; then
	"$VDXG_TOP/scripts/igt.sh" --no-extra
	status=$?
fi
PEERS=(bochs-display virtio-gpu-pci)
for peer in "${PEERS[@]}"; do
	"$VDXG_TOP/scripts/igt.sh" --device "$peer" --no-build \
		--expected /dev/null >/dev/null
done
# runs SUFFIX: the display boots' results of a device (kms2: vdxg's only)
runs() {
	local s=$1 b f out=
	for b in default kms flip kms2; do
		f=$VDXG_OUT/vm/igt-$b$s/collect/results.json
		[ "$b" != kms2 ] || [ -f "$f" ] || continue
		out+=${out:+,}$f
	done
	echo "$out"
}
cols=("vdxg=$(runs "")")
for peer in "${PEERS[@]}"; do
	cols+=("$peer=$(runs "-$peer")")
done
mkdir -p "$VDXG_OUT/igt"
python3 "$VDXG_TOP/scripts/igt-compare.py" "${cols[@]}" |
	tee "$VDXG_OUT/igt/compare.txt"
exit "$status"
