package vacuum

// The real outputs (PostgreSQL 13 to 18, trimmed) TestCases reads.

const pg13ThreePasses = `Timing is on.
SET maintenance_work_mem = '1MB';
SET
Time: 0.994 ms
VACUUM (VERBOSE) m;
INFO:  vacuuming "public.m"
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  scanned index "m_id" to remove 174472 row versions
DETAIL:  CPU: user: 0.08 s, system: 0.00 s, elapsed: 0.29 s
INFO:  scanned index "m_k" to remove 174472 row versions
DETAIL:  CPU: user: 0.07 s, system: 0.01 s, elapsed: 0.28 s
INFO:  "m": removed 174472 row versions in 965 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  scanned index "m_id" to remove 174472 row versions
DETAIL:  CPU: user: 0.03 s, system: 0.00 s, elapsed: 0.09 s
INFO:  scanned index "m_k" to remove 174472 row versions
DETAIL:  CPU: user: 0.06 s, system: 0.00 s, elapsed: 0.17 s
INFO:  "m": removed 174472 row versions in 965 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.02 s
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  scanned index "m_id" to remove 131056 row versions
DETAIL:  CPU: user: 0.02 s, system: 0.00 s, elapsed: 0.04 s
INFO:  scanned index "m_k" to remove 131056 row versions
DETAIL:  CPU: user: 0.04 s, system: 0.00 s, elapsed: 0.17 s
INFO:  "m": removed 131056 row versions in 725 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
INFO:  index "m_id" now contains 120000 row versions in 1648 pages
DETAIL:  480000 index row versions were removed.
0 index pages have been deleted, 0 are currently reusable.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  index "m_k" now contains 120000 row versions in 603 pages
DETAIL:  480000 index row versions were removed.
396 index pages have been deleted, 0 are currently reusable.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  "m": found 480000 removable, 120000 nonremovable row versions in 2655 out of 2655 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 569
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.29 s, system: 0.00 s, elapsed: 1.12 s.
VACUUM
Time: 1143.446 ms (00:01.143)
`

const pg14Truncated = `VACUUM (VERBOSE) tr;
INFO:  vacuuming "public.tr"
INFO:  scanned index "tr_pkey" to remove 15000 row versions
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
INFO:  table "tr": removed 15000 dead item identifiers in 259 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
INFO:  index "tr_pkey" now contains 5000 row versions in 57 pages
DETAIL:  15000 index row versions were removed.
40 index pages were newly deleted.
40 index pages are currently deleted, of which 0 are currently reusable.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  table "tr": found 15000 removable, 5000 nonremovable row versions in 345 out of 345 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 819
Skipped 0 pages due to buffer pins, 0 frozen pages.
CPU: user: 0.01 s, system: 0.00 s, elapsed: 0.04 s.
INFO:  table "tr": truncated 345 to 87 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
INFO:  vacuuming "pg_toast.pg_toast_192892"
INFO:  table "pg_toast_192892": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 820
Skipped 0 pages due to buffer pins, 0 frozen pages.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
VACUUM
Time: 46.958 ms
`

const pg15Truncated = `VACUUM (VERBOSE) tr;
INFO:  vacuuming "postgres.public.tr"
INFO:  table "tr": truncated 345 to 87 pages
INFO:  finished vacuuming "postgres.public.tr": index scans: 1
pages: 258 removed, 87 remain, 345 scanned (100.00% of total)
tuples: 15000 removed, 5000 remain, 0 are dead but not yet removable
removable cutoff: 821, which was 1 XIDs old when operation ended
new relfrozenxid: 805, which is 1 XIDs ahead of previous value
index scan needed: 259 pages from table (75.07% of total) had 15000 dead item identifiers removed
index "tr_pkey": pages: 57 in total, 40 newly deleted, 40 currently deleted, 0 reusable
avg read rate: 0.280 MB/s, avg write rate: 0.420 MB/s
buffer usage: 1582 hits, 2 misses, 3 dirtied
WAL usage: 990 records, 1 full page images, 154535 bytes
system usage: CPU: user: 0.01 s, system: 0.00 s, elapsed: 0.05 s
VACUUM
Time: 57.472 ms
`

