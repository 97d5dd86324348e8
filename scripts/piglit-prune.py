#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Prune Debian's piglit (about 2 GB installed, nearly all of it generated
# tests) down to its GLES 2.0 part, in a guest root being built
# (scripts/build-image.sh --gl):
#
#   piglit-prune.py PIGLIT_DIR      e.g. ROOT/usr/lib/x86_64-linux-gnu/piglit
#
# Kept: the runner (framework/, templates/, the Python modules and the
# profiles of the "all" meta profile in tests/: opengl, shader, glslparser,
# which `piglit run all --test-list` reads), the GLES 2 utility library,
# every test binary linked against it (readelf: NEEDED
# libpiglitutil_gles2.so.0: the *_gles2 tests, shader_runner_gles2,
# glslparsertest_gles2 and a few EGL/ES extension tests), and the files
# that those binaries' tests in the kept profiles name on their command
# lines (shader_test files, glslparser sources, built-in-constants' lists).
# Everything else goes: the other binaries and utility libraries, the
# other profiles, and tests/ and generated_tests/ but for the named files.
# Prints what it kept.
import gzip
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as et
import ast

GLES2_LIB = 'libpiglitutil_gles2.so.0'
PROFILES = ['opengl', 'shader', 'glslparser']
KEEP_LIBS = ('libpiglitutil.so', 'libpiglitutil_gles2.so')


def needs_gles2(path):
    out = subprocess.run(['readelf', '-d', path], capture_output=True,
                         text=True).stdout
    return f'[{GLES2_LIB}]' in out


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def main():
    top = sys.argv[1]
    if not os.path.isdir(os.path.join(top, 'framework')):
        sys.exit(f'piglit-prune: no piglit in {top}')
    before = du(top)

    bindir = os.path.join(top, 'bin')
    keep_bins = set()
    for name in sorted(os.listdir(bindir)):
        path = os.path.join(bindir, name)
        if os.path.isfile(path) and needs_gles2(path):
            keep_bins.add(name)
        else:
            os.remove(path)

    libdir = os.path.join(top, 'lib')
    for name in os.listdir(libdir):
        if not name.startswith(KEEP_LIBS):
            os.remove(os.path.join(libdir, name))

    # The data files the kept binaries' tests name.
    keep_files = set()
    tests = 0
    for prof in PROFILES:
        with gzip.open(os.path.join(top, 'tests', prof + '.xml.gz'), 'rt') as f:
            for _, e in et.iterparse(f):
                if e.tag != 'Test':
                    continue
                for o in e.findall('option'):
                    if o.get('name') != 'command':
                        continue
                    cmd = ast.literal_eval(o.get('value'))
                    if not cmd or cmd[0] not in keep_bins:
                        continue
                    tests += 1
                    # Paths are relative to piglit's directory, but
                    # built-in-constants' list to tests/.
                    for a in cmd[1:]:
                        for rel in (a, os.path.join('tests', a)):
                            if (rel.startswith(('tests/', 'generated_tests/'))
                                    and os.path.isfile(os.path.join(top, rel))):
                                keep_files.add(os.path.normpath(rel))
                e.clear()

    # tests/: its top-level files (Python modules, profiles) and py_modules/,
    # but only the kept profiles' XML; generated_tests/: nothing but the
    # named files.
    keep_xml = {p + '.xml.gz' for p in PROFILES}
    for name in os.listdir(os.path.join(top, 'tests')):
        path = os.path.join(top, 'tests', name)
        if os.path.isfile(path):
            if name.endswith('.xml.gz') and name not in keep_xml:
                os.remove(path)
            elif name.endswith('.meta.xml') and name != 'all.meta.xml':
                os.remove(path)
    for sub in ('tests', 'generated_tests'):
        base = os.path.join(top, sub)
        for d, dirs, files in os.walk(base, topdown=False):
            rel = os.path.relpath(d, top)
            if rel == 'tests' or rel.startswith('tests/py_modules'):
                continue
            for f in files:
                if os.path.normpath(os.path.join(rel, f)) not in keep_files:
                    os.remove(os.path.join(d, f))
            if not os.listdir(d) and d != base:
                os.rmdir(d)
    after = du(top)
    print(f'piglit-prune: {len(keep_bins)} GLES 2 binaries, {tests} tests '
          f'in {"/".join(PROFILES)} use them, {len(keep_files)} data files; '
          f'{before >> 20} MiB -> {after >> 20} MiB')


if __name__ == '__main__':
    main()
