#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise igt_runner results.json files against a list of expected failures.

usage: igt-results.py [--expected FILE] [--strict] [--details N]
                      CONFIG=RESULTS.json [CONFIG=RESULTS.json ...]

Prints one line per test result, then notes, then exactly one line
"N passed, N failed, N skipped". pass counts as passed, skip and notrun-
free skips as skipped, everything else (fail, crash, timeout, incomplete,
abort, notrun, warn, dmesg-warn, dmesg-fail) as failed, except a dmesg-warn
whose only warnings are about the virtual machine (BENIGN_DMESG). A CONFIG whose
results file is missing counts as one failure (its VM run failed).

Exit status 1 when a non-pass, non-skip result is not in the expected
failures, or a CONFIG has no results; with --strict also when an expected
failure passes. Otherwise 0.

Expected-failures format: "igt@TEST@SUBTEST[CONFIG]  reason" per line, the
[CONFIG] suffix optional (without it the entry covers every config); an
entry for a subtest covers its dynamic subtests too; # starts a comment
line.
"""
import argparse
import json
import os
import re
import sys

PASS = {"pass"}
SKIP = {"skip"}
# Kernel warnings about the virtual machine, not the driver: a TCG guest
# on a busy host stalls (hrtimer, the clocksource watchdog giving up on
# the TSC, the HPET emulating the RTC losing ticks), and QEMU's q35 ACPI
# has no RTC fixed event for the suspend tests' rtcwake to disable. A
# dmesg-warn whose every warning is one of these is a pass, with a note.
BENIGN_DMESG = [
    re.compile(r"hrtimer: interrupt took \d+ ns"),
    re.compile(r"clocksource: timekeeping watchdog on CPU\d+: Marking clocksource 'tsc' as unstable"),
    re.compile(r"clocksource: +'(hpet|tsc)' (wd|cs)_nsec: "),
    re.compile(r"clocksource: +Clocksource 'tsc' skewed "),
    re.compile(r"clocksource: +'tsc' is current clocksource"),
    re.compile(r"TSC found unstable after boot"),
    re.compile(r"hpet: Lost \d+ RTC interrupts"),
    re.compile(r"ACPI Error: Could not disable RealTimeClock events"),
]


def benign_dmesg(t):
    lines = [l for l in (t.get("dmesg-warnings") or "").splitlines()
             if l.strip()]
    return lines and all(any(b.search(l) for b in BENIGN_DMESG)
                         for l in lines)


def load_expected(path):
    expected = {}
    if not path:
        return expected
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            name = parts[0]
            reason = parts[1].strip() if len(parts) > 1 else ""
            if not re.match(r"^igt@[A-Za-z0-9_-]+(@[A-Za-z0-9_@-]+)?(\[[A-Za-z0-9_.-]+\])?$", name):
                sys.exit(f"{path}:{lineno}: not a test name: {name}")
            if not reason:
                print(f"note: {path}:{lineno}: {name} has no reason", file=sys.stderr)
            expected[name] = reason
    return expected


def expected_reason(expected, name, config):
    """The entry for NAME: its own, or its subtest's for a dynamic one."""
    parts = name.split("@")
    for n in range(len(parts), 2, -1):
        base = "@".join(parts[:n])
        for key in (f"{base}[{config}]", base):
            if key in expected:
                return key, expected[key]
    return None, None


def first_lines(text, n):
    """The first N non-empty lines of TEXT that are not runner sentinels."""
    lines = [l for l in (text or "").splitlines()
             if l.strip() and not re.match(r"^(Starting (dynamic )?subtest: |(Dynamic s|S)ubtest \S+: )", l)]
    return lines[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--expected", help="expected-failures file")
    ap.add_argument("--strict", action="store_true",
                    help="fail when an expected failure passes")
    ap.add_argument("--details", type=int, default=8,
                    help="lines of err/dmesg shown per unexpected failure")
    ap.add_argument("runs", nargs="+", metavar="CONFIG=RESULTS.json")
    args = ap.parse_args()

    expected = load_expected(args.expected)
    used = set()
    passed = failed = skipped = 0
    unexpected = []
    unexpected_pass = []
    notes = []

    for run in args.runs:
        config, sep, path = run.partition("=")
        if not sep:
            ap.error(f"{run}: want CONFIG=RESULTS.json")
        tag = "" if config == "default" else f"[{config}]"
        if not os.path.isfile(path):
            print(f"FAIL        vm@{config}: no results.json (the VM run failed)")
            failed += 1
            unexpected.append(f"vm@{config}")
            continue
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        tests = data.get("tests", {})
        if not tests:
            notes.append(f"{config}: results.json has no tests")
        for name in sorted(tests):
            t = tests[name]
            result = t.get("result", "incomplete")
            if result == "dmesg-warn" and benign_dmesg(t):
                notes.append(f"{name}{tag}: passed with a virtual-machine "
                             "kernel warning only")
                result = "pass"
            key, reason = expected_reason(expected, name, config)
            if key:
                used.add(key)
            shown = f"{name}{tag}"
            if result in PASS:
                passed += 1
                if key:
                    unexpected_pass.append(f"{shown} passed but is expected to fail ({reason})")
                print(f"pass        {shown}")
            elif result in SKIP:
                skipped += 1
                print(f"skip        {shown}")
            else:
                failed += 1
                if key:
                    print(f"{result:<11} {shown}  (expected: {reason})")
                else:
                    print(f"{result:<11} {shown}  UNEXPECTED")
                    unexpected.append(shown)
                    for field in ("err", "dmesg-warnings"):
                        for l in first_lines(t.get(field), args.details):
                            print(f"    {field}: {l}")

    for key in sorted(set(expected) - used):
        notes.append(f"expected failure {key} did not run")
    for n in notes:
        print(f"note: {n}")
    for u in unexpected_pass:
        print(f"note: {u}")
    if unexpected:
        print(f"unexpected failures ({len(unexpected)}): {' '.join(unexpected)}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")

    if unexpected or (args.strict and unexpected_pass):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
