#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare a screendump with a reference image, at a quarter of the size.

usage: imgcmp.py [--update] [--out OUT.png] SCREEN.ppm REFERENCE.png

SCREEN (a QMP screendump, P6 PPM) is scaled down by 4 in each direction
(each pixel the rounded mean of a 4x4 block, per channel) and compared
with REFERENCE (8-bit RGB PNG, as --update writes it). It matches when
the sizes agree, no more than 0.5% of the pixels differ by more than 8
in any channel, and the mean absolute channel difference is below 1:
the scene is rendered by the device's fixed-point rasterizer from
vertices computed with libm, so a different libm may move an edge by a
pixel, and nothing more. --out writes the scaled screendump as PNG;
--update makes it the reference.

Exit status 0 on a match, 1 otherwise.
"""
import argparse
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ppm2png import read_ppm, write_png  # noqa: E402

SCALE = 4
TOLERANCE = 8
MAX_DIFFERENT = 0.005
MAX_MEAN = 1.0


def read_png(path):
    """W, H and RGB bytes of an 8-bit RGB, non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"imgcmp: {path}: not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, ctype, interlace) != (8, 2, 0):
                sys.exit(f"imgcmp: {path}: not 8-bit RGB non-interlaced")
        elif kind == b"IDAT":
            idat += body
    if w is None:
        sys.exit(f"imgcmp: {path}: no IHDR")
    raw, stride, bpp = zlib.decompress(idat), w * 3, 3
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        out += line
        prev = line
    return w, h, bytes(out)


def scale_down(w, h, px):
    sw, sh = w // SCALE, h // SCALE
    out = bytearray(sw * sh * 3)
    n = SCALE * SCALE
    for y in range(sh):
        for x in range(sw):
            for ch in range(3):
                total = 0
                for dy in range(SCALE):
                    row = ((y * SCALE + dy) * w + x * SCALE) * 3 + ch
                    total += sum(px[row + 3 * dx] for dx in range(SCALE))
                out[(y * sw + x) * 3 + ch] = (total + n // 2) // n
    return sw, sh, bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("screen")
    ap.add_argument("reference")
    args = ap.parse_args()

    w, h, px = scale_down(*read_ppm(args.screen))
    if args.out:
        write_png(args.out, w, h, px)
    if args.update:
        write_png(args.reference, w, h, px)
        print(f"imgcmp: {args.reference}: {w}x{h}, written")
        return 0
    rw, rh, ref = read_png(args.reference)
    if (rw, rh) != (w, h):
        print(f"imgcmp: size {w}x{h}, reference {rw}x{rh}: MISMATCH")
        return 1
    different = total = 0
    for i in range(0, len(px), 3):
        d = [abs(px[i + c] - ref[i + c]) for c in range(3)]
        total += sum(d)
        different += max(d) > TOLERANCE
    frac, mean = different / (w * h), total / len(px)
    ok = frac <= MAX_DIFFERENT and mean < MAX_MEAN
    print(f"imgcmp: {w}x{h}: {different} pixels ({frac:.3%}) differ by more "
          f"than {TOLERANCE}, mean difference {mean:.3f}: "
          f"{'match' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
