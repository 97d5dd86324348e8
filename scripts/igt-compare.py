#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the upstream IGT results of drivers, test by test.

usage: igt-compare.py [--list FILE] NAME=RESULTS.json[,RESULTS.json...] ...

Counts each subtest once (igt@TEST@SUBTEST; a subtest with dynamic
subtests counts by its own result) as pass, fail or skip, judged as
igt-results.py does (a dmesg-warn whose warnings are all about the
virtual machine, and a warn that multiple mode gave a test that printed
no warning, count as a pass); every other result counts as a fail. Only the tests of the
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


def run_warnings(path):
    """The WARNING lines of a run in igt_runner's multiple mode, else None."""
    d = os.path.dirname(path)
    if not os.path.isfile(os.path.join(d, "multiple-mode")):
        return None
    w = os.path.join(d, "warnings.txt")
    if not os.path.isfile(w):
        return []
    with open(w, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def count(paths, wanted, outcome):
    """{test: Counter(pass=, fail=, skip=)} over the results files.

    A subtest in several files (one that skips in a one-monitor boot and
    runs in the two-monitor one) counts once: as a fail if it failed in
    any, else as a pass if it passed in any, else as a skip.
    """
    rank = {"skip": 0, "pass": 1, "fail": 2}
    seen = {}
    for path in paths:
        if not os.path.isfile(path):
            sys.exit(f"igt-compare: no {path}")
        with open(path, encoding="utf-8") as f:
            tests = json.load(f).get("tests", {})
        warnings = run_warnings(path)
        for name, t in tests.items():
            parts = name.split("@")
            if len(parts) > 3 or parts[1] not in wanted:
                continue
            result = outcome(t, name, "", [], warnings)
            if result not in ("pass", "skip"):
                result = "fail"
            if rank[result] >= rank[seen.get(name, "skip")]:
                seen[name] = result
    counts = collections.defaultdict(collections.Counter)
    for name, result in seen.items():
        counts[name.split("@")[1]][result] += 1
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", default=os.path.join(TOP, "igt-tests",
                                                   "upstream-tests.txt"))
    ap.add_argument("runs", nargs="+", metavar="NAME=RESULTS.json[,...]")
    args = ap.parse_args()

    outcome = load_results_module().outcome
    wanted = upstream_tests(args.list)
    columns = []
    for run in args.runs:
        name, sep, paths = run.partition("=")
        if not sep:
            ap.error(f"{run}: want NAME=RESULTS.json[,RESULTS.json...]")
        columns.append((name, count(paths.split(","), set(wanted), outcome)))

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
