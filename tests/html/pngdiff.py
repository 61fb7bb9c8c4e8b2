#!/usr/bin/env python3
"""Tolerant screenshot comparison: pngdiff.py GOT.png REFERENCE.png [MAX_FRACTION]

Passes when both images have the same dimensions and at most MAX_FRACTION (default 0.03) of the pixels differ
by more than 48 in some channel. Fonts, anti-aliasing and Chromium versions move a few pixels; a changed chart
or a missing section moves many. A PNG reader of its own on Python's zlib (8-bit greyscale/RGB/RGBA, not
interlaced, as Chromium writes its screenshots), so the test needs no image library."""
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, head = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if head is None:
        raise ValueError("%s: no IHDR" % path)
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in CHANNELS or interlace != 0:
        raise ValueError("%s: unsupported PNG (depth %d, colour type %d, interlace %d)" % (path, depth, colour, interlace))
    bpp = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        base = y * (stride + 1)
        ftype, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif ftype != 0:
                raise ValueError("%s: bad filter %d" % (path, ftype))
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def differing(a, b, bpp, threshold=48):
    n = 0
    channels = min(bpp, 3)
    for ra, rb in zip(a, b):
        if ra == rb:
            continue
        for x in range(0, len(ra), bpp):
            if any(abs(ra[x + k] - rb[x + k]) > threshold for k in range(channels)):
                n += 1
    return n


def main():
    got, ref = sys.argv[1], sys.argv[2]
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 0.03
    w1, h1, b1, r1 = read_png(got)
    w2, h2, b2, r2 = read_png(ref)
    if (w1, h1) != (w2, h2):
        print("screenshot %s is %dx%d, reference %s is %dx%d" % (got, w1, h1, ref, w2, h2))
        return 1
    if b1 != b2:
        print("screenshot and reference differ in colour type")
        return 1
    frac = differing(r1, r2, b1) / float(w1 * h1)
    if frac > limit:
        print("screenshot %s differs from %s in %.2f%% of its pixels (limit %.2f%%)" % (got, ref, 100 * frac, 100 * limit))
        return 1
    print("screenshot matches the reference: %.2f%% of pixels differ (limit %.2f%%)" % (100 * frac, 100 * limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
