#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the upstream IGT results of two drivers, test by test.

usage: igt-compare.py [--list FILE] NAME=RESULTS.json[,RESULTS.json...] ...

Counts each subtest once (igt@TEST@SUBTEST; a subtest with dynamic
subtests counts by its own result) as pass, fail or skip; a dmesg-warn
whose warnings are all about the virtual machine counts as a pass, as in
igt-results.py, and every other result as a fail. Only the tests of the
upstream list (--list, default igt-tests/upstream-tests.txt) are shown,
one row per test binary with a column group per NAME, then the totals.
"""
import argparse
import collections
import importlib.util
import json
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_results_module():
    spec = importlib.util.spec_from_file_location(
        "igt_results", os.path.join(TOP, "scripts", "igt-results.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def upstream_tests(path):
    tests = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or re.match(r"^\[.*\]$", line):
                continue
            name = line.split()[0]
            tests.append(name.split("@")[1] if name.startswith("igt@") else name)
    return list(dict.fromkeys(tests))


def count(paths, wanted, benign):
    """{test: Counter(pass=, fail=, skip=)} over the results files."""
    counts = collections.defaultdict(collections.Counter)
    for path in paths:
        if not os.path.isfile(path):
            sys.exit(f"igt-compare: no {path}")
        with open(path, encoding="utf-8") as f:
            tests = json.load(f).get("tests", {})
        for name, t in tests.items():
            parts = name.split("@")
            if len(parts) > 3 or parts[1] not in wanted:
                continue
            result = t.get("result", "incomplete")
            if result == "pass" or (result == "dmesg-warn" and benign(t)):
                counts[parts[1]]["pass"] += 1
            elif result == "skip":
                counts[parts[1]]["skip"] += 1
            else:
                counts[parts[1]]["fail"] += 1
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", default=os.path.join(TOP, "igt-tests",
                                                   "upstream-tests.txt"))
    ap.add_argument("runs", nargs="+", metavar="NAME=RESULTS.json[,...]")
    args = ap.parse_args()

    benign = load_results_module().benign_dmesg
    wanted = upstream_tests(args.list)
    columns = []
    for run in args.runs:
        name, sep, paths = run.partition("=")
        if not sep:
            ap.error(f"{run}: want NAME=RESULTS.json[,RESULTS.json...]")
        columns.append((name, count(paths.split(","), set(wanted), benign)))

    head = f"{'test':<24}" + "".join(f" | {n[:17]:>17}" for n, _ in columns)
    sub = f"{'':<24}" + " |  pass  fail  skip" * len(columns)
    print(head)
    print(sub)
    totals = [collections.Counter() for _ in columns]
    for test in wanted:
        row = f"{test:<24}"
        for i, (_, c) in enumerate(columns):
            r = c.get(test, collections.Counter())
            totals[i].update(r)
            if sum(r.values()):
                row += f" | {r['pass']:5} {r['fail']:5} {r['skip']:5}"
            else:
                row += f" | {'(not run)':>17}"
        print(row)
    row = f"{'total':<24}"
    for t in totals:
        row += f" | {t['pass']:5} {t['fail']:5} {t['skip']:5}"
    print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
