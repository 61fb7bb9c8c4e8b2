-- tests/data/nsys/os_runtime.sqlite: two steps of a thread that reads its input itself (schema 3.16.1's
-- columns the reader reads). Rebuild: sqlite3 tests/data/nsys/os_runtime.sqlite < tests/data/nsys/os_runtime.sql
-- Times in ns; pid 7 tid 9 (globalTid (1 << 48) + (7 << 24) + 9). Each 1 ms step (ProfilerStep#N): launch
-- 0-20 us, kernel 50-250 us; then read() 300-900 us and pthread_mutex_lock() 900-950 us on the step thread.
-- Each step: compute 200 us (20%), launch 20 us (the call, GPU idle), host_gap 30 + 750 = 780 us (78%: no op
-- or CUDA call on the thread). Behind host_gap over both steps: read 1.200 ms (76.9% of 1.560), the lock
-- 0.100 ms (6.4%), 1.300 ms (83%) inside OS calls; none behind launch.
PRAGMA page_size = 512;
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, globalTid INTEGER, text TEXT,
  textId INTEGER, domainId INTEGER);
CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, nameId INTEGER,
  returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.16.1');
INSERT INTO StringIds VALUES (1, 'ampere_sgemm_128x64_nn'), (2, 'cudaLaunchKernel_v7000'), (3, 'read'),
  (4, 'pthread_mutex_lock');
INSERT INTO NVTX_EVENTS VALUES (0, 1000000, 59, 281475094151177, 'ProfilerStep#1', NULL, 0),
  (1000000, 2000000, 59, 281475094151177, 'ProfilerStep#2', NULL, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (0, 20000, 0, 281475094151177, 1, 2),
  (1000000, 1020000, 0, 281475094151177, 2, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (50000, 250000, 0, 7, 1, 281475094151168, 1, 1),
  (1050000, 1250000, 0, 7, 2, 281475094151168, 1, 1);
INSERT INTO OSRT_API VALUES (300000, 900000, 27, 281475094151177, 3, 0, 0, 1),
  (900000, 950000, 27, 281475094151177, 4, 0, 0, 1),
  (1300000, 1900000, 27, 281475094151177, 3, 0, 0, 1),
  (1900000, 1950000, 27, 281475094151177, 4, 0, 0, 1);
