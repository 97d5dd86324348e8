#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make igt-compare: the upstream IGT list on vdxg and on QEMU's
# bochs-display (the bochs DRM driver), one after the other with the same
# guest kernel, image, QEMU and boots, then a table of pass, fail and skip
# per test for each (scripts/igt-compare.py; out/igt/compare.txt).
#
#   scripts/igt-compare.sh [--reuse]
#
#   --reuse   take vdxg's results from the last scripts/igt.sh run
#
# Exit status: scripts/igt.sh's on vdxg; bochs-display's failures are
# what the table is for.
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
"$VDXG_TOP/scripts/igt.sh" --device bochs-display --no-build \
	--expected /dev/null >/dev/null

runs() {
	local s=$1 b out=
	for b in default kms flip; do
		out+=${out:+,}$VDXG_OUT/vm/igt-$b$s/collect/results.json
	done
	echo "$out"
}
mkdir -p "$VDXG_OUT/igt"
python3 "$VDXG_TOP/scripts/igt-compare.py" "vdxg=$(runs "")" \
	"bochs-display=$(runs -bochs-display)" | tee "$VDXG_OUT/igt/compare.txt"
exit "$status"
