-- tests/data/nsys/native_mpi.sqlite: two iterations of an MPI + CUDA program written in C (no Python), as
-- nsys 2024.6 exports it (schema 3.16.1's columns the reader reads; PROCESSES and COMPOSITE_EVENTS as in the
-- real exports of ../shared/traces/nsys: PROCESSES(globalPid, pid, name), COMPOSITE_EVENTS(id, start, cpu,
-- threadState, globalTid, cpuCycles), the CPU samples of nsys's default --sample=process-tree).
-- Rebuild: sqlite3 tests/data/nsys/native_mpi.sqlite < tests/data/nsys/native_mpi.sql
-- Times in ns; process ./stencil, pid 7 tid 9 (globalTid (1 << 48) + (7 << 24) + 9). Each 1 ms iteration (the
-- program's own NVTX range "iteration", the steps with --step-marker iteration): launch 0-20 us, kernel
-- 50-250 us, MPI_Send 300-400 us on the step thread (nsys -t mpi writes it as an NVTX range); nothing traced
-- from 20 to 50 us, 250 to 300 us and from 400 us to the iteration's end. Each iteration: compute 200 us
-- (20%), launch 20 us (2%), MPI on the host 100 us (10%: the device idle), host_gap 30 + 50 + 600 = 680 us
-- (68%). No OS runtime calls were traced (no OSRT_API); three CPU samples were taken (not read).
PRAGMA page_size = 512;
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER, text TEXT,
  textId INTEGER, domainId INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER,
  threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.16.1');
INSERT INTO StringIds VALUES (1, 'ampere_sgemm_128x64_nn'), (2, 'cudaLaunchKernel_v7000');
INSERT INTO PROCESSES VALUES (281474976710656, 1, 'systemd'), (281475094151168, 7, './stencil');
INSERT INTO NVTX_EVENTS VALUES (0, 1000000, 59, 281475094151177, 'iteration', NULL, 0),
  (1000000, 2000000, 59, 281475094151177, 'iteration', NULL, 0),
  (300000, 400000, 59, 281475094151177, 'MPI_Send', NULL, 1),
  (1300000, 1400000, 59, 281475094151177, 'MPI_Send', NULL, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0, 20000, 0, 281475094151177, 1, 2),
  (1000000, 1020000, 0, 281475094151177, 2, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (50000, 250000, 0, 7, 1, 281475094151168, 1, 1),
  (1050000, 1250000, 0, 7, 2, 281475094151168, 1, 1);
INSERT INTO COMPOSITE_EVENTS VALUES (1, 500000, 0, 1, 281475094151177, 0),
  (2, 1500000, 0, 1, 281475094151177, 0), (3, 1700000, 0, 1, 281475094151177, 0);
