#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two vdxg-bench runs figure by figure.

    scripts/bench-compare.py A.json B.json     compare two bench.json files
    scripts/bench-compare.py --run [GROUP...]  run vdxg-bench -r 3, then
                                               -r 9 (the groups given, else
                                               all) in one VM boot and
                                               compare them
    scripts/bench-compare.py --run --boots [GROUP...]
                                               the same, each in a VM boot
                                               of its own (scripts/bench.sh)

One boot isolates what the repeat count changes. Two boots add what
differs from boot to boot of a TCG guest on a shared host: within a boot
the repeats agree to a few percent, across boots some figures (even the
cs group's, guest code that touches no device) differ by up to 2.6 times.

Prints, for every figure in either file: its group and name, the median of
each run, B / A, and "OFF" when the two differ by more than the tolerance
(--tolerance, default 20%: max/min of the medians above 1.2). The warm-up
of each group (the "warmup" records of the JSON) follows apart, not
compared: its first round is on cold memory by design. Exit status 0 when
every figure agrees, 1 when one does not or is in one file only.
With --run, the JSON files are kept as out/bench-r3.json and
out/bench-r9.json, and the table as out/bench-compare.txt.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    with open(path) as f:
        d = json.load(f)
    figs = {(g["group"], g["name"]): g for g in d.get("figures", [])}
    return d, figs


def run_bench(repeats, groups, out):
    subprocess.run([os.path.join(TOP, "scripts", "bench.sh"),
                    "-r", str(repeats)] + groups, check=True)
    dst = os.path.join(out, "bench-r%d.json" % repeats)
    shutil.copy(os.path.join(out, "bench.json"), dst)
    return dst


def run_one_boot(counts, groups, out):
    cmd = ["mkdir -p /tmp/bench"]
    for r in counts:
        cmd.append("vdxg-bench -j /tmp/bench/bench-r%d.json -r %d %s" %
                   (r, r, " ".join(groups)))
    subprocess.run([os.path.join(TOP, "scripts", "vm.sh"), "--name",
                    "bench-compare", "--timeout", "3600", "--load", "vdxg",
                    "--device-args", "vram-size=512M",
                    "--collect", "/tmp/bench", "--", " && ".join(cmd)],
                   check=True)
    paths = []
    for r in counts:
        dst = os.path.join(out, "bench-r%d.json" % r)
        shutil.copy(os.path.join(out, "vm", "bench-compare", "collect",
                                 "bench-r%d.json" % r), dst)
        paths.append(dst)
    return paths


def fmt(v):
    if v is None:
        return "-"
    return "%.4g" % v


def compare(a_path, b_path, tol):
    a, fa = load(a_path)
    b, fb = load(b_path)
    ra, rb = a.get("repeats", "?"), b.get("repeats", "?")
    keys = list(fa)
    keys += [k for k in fb if k not in fa]
    lines = []
    head = ("group", "figure", "-r %s median" % ra, "-r %s median" % rb,
            "ratio", "")
    rows = []
    bad = 0
    for k in keys:
        ma = fa[k]["median"] if k in fa else None
        mb = fb[k]["median"] if k in fb else None
        unit = (fa.get(k) or fb.get(k))["unit"]
        flag = ""
        if ma is None or mb is None:
            r, flag = None, "MISSING"
        elif ma == mb:
            r = 1.0
        elif ma == 0 or mb == 0 or (ma < 0) != (mb < 0):
            r, flag = None, "OFF"
        else:
            r = mb / ma
            if max(r, 1 / r) > 1 + tol:
                flag = "OFF"
        if flag:
            bad += 1
        rows.append((k[0], "%s (%s)" % (k[1], unit), fmt(ma), fmt(mb),
                     "-" if r is None else "%.3f" % r, flag))
    w = [max(len(str(x[i])) for x in rows + [head]) for i in range(6)]
    for x in [head] + rows:
        lines.append("  ".join(str(c).ljust(w[i]) if i < 2 else
                               str(c).rjust(w[i]) if i < 5 else str(c)
                               for i, c in enumerate(x)).rstrip())
    lines.append("")
    lines.append("%d of %d figures off by more than %d%%" %
                 (bad, len(keys), round(tol * 100)))
    for name, d in (("-r %s" % ra, a), ("-r %s" % rb, b)):
        for w_ in d.get("warmup", []):
            lines.append("warm-up %s %s: %d rounds, %.1f s; %sfirst %s, "
                         "last %s %s" %
                         (name, w_["group"], w_["rounds"], w_["seconds"],
                          w_["name"] + ": " if w_["name"] else "",
                          fmt(w_["first"]), fmt(w_["last"]), w_["unit"]))
    return "\n".join(lines), bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--run", action="store_true",
                   help="run vdxg-bench -r 3 and -r 9 first, in one boot")
    p.add_argument("--boots", action="store_true",
                   help="with --run: each in a boot of its own")
    p.add_argument("--tolerance", type=float, default=0.2,
                   help="largest relative difference allowed (0.2)")
    p.add_argument("args", nargs="*",
                   help="A.json B.json, or with --run the groups")
    o = p.parse_args()
    out = os.environ.get("VDXG_OUT", os.path.join(TOP, "out"))
    if o.run and o.boots:
        a = run_bench(3, o.args, out)
        b = run_bench(9, o.args, out)
    elif o.run:
        a, b = run_one_boot((3, 9), o.args, out)
    elif len(o.args) == 2:
        a, b = o.args
    else:
        p.error("two bench.json files, or --run")
    text, bad = compare(a, b, o.tolerance)
    print(text)
    if o.run:
        with open(os.path.join(out, "bench-compare.txt"), "w") as f:
            f.write(text + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
