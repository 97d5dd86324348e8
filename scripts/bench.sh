#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench: boot the VM with the vdxg device, run vdxg-bench (every group,
# 5 repeats; see tools/vdxg_bench.c for what each figure is) and keep its
# figures: the table on stdout and in out/bench.txt, the JSON in
# out/bench.json. Arguments go to vdxg-bench: -r REPEATS and the groups to
# run (e.g. -r 9 paging render, or -r 5 vm). The device gets 512 MiB of
# VRAM: every group's objects are live together (see vdxg_bench.c).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

args=${*:--r 5}
"$VDXG_TOP/scripts/vm.sh" --name bench --timeout 1800 --load vdxg \
	--device-args vram-size=512M \
	--collect /tmp/bench -- \
	"mkdir -p /tmp/bench && vdxg-bench -j /tmp/bench/bench.json $args"
json=$VDXG_OUT/vm/bench/collect/bench.json
[ -f "$json" ] || die "vdxg-bench wrote no $json"
python3 -m json.tool "$json" >"$VDXG_OUT/bench.json"
cp "$VDXG_OUT/vm/bench/output.log" "$VDXG_OUT/bench.txt"
echo "bench.sh: $VDXG_OUT/bench.json, $VDXG_OUT/bench.txt"
