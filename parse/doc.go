// Package parse is the contract the parsers of raw text share; the parsers
// themselves are its sub-packages, one per source:
//
//   - psql: psql's output (echoed statements, result tables, Time: lines,
//     server messages and their psql:FILE:LINE: prefix);
//   - vacuum: VACUUM (VERBOSE) as psql prints it or as notices, and the
//     autovacuum entries of a server log;
//   - explain: EXPLAIN in JSON and text, a plan's shape and fingerprint;
//   - diskstats: /proc/diskstats; procstat: /proc/stat; cgroupio: a
//     cgroup's I/O counters (v2 io.stat, v1 blkio.throttle.*);
//   - hostfacts: the host facts the collector records (/proc/meminfo,
//     /proc/cpuinfo, /etc/os-release, a block device's queue and size);
//   - pgstat: the rows of the statistics views, as JSON;
//   - pgbench and sysbench: the benchmark clients' output.
//
// Every parser is a pure function over an io.Reader (or a string) and a
// source name (a file name, or "run 12:stdout"), and follows the same
// rules:
//
//  1. An error is a *SyntaxError naming source:line and what was expected.
//  2. A line it does not understand is returned as a Warning with its line
//     number, beside the result; nothing is dropped silently.
//  3. Input that holds nothing of its kind (empty, binary, another tool's
//     output) is an error, not an empty result.
//  4. A field a version does not print is absent (a nil pointer, or an
//     Opt that is not Valid in the rows read by the thousand), never
//     zero.
//  5. Input is read with bounds: Lines refuses a line longer than MaxLine
//     and binary data (named gzip, bzip2, zstd or xz when it starts as
//     one: the parsers read text, and pgstudy parse decompresses a server
//     log before), ReadText input longer than MaxText, and so do the
//     parsers that hold every record of an input (pgbench's and
//     sysbench's Parse; their ParseSeq holds one line and the summary):
//     before reading when its Size is known, else as its lines pass it.
//
// The lines a parser reads by the thousand (diskstats's devices, pgbench's
// progress, sysbench's intervals, cgroup files, /proc/stat) are read from
// Lines' bytes, split by Fields into an array, without a string or a slice
// of their own; the optional figures of pgbench's and sysbench's rows are
// Opts, so that the rows hold no pointer, and the rows are gathered in
// chunks (parse/internal/batch), where the optional figures other records
// point to come from batches: docs/PERFORMANCE.md measures each against
// wc -l on the same bytes.
//
// The parsers use the standard library only, so that a capture can be
// parsed anywhere, and import nothing but this package and the helpers
// under parse/internal (numbers, the catalogue of translated messages,
// psql's location prefix, the tests' golden files); no parser imports
// another.
package parse