const pg14Bypassed = `VACUUM (VERBOSE) bp;
INFO:  vacuuming "public.bp"
INFO:  table "bp": index scan bypassed: 1 pages from table (0.12% of total) have 3 dead item identifiers
INFO:  table "bp": found 3 removable, 59 nonremovable row versions in 2 out of 863 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 820
Skipped 0 pages due to buffer pins, 861 frozen pages.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
VACUUM
`

const pg15Bypassed = `VACUUM (VERBOSE) bp;
INFO:  vacuuming "postgres.public.bp"
INFO:  finished vacuuming "postgres.public.bp": index scans: 0
pages: 0 removed, 863 remain, 2 scanned (0.23% of total)
tuples: 3 removed, 50000 remain, 0 are dead but not yet removable
removable cutoff: 822, which was 0 XIDs old when operation ended
new relfrozenxid: 822, which is 11 XIDs ahead of previous value
index scan bypassed: 1 pages from table (0.12% of total) have 3 dead item identifiers
avg read rate: 14.001 MB/s, avg write rate: 0.000 MB/s
buffer usage: 30 hits, 1 misses, 0 dirtied
WAL usage: 2 records, 0 full page images, 297 bytes
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
VACUUM
`

const pg13NoIndex = `VACUUM (VERBOSE) noidx;
INFO:  vacuuming "public.noidx"
INFO:  "noidx": removed 1666 row versions in 87 pages
INFO:  "noidx": found 1666 removable, 3334 nonremovable row versions in 87 out of 87 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 572
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  vacuuming "pg_toast.pg_toast_192917"
INFO:  "pg_toast_192917": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 572
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
VACUUM
Time: 9.119 ms
VACUUM (VERBOSE) does_not_exist;
ERROR:  relation "does_not_exist" does not exist
Time: 0.723 ms
`

const pg13Inheritance = `VACUUM (VERBOSE, ANALYZE) parent;
INFO:  analyzing "public.parent" inheritance tree
INFO:  "child1": scanned 5 of 5 pages, containing 1000 live rows and 0 dead rows; 1000 rows in sample, 1000 estimated total rows
INFO:  "child2": scanned 5 of 5 pages, containing 1000 live rows and 0 dead rows; 1000 rows in sample, 1000 estimated total rows
INFO:  vacuuming "public.child1"
INFO:  "child1": found 0 removable, 1000 nonremovable row versions in 5 out of 5 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 573
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  analyzing "public.child1"
INFO:  "child1": scanned 5 of 5 pages, containing 1000 live rows and 0 dead rows; 1000 rows in sample, 1000 estimated total rows
VACUUM
Time: 17.971 ms
`

const pg18Analyze = `INFO:  analyzing "public.t"
INFO:  "t": scanned 215 of 215 pages, containing 18000 live rows and 0 dead rows; 18000 rows in sample, 18000 estimated total rows
INFO:  finished analyzing table "postgres.public.t"
I/O timings: read: 0.953 ms, write: 0.031 ms
avg read rate: 4.580 MB/s, avg write rate: 2.694 MB/s
buffer usage: 442 hits, 17 reads, 10 dirtied
WAL usage: 13 records, 7 full page images, 38641 bytes, 0 buffers full
system usage: CPU: user: 0.01 s, system: 0.01 s, elapsed: 0.02 s
VACUUM
Time: 170.330 ms
`

