#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# A piglit XML profile of just the tests a list names, for the --gl image
# (scripts/build-image.sh):
#
#   piglit-profile.py LIST OUT PROFILE.xml.gz...
#
# `piglit run all --test-list LIST` builds a test object for every test of
# the "all" profile (opengl, shader and glslparser: some 60000) before it
# picks the listed ones: 150 s of the guest's time a run. A profile of the
# listed tests alone, in piglit's own XML form (the <Test> elements copied
# as they are, run_concurrent included), loads at once; vdxg_gl runs it by
# its absolute path. Every listed test must be in one of the profiles.
import gzip
import sys
import xml.etree.ElementTree as et


def read_list(path):
    with open(path, encoding='utf-8') as f:
        return [line.strip() for line in f
                if line.strip() and not line.startswith('#')]


def main():
    if len(sys.argv) < 4:
        sys.exit('usage: piglit-profile.py LIST OUT PROFILE.xml.gz...')
    wanted = read_list(sys.argv[1])
    names = set(wanted)
    found = {}
    for path in sys.argv[3:]:
        with gzip.open(path, 'rb') as f:
            for _, e in et.iterparse(f, events=('end',)):
                if e.tag == 'Test' and e.attrib.get('name') in names:
                    found[e.attrib['name']] = et.tostring(e)
    missing = [n for n in wanted if n not in found]
    if missing:
        sys.exit('piglit-profile.py: not in the profiles: ' +
                 ', '.join(missing))
    root = et.Element('PiglitTestList', count=str(len(wanted)),
                      name='vdxg-gles2')
    for n in wanted:
        root.append(et.fromstring(found[n]))
    with gzip.open(sys.argv[2], 'wb') as f:
        et.ElementTree(root).write(f, encoding='utf-8', xml_declaration=True)
    print(f'piglit-profile.py: {len(wanted)} tests in {sys.argv[2]}')


if __name__ == '__main__':
    main()
