#!/usr/bin/env python3
"""Prints one line per traceEvents element, as test_trace_read prints what trace_read() hands over, using
only python's json module (exact decimals) -- an independent reading to compare the C reader with.
Fields: index|ph|category|cat|name|pid|tid|has_ts|ts_ns|has_dur|dur_ns|device|stream|correlation|external_id
Strings are printed JSON-escaped (the reader keeps escapes as written); string pid/tid as the reader's
FNV-1a id with bit 62 set; ts/dur as nanoseconds rounded half away from zero."""
import decimal
import gzip
import json
import sys

# trace_category values, in the order of the enum in include/nextstep/trace_read.h
CATEGORIES = {
    "cpu_op": 1, "Operator": 1, "user_annotation": 2, "gpu_user_annotation": 3,
    "cuda_runtime": 4, "Runtime": 4, "cuda_driver": 4, "kernel": 5, "Kernel": 5,
    "gpu_memcpy": 6, "Memcpy": 6, "gpu_memset": 7, "Memset": 7,
    "ac2g": 8, "fwdbwd": 8, "async": 8, "python_function": 9,
}


def string_id(text):
    h = 14695981039346656037
    for b in text.encode():
        h = ((h ^ b) * 1099511628211) & ((1 << 64) - 1)
    return (h & ~(3 << 62)) | (1 << 62)


def nanoseconds(value):
    return int((decimal.Decimal(value) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def an_id(value):
    if isinstance(value, str):
        return string_id(value)
    if isinstance(value, (int, decimal.Decimal)) and not isinstance(value, bool):
        return int(value)
    return -1


def as_written(text):
    return json.dumps(text, ensure_ascii=False)[1:-1]


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    out = sys.stdout
    for i, ev in enumerate(doc["traceEvents"]):
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}

        def arg(*keys):
            for k in keys:
                if k in args:
                    return an_id(args[k]) if not isinstance(args[k], str) else -1
            return -1

        ph = ev.get("ph") or "-"
        cat = ev.get("cat", "")
        out.write("%d|%s|%d|%s|%s|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d\n" % (
            i, ph[0], CATEGORIES.get(cat, 0), as_written(cat), as_written(ev.get("name", "")),
            an_id(ev.get("pid")), an_id(ev.get("tid")),
            "ts" in ev, nanoseconds(ev["ts"]) if "ts" in ev else 0,
            "dur" in ev, nanoseconds(ev["dur"]) if "dur" in ev else 0,
            arg("device"), arg("stream"), arg("correlation"), arg("External id", "external id")))


if __name__ == "__main__":
    main(sys.argv[1])