const pg18Special = `Timing is on.
VACUUM (VERBOSE) pin;
INFO:  vacuuming "postgres.public.pin"
INFO:  finished vacuuming "postgres.public.pin": index scans: 1
pages: 0 removed, 35 remain, 35 scanned (100.00% of total), 0 eagerly scanned
tuples: 942 removed, 1029 remain, 0 are dead but not yet removable
tuples missed: 29 dead from 1 pages not removed due to cleanup lock contention
removable cutoff: 861, which was 0 XIDs old when operation ended
new relfrozenxid: 855, which is 1 XIDs ahead of previous value
new relminmxid: 2, which is 1 MXIDs ahead of previous value
frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
visibility map: 34 pages set all-visible, 0 pages set all-frozen (0 were all-visible)
index scan needed: 34 pages from table (97.14% of total) had 971 dead item identifiers removed
index "pin_pkey": pages: 8 in total, 0 newly deleted, 0 currently deleted, 0 reusable
I/O timings: read: 0.000 ms, write: 0.054 ms
avg read rate: 0.000 MB/s, avg write rate: 2.212 MB/s
buffer usage: 172 hits, 0 reads, 3 dirtied
WAL usage: 111 records, 3 full page images, 36800 bytes, 0 buffers full
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
VACUUM
Time: 18.459 ms
SET track_cost_delay_timing = on;
SET
Time: 4.134 ms
SET vacuum_cost_delay = 1;
SET
Time: 0.200 ms
VACUUM (VERBOSE, FREEZE) mx;
INFO:  aggressively vacuuming "postgres.public.mx"
INFO:  finished vacuuming "postgres.public.mx": index scans: 0
pages: 0 removed, 1 remain, 1 scanned (100.00% of total), 0 eagerly scanned
tuples: 0 removed, 100 remain, 0 are dead but not yet removable
removable cutoff: 861, which was 0 XIDs old when operation ended
new relfrozenxid: 861, which is 4 XIDs ahead of previous value
new relminmxid: 2, which is 1 MXIDs ahead of previous value
frozen: 1 pages from table (100.00% of total) had 100 tuples frozen
visibility map: 1 pages set all-visible, 1 pages set all-frozen (0 were all-visible)
index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
delay time: 0.000 ms
I/O timings: read: 0.000 ms, write: 0.061 ms
avg read rate: 0.000 MB/s, avg write rate: 33.034 MB/s
buffer usage: 31 hits, 0 reads, 4 dirtied
WAL usage: 6 records, 4 full page images, 33554 bytes, 0 buffers full
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
VACUUM
Time: 1.579 ms
`

// pg15VerboseFile is psql -f with \set VERBOSITY verbose: each message
// starts with "psql:FILE:N: " and carries its SQLSTATE and LOCATION.
const pg15VerboseFile = `psql:case.sql:2: INFO:  00000: vacuuming "postgres.public.noidx"
LOCATION:  heap_vacuum_rel, vacuumlazy.c:409
psql:case.sql:2: INFO:  00000: finished vacuuming "postgres.public.noidx": index scans: 0
pages: 0 removed, 87 remain, 1 scanned (1.15% of total)
tuples: 0 removed, 3334 remain, 0 are dead but not yet removable
removable cutoff: 833, which was 0 XIDs old when operation ended
new relfrozenxid: 833, which is 8 XIDs ahead of previous value
new relminmxid: 2, which is 1 MXIDs ahead of previous value
index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
buffer usage: 10 hits, 0 misses, 0 dirtied
WAL usage: 1 records, 0 full page images, 188 bytes
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
LOCATION:  heap_vacuum_rel, vacuumlazy.c:770
VACUUM
`

// pg13Quiet is psql -q -e: no command tags, so one statement's output runs
// into the next statement's echo.
const pg13Quiet = `VACUUM (VERBOSE) t;
INFO:  vacuuming "public.t"
INFO:  "t": found 0 removable, 5 nonremovable row versions in 1 out of 1 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 583
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
vacuum (verbose) pg_toast.pg_toast_16384;
INFO:  vacuuming "pg_toast.pg_toast_16384"
INFO:  "pg_toast_16384": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 583
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
`
