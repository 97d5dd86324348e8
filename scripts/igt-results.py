#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarise igt_runner results.json files against a list of expected failures.

usage: igt-results.py [--expected FILE] [--retry FILE] [--strict]
                      [--details N] [--want-retry]
                      CONFIG=RESULTS.json [CONFIG=RESULTS.json ...]

Prints one line per test result, then notes, then exactly one line
"N passed, N failed, N skipped, N expected failures", where failed counts
only the failures that fail the harness (scripts/check.sh adds them up). pass counts as passed, skip and notrun-
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

Retry (--retry FILE, igt-tests/timing-tests.txt): subtests that assert
wall-clock frame timing ("igt@TEST@PATTERN  reason", fnmatch patterns). An
unexpected failure of one of them is run again in a boot of its own: with
--want-retry the script prints just the subtests to rerun, one
"CONFIG igt@TEST@SUBTEST" line each, and scripts/igt.sh passes the rerun's
results as CONFIG+retry=RESULTS.json. A rerun result replaces the first one
(a pass is a pass with a note giving both results); a subtest that fails
twice is a failure.
"""
import argparse
import fnmatch
import io
import json
import os
import re
import sys

PASS = {"pass"}
SKIP = {"skip"}
# Kernel warnings about the virtual machine, not the driver: a TCG guest
# on a busy host stalls (hrtimer, the clocksource watchdog giving up on
# the TSC or skipping a check whose timer ran late, the deadline
# scheduler's replenishment lagging behind the guest's clock, the HPET
# emulating the RTC losing ticks), and QEMU's q35 ACPI
# has no RTC fixed event for the suspend tests' rtcwake to disable. A
# dmesg-warn whose every warning is one of these is a pass, with a note.
BENIGN_DMESG = [
    re.compile(r"hrtimer: interrupt took \d+ ns"),
    re.compile(r"clocksource: timekeeping watchdog on CPU\d+: Marking clocksource 'tsc' as unstable"),
    re.compile(r"clocksource: timekeeping watchdog on CPU\d+: wd-tsc-wd excessive read-back delay of \d+ns vs\. limit of \d+ns, wd-wd read-back delay only \d+ns, attempt \d+, marking tsc unstable"),
    re.compile(r"clocksource: +'(hpet|tsc)' (wd|cs)_nsec: "),
    re.compile(r"clocksource: Long readout interval, skipping watchdog check: cs_nsec: \d+ wd_nsec: \d+"),
    re.compile(r"clocksource: +Clocksource 'tsc' skewed "),
    re.compile(r"clocksource: +'tsc' is current clocksource"),
    re.compile(r"TSC found unstable after boot"),
    re.compile(r"sched: DL replenish lagged too much"),
    re.compile(r"hpet: Lost \d+ RTC interrupts"),
    re.compile(r"ACPI Error: Could not disable RealTimeClock events"),
]


def benign_dmesg(t):
    lines = [l for l in (t.get("dmesg-warnings") or "").splitlines()
             if l.strip()]
    return lines and all(any(b.search(l) for b in BENIGN_DMESG)
                         for l in lines)


def entries(path):
    """(line number, name, reason) of each entry line of PATH."""
    if not path:
        return
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if line and not line.startswith("#"):
                parts = line.split(None, 1)
                yield lineno, parts[0], parts[1].strip() if len(parts) > 1 else ""


def load_expected(path):
    expected = {}
    for lineno, name, reason in entries(path):
        if not re.match(r"^igt@[A-Za-z0-9_-]+(@[A-Za-z0-9_@-]+)?(\[[A-Za-z0-9_.-]+\])?$", name):
            sys.exit(f"{path}:{lineno}: not a test name: {name}")
        if not reason:
            print(f"note: {path}:{lineno}: {name} has no reason", file=sys.stderr)
        expected[name] = reason
    return expected


def load_retry(path):
    retry = []
    for lineno, pattern, reason in entries(path):
        if not re.match(r"^igt@[A-Za-z0-9_-]+@[][A-Za-z0-9_*?-]+$", pattern):
            sys.exit(f"{path}:{lineno}: not a subtest pattern: {pattern}")
        if not reason:
            sys.exit(f"{path}:{lineno}: {pattern} has no reason")
        retry.append((pattern, reason))
    return retry


def subtest(name):
    """igt@TEST@SUBTEST of a (possibly dynamic) subtest's NAME."""
    return "@".join(name.split("@")[:3])


def retry_reason(retry, name):
    for pattern, reason in retry:
        if fnmatch.fnmatchcase(subtest(name), pattern):
            return reason
    return None


def expected_reason(expected, name, config):
    """The entry for NAME: its own, or its subtest's for a dynamic one."""
    parts = name.split("@")
    for n in range(len(parts), 2, -1):
        base = "@".join(parts[:n])
        for key in (f"{base}[{config}]", base):
            if key in expected:
                return key, expected[key]
    return None, None


