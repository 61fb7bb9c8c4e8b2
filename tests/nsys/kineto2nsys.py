#!/usr/bin/env python3
"""kineto2nsys: a PyTorch-profiler (Kineto) JSON trace rewritten as an Nsight Systems SQLite export.

usage: kineto2nsys.py TRACE.json[.gz] OUT.sqlite [PAGE_SIZE]
       kineto2nsys.py --batch < PAIRS     each line TRACE<TAB>OUT.sqlite, in one process (a Python start costs
                                          about what a small conversion does); a conversion that fails prints
                                          OUT<TAB>its error and the others go on; the last line is "converted N"

PAGE_SIZE (default 4096, as nsys writes) is SQLite's page size: 512 makes the smallest file, for a fixture.

The events become the rows Nsight Systems would have written for the same activity, in the layout of export
schema 3.16.1 (nsys 2024.6; the tables and columns docs/nsys.md lists, plus the NOT NULL columns around them):

  kernel                         -> CUPTI_ACTIVITY_KIND_KERNEL (demangledName/shortName in StringIds)
  gpu_memcpy, gpu_memset         -> CUPTI_ACTIVITY_KIND_MEMCPY (copyKind, srcKind, dstKind from the name),
                                    CUPTI_ACTIVITY_KIND_MEMSET
  cuda_sync                      -> CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
  cuda_runtime, cuda_driver      -> CUPTI_ACTIVITY_KIND_RUNTIME (eventClass 0 / 1; runtime names get nsys's
                                    "_v3020"-style version suffix)
  cpu_op, user_annotation        -> NVTX_EVENTS push/pop ranges (eventType 59), named as written
  deviceProperties               -> TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE
  distributedInfo rank/world     -> META_DATA_CAPTURE: the environment RANK="r", WORLD_SIZE="w"
  thread_name / process_name (M) -> ThreadNames / PROCESSES

Dropped, because an export has no place for them (counted on stderr): python_function frames,
gpu_user_annotation (nsys projects NVTX onto the GPU only in its viewer), flow events (nsys links by
correlationId), the profiler's own span, External ids and op args (shapes, collective metadata).
Times are exact: the trace's microsecond decimals are read as decimals, never as floats. Standard library only.
"""
import gzip
import json
import os
import re
import sqlite3
import sys
from decimal import Decimal

VM = 1 << 48  # the serialized id's upper bits, as real exports carry them (vmId 281474976710656)

COPY_KINDS = {"HtoD": 1, "DtoH": 2, "HtoA": 3, "AtoH": 4, "AtoA": 5, "AtoD": 6, "DtoA": 7, "DtoD": 8,
              "HtoH": 9, "PtoP": 10}
MEM_KINDS = {"Pageable": 0, "Pinned": 1, "Device": 2, "Array": 3, "Managed": 4, "Device Static": 5,
             "Managed Static": 6, "Unknown": 7}
