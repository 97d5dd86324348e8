#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-gl: GL clients by vdxg against the CPU renderers, in one boot
# of the GL image: kmscube's frame rate on the display (capped by its
# 60 Hz) and offscreen, and glmark2-es2-drm's mean frame rate over its
# default scenes and its score at 640x480, by vdxg through EXEC and
# through SUBMIT, by llvmpipe and by softpipe (tools/vdxg-gl-bench.sh),
# and the ratios of vdxg's figures to llvmpipe's. The table goes to
# stdout and out/bench-gl.txt, every figure to out/bench-gl.json.
# Arguments go to vdxg-gl-bench (-f FRAMES, -d SECONDS, drivers).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

args=${*:-}
"$VDXG_TOP/scripts/vm.sh" --gl --name bench-gl --timeout 3000 --load vdxg \
	--quiet -- "vdxg-gl-bench $args"
python3 - "$VDXG_OUT/vm/bench-gl/output.log" "$VDXG_OUT/bench-gl.json" \
	<<'PY' | tee "$VDXG_OUT/bench-gl.txt"
import json, sys
res, scenes, problems = {}, {}, []
for line in open(sys.argv[1], errors="replace"):
    f = line.split()
    if len(f) == 4 and f[0] == "RESULT":
        res.setdefault(f[1], {})[f[2]] = float(f[3])
    elif len(f) == 4 and f[0] == "SCENE":
        scenes.setdefault(f[1], {})[f[2]] = float(f[3])
    elif f and f[0] == "PROBLEM":
        problems.append(" ".join(f[1:]))
json.dump({"results": res, "scenes": scenes, "problems": problems},
          open(sys.argv[2], "w"), indent=1)
base = res.get("llvmpipe", {})
cols = (("kmscube-fps", "kmscube"), ("kmscube-offscreen-fps", "offscreen"),
        ("glmark2-mean-fps", "glmark2 fps"), ("glmark2-score", "score"))
print("%-12s" % "driver" + "".join("%13s" % c[1] for c in cols))
for d, r in res.items():
    print("%-12s" % d + "".join("%13.2f" % r.get(c[0], 0) for c in cols))
for d in ("vdxg-exec", "vdxg-patch"):
    if d in res and base:
        print("%s / llvmpipe:" % d + ",".join(
            " %s %.2fx" % (c[1], res[d].get(c[0], 0) /
                           max(base.get(c[0], 0), 1e-9)) for c in cols[:3]))
for p in problems:
    print("problem:", p)
PY