def outcome(t, name, tag, notes, warnings=None):
    """The result of test T, a benign dmesg-warn counted as a pass.

    WARNINGS: for a run in igt_runner's multiple mode, the WARNING lines
    its tests printed (warnings.txt beside results.json). That mode's
    results.json can give a subtest stderr of another's, and so a "warn"
    that no warning caused: a warn of a test binary that printed no
    WARNING line is a pass, with a note.
    """
    result = t.get("result", "incomplete")
    if result == "dmesg-warn" and benign_dmesg(t):
        notes.append(f"{name}{tag}: passed with a virtual-machine "
                     "kernel warning only")
        result = "pass"
    if result == "warn" and warnings is not None:
        binary = name.split("@")[1]
        if not any(f"({binary}:" in l for l in warnings):
            notes.append(f"{name}{tag}: warn from stderr misattributed in "
                         f"multiple mode ({binary} printed no WARNING)")
            result = "pass"
    return result


def first_lines(text, n):
    """The first N non-empty lines of TEXT that are not runner sentinels."""
    lines = [l for l in (text or "").splitlines()
             if l.strip() and not re.match(r"^(Starting (dynamic )?subtest: |(Dynamic s|S)ubtest \S+: )", l)]
    return lines[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--expected", help="expected-failures file")
    ap.add_argument("--retry", help="timing-tests file: subtests rerun once")
    ap.add_argument("--want-retry", action="store_true",
                    help="print only the failed subtests to rerun")
    ap.add_argument("--strict", action="store_true",
                    help="fail when an expected failure passes")
    ap.add_argument("--details", type=int, default=8,
                    help="lines of err/dmesg shown per unexpected failure")
    ap.add_argument("runs", nargs="+", metavar="CONFIG=RESULTS.json")
    args = ap.parse_args()
    stdout = sys.stdout
    if args.want_retry:
        sys.stdout = io.StringIO()

    expected = load_expected(args.expected)
    retry = load_retry(args.retry)
    used = set()
    passed = failed = skipped = 0
    unexpected = []
    unexpected_pass = []
    notes = []

    runs = []
    reruns = {}
    warnings = {}
    for run in args.runs:
        config, sep, path = run.partition("=")
        if not sep:
            ap.error(f"{run}: want CONFIG=RESULTS.json")
        base, plus, kind = config.partition("+")
        if plus and kind != "retry":
            ap.error(f"{run}: CONFIG+{kind}: only +retry is known")
        tests = None
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                tests = json.load(f).get("tests", {})
        d = os.path.dirname(path)
        if os.path.isfile(os.path.join(d, "multiple-mode")):
            w = os.path.join(d, "warnings.txt")
            warnings[config] = []
            if os.path.isfile(w):
                with open(w, encoding="utf-8", errors="replace") as f:
                    warnings[config] = f.read().splitlines()
        if plus:
            reruns[base] = tests
        else:
            runs.append((config, tests))

    want = []
    for config, tests in runs:
        tag = "" if config == "default" else f"[{config}]"
        if tests is None:
            print(f"FAIL        vm@{config}: no results.json (the VM run failed)")
            failed += 1
            unexpected.append(f"vm@{config}")
            continue
        if not tests:
            notes.append(f"{config}: results.json has no tests")
        rerun = reruns.get(config)
        if config in reruns and rerun is None:
            print(f"FAIL        vm@{config}+retry: no results.json (the VM run failed)")
            failed += 1
            unexpected.append(f"vm@{config}+retry")
        for name in sorted(tests):
            t = tests[name]
            result = outcome(t, name, tag, notes, warnings.get(config))
            key, reason = expected_reason(expected, name, config)
            if key:
                used.add(key)
            shown = f"{name}{tag}"
            again = retry_reason(retry, name) if not key and \
                result not in PASS | SKIP else None
            if again and args.want_retry:
                want.append(f"{config} {subtest(name)}")
                continue
            if again and rerun and name in rerun:
                first = result
                t = rerun[name]
                result = outcome(t, name, f"{tag}+retry", notes,
                                 warnings.get(f"{config}+retry"))
                notes.append(f"{shown}: {first}, then {result} when rerun "
                             f"({again})")
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

    if args.want_retry:
        for w in dict.fromkeys(want):
            print(w, file=stdout)
        return 0
    for key in sorted(set(expected) - used):
        notes.append(f"expected failure {key} did not run")
    for n in notes:
        print(f"note: {n}")
    for u in unexpected_pass:
        print(f"note: {u}")
    if unexpected:
        print(f"unexpected failures ({len(unexpected)}): {' '.join(unexpected)}")
    # "failed" is what fails the harness; expected failures apart.
    print(f"{passed} passed, {len(unexpected)} failed, {skipped} skipped, "
          f"{failed - len(unexpected)} expected failures")

    if unexpected or (args.strict and unexpected_pass):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
