// Package collect runs a study on the database host and records it as a
// capture; it records raw text and never parses it. Import turns
// hand-captured logs into the same kind of capture.
//
// Collect goes through these steps:
//
//  1. LoadStudy reads the study through samples/study and adds the
//     collector's checks (each DSN parses, each before statement renders).
//  2. Before the first run: the capture's place is checked, and what
//     would fail in every run (drop-caches without root, a psql that
//     cannot run) is found now.
//  3. The capture is created (or reopened with --resume) and the session
//     written: the study with its secrets removed, the host's facts. With
//     protocol.calibrate, each data directory's device is measured
//     (calibrate.go), before the first run of the session and after the
//     last run of the schedule.
//  4. Which servers with a start: command are up is noted. Each run of
//     the schedule (Schedule: rounds, then tests, then the configurations
//     taking turns) goes: server ready with its settings (what another
//     configuration of the same server wrote with ALTER SYSTEM put back as
//     found: isolate.go), before statements and plan, cold steps, the
//     declared settings read back, then the timed statement (or
//     throughput client) inside its window (window.go: probes,
//     statistics, diskstats and the server's cgroup counters (cgroup.go)
//     before it; diskstats and pg_aios (18+, aios.go) sampled during it,
//     each at its own interval; diskstats, cgroup counters, statistics,
//     probes after), taken at the statement's edges for every client
//     (psql's inside its session: psqlrun.go), and the plan as executed.
//  5. Each run is committed before the next starts, so that a kill loses
//     at most the run in progress; a failed run is recorded as one. What
//     the samplers of a long statement keep is written into the run's
//     parts as it grows, with its facts (spill.go): a run holds a bounded
//     amount of memory however long its statement, and still counts only
//     once committed.
//  6. At the end, interrupted or not (finish): each postgresql.auto.conf
//     pgstudy changed is put back as found, and each server as it was
//     found, up or down (Options.LeaveRunning keeps up those it started).
package collect