SYNC_KINDS = {"Event Sync": 1, "Stream Wait Event": 2, "Stream Sync": 3, "Context Sync": 4}

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE META_DATA_CAPTURE (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, totalMemory INTEGER, smCount INTEGER, cuDevice INTEGER, computeMajor INTEGER,
  computeMinor INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL, uuid TEXT,
  numMultiprocessors INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
"""


def ns(value, what):
    """Kineto microseconds (a Decimal) as integer nanoseconds, exactly."""
    v = Decimal(value) * 1000
    if v != v.to_integral_value():
        raise ValueError("%s %s us is not a whole number of nanoseconds" % (what, value))
    return int(v)


class Ids:
    """Small ids for the export: nsys packs pid and tid in 24 bits each."""

    def __init__(self):
        self.pids, self.tids = {}, {}

    def pid(self, p):
        if isinstance(p, int) and 0 <= p < (1 << 24):
            return p
        return self.pids.setdefault(p, (1 << 23) + len(self.pids))

    def tid(self, p, t):
        if isinstance(t, int) and 0 <= t < (1 << 24):
            return t
        return self.tids.setdefault((p, t), (1 << 23) + len(self.tids))

    def global_tid(self, p, t):
        return VM + (self.pid(p) << 24) + self.tid(p, t)

    def global_pid(self, p):
        return VM + (self.pid(p) << 24)


def short_name(name):
    """nsys's shortName: the function's base name, without return type, template arguments or parameters."""
    base = re.sub(r"^void ", "", name)
    base = re.split(r"[<(]", base, 1)[0]
    return base.split("::")[-1] or name


def is_op_name(name):
    """What the reader takes for an op (src/nsys/nsys_map.c, nsys_range_of), so each category round-trips."""
    return ("::" in name or name == "record_param_comms" or name.startswith(("nccl:", "gloo:", "nvshmem"))
            or re.search(r"Backward\d+$", name) is not None)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def convert(src, dst, page_size=4096):
    doc = load(src)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    if os.path.exists(dst):
        os.remove(dst)
    db = sqlite3.connect(dst)
    db.execute("PRAGMA page_size = %d" % page_size)
    db.executescript(SCHEMA)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    ids = Ids()
    dropped, written, mismatched = {}, {}, 0
    launch_pid = {}  # correlation -> pid of the runtime call
    host_pids = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime") and "correlation" in e.get("args", {}):
            launch_pid[e["args"]["correlation"]] = e["pid"]
            host_pids[e["pid"]] = host_pids.get(e["pid"], 0) + 1
    main_pid = max(host_pids, key=host_pids.get) if host_pids else 0
    open_b = {}
    for e in events:
        cat, ph, args = e.get("cat"), e.get("ph"), e.get("args", {})
        if ph == "M":
            if e.get("name") == "thread_name":
                db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)",
                           (sid(str(args.get("name", ""))), ids.global_tid(e["pid"], e.get("tid", 0))))
            elif e.get("name") == "process_name" and isinstance(e.get("pid"), int):
                db.execute("INSERT INTO PROCESSES VALUES (?, ?, ?)",
                           (ids.global_pid(e["pid"]), ids.pid(e["pid"]), str(args.get("name", ""))))
            continue
        if ph == "B":
            open_b.setdefault((e.get("pid"), e.get("tid")), []).append(e)
            continue
        if ph == "E":
            stack = open_b.get((e.get("pid"), e.get("tid")))
            if not stack:
                continue
            b = stack.pop()
            e = dict(b, ph="X", dur=Decimal(e["ts"]) - Decimal(b["ts"]))
            cat, ph, args = e.get("cat"), "X", e.get("args", {})
        if ph != "X" or "ts" not in e:
            dropped[cat or ph] = dropped.get(cat or ph, 0) + 1
            continue
        start = ns(e["ts"], "ts")
        end = start + ns(e.get("dur", 0), "dur")
        name = e.get("name", "")
        corr = args.get("correlation")
        if cat in ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cuda_sync"):
            gpid = ids.global_pid(launch_pid.get(corr, main_pid))
            dev, stream = args.get("device", e.get("pid")), args.get("stream", e.get("tid"))
            if cat in ("kernel", "Kernel"):
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,1,0,?,?,?,?,?,NULL,1,0,32,1,1,1,"
                           "128,1,1,0,0,0,0,0,0,NULL,0)",
                           (start, end, dev, stream, corr, gpid, sid(name), sid(short_name(name))))
            elif cat in ("gpu_memcpy", "Memcpy"):
                m = re.match(r"Memcpy (\w+) \((.+) -> (.+)\)$", name)
                kind, srck, dstk = (COPY_KINDS.get(m.group(1), 0), MEM_KINDS.get(m.group(2), 7),
                                    MEM_KINDS.get(m.group(3), 7)) if m else (0, 7, 7)
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,1,0,?,?,?,?,?,NULL,?,?,"
                           "NULL,NULL,NULL,NULL,NULL,NULL,NULL)",
                           (start, end, dev, stream, corr, gpid, int(args.get("bytes", 0)), kind, srck, dstk))
            elif cat in ("gpu_memset", "Memset"):
                m = re.match(r"Memset \((.+)\)$", name)
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,?,1,0,?,?,?,0,?,NULL,?)",
                           (start, end, dev, stream, corr, gpid, int(args.get("bytes", 0)),
                            MEM_KINDS.get(m.group(1), 2) if m else 2))
            else:
                db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?,?,?,1,NULL,?,?,?,?,0)",
                           (start, end, dev, stream, corr, gpid, SYNC_KINDS.get(name, 0)))
        elif cat in ("cuda_runtime", "cuda_driver", "Runtime"):
            cls = 1 if cat == "cuda_driver" else 0
            api = name if cls == 1 or re.search(r"_v\d{4,}$", name) else name + "_v3020"
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,0,NULL)",
                       (start, end, cls, ids.global_tid(e["pid"], e["tid"]), corr, sid(api)))
        elif cat in ("cpu_op", "Operator", "user_annotation"):
            mismatched += is_op_name(name) != (cat != "user_annotation")
            db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
                       "VALUES (?,?,59,?,?,0)", (start, end, name, ids.global_tid(e["pid"], e["tid"])))
        else:
            dropped[cat] = dropped.get(cat, 0) + 1
            continue
        written[cat] = written.get(cat, 0) + 1
    for stack in open_b.values():  # still open when the capture stopped: an NVTX range without its end
        for b in stack:
            if b.get("cat") in ("cpu_op", "Operator", "user_annotation"):
                db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) "
                           "VALUES (?,NULL,59,?,?,0)",
                           (ns(b["ts"], "ts"), b.get("name", ""), ids.global_tid(b["pid"], b["tid"])))
                written["open " + b["cat"]] = written.get("open " + b["cat"], 0) + 1
    target(db, doc, ids, main_pid)
    db.commit()
    db.close()
    report(src, written, dropped, mismatched)


def target(db, doc, ids, main_pid):
    """The devices, the rank and the export's own metadata."""
    meta = doc if isinstance(doc, dict) else {}
    for d in meta.get("deviceProperties", []):
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (?,?,?,'',1,?,?,?,?,?)",
                   (VM, d["id"], d.get("name"), d.get("totalGlobalMem"), d.get("numSms"), d["id"],
                    d.get("computeMajor"), d.get("computeMinor")))
        db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (?,?,?,'',?)",
                   (d["id"], d["id"], ids.pid(main_pid), d.get("numSms")))
    dist = meta.get("distributedInfo", {})
    env = [("RANK", dist.get("rank")), ("WORLD_SIZE", dist.get("world_size"))]
    for k, v in env:
        if v is not None:
            db.execute("INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', ?)",
                       ('%s="%s"' % (k, v),))
    for k, v in (("EXPORT_PRODUCT_NAME", "kineto2nsys (nextstep tests/nsys)"), ("EXPORT_SCHEMA_VERSION", "3.16.1"),
                 ("EXPORT_SCHEMA_VERSION_MAJOR", "3"), ("EXPORT_SCHEMA_VERSION_MINOR", "16"),
                 ("EXPORT_SCHEMA_VERSION_MICRO", "1")):
        db.execute("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", (k, v))
    db.executemany("INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES (?, ?, ?)",
                   [(34, "NvtxMark", "NvtxMark"), (39, "NvtxThread", "NvtxThread"),
                    (59, "NvtxPushPopRange", "NvtxPushPopRange"), (60, "NvtxStartEndRange", "NvtxStartEndRange")])


def report(src, written, dropped, mismatched):
    def fmt(d):
        return ", ".join("%s %d" % (k, v) for k, v in sorted(d.items(), key=lambda kv: str(kv[0]))) or "none"

    print("kineto2nsys: %s: written: %s; dropped: %s" % (src, fmt(written), fmt(dropped)), file=sys.stderr)
    if mismatched:
        print("kineto2nsys: %s: %d op/annotation names would read back in the other category"
              % (src, mismatched), file=sys.stderr)


def batch(lines):
    """Converts each TRACE<TAB>OUT line; returns the number that failed."""
    failed = converted = 0
    for line in lines:
        src, dst = line.rstrip("\n").split("\t")
        try:
            convert(src, dst)
            converted += 1
        except Exception as e:  # pylint: disable=broad-except  # one bad fixture fails its own check only
            print("%s\t%s: %r" % (dst, type(e).__name__, e))
            failed += 1
    print("converted %d" % converted)
    return failed


def main(argv):
    if argv[1:] == ["--batch"]:
        return 1 if batch(sys.stdin) else 0
    if len(argv) not in (3, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    convert(argv[1], argv[2], int(argv[3]) if len(argv) == 4 else 4096)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
