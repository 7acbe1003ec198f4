// Package samples is the capture format: what a recorded sample is (one
// row type per table, schema.go), the Parquet schema derived from those
// types with its version (table.go), and the Writer and Reader that are
// the only code touching a capture's files.
//
// A capture is written in steps:
//
//  1. Create makes and locks the folder (or Resume, journal.go, after an
//     interruption: it removes what an unfinished session or run left and
//     says which runs are done).
//  2. WriteSession writes the session's capture and host rows.
//  3. Commit (or CommitMany) writes one run's rows, table by table: each
//     value passes the Writer's Redact, text that is not UTF-8 is stored
//     made valid with its bytes in raw_bytes (utf8.go), each part is
//     encoded (encode.go), written to a temporary file, synced and renamed
//     into place (part.go); the runs part goes last, so a run is in the
//     capture exactly when its runs part is. A run too long to hold
//     (a statement of hours sampled ten times a second) is written as it
//     goes by a Spill (spill.go): its parts in progress are temporary
//     files, a row group per write, which its Commit finishes and renames
//     before the runs part, as Commit does.
//  4. Compact (compact.go) merges the parts of consecutive runs into one
//     part per table named after their range (rFIRST-LAST.parquet), the
//     runs part last: it replaces the parts of its range at once
//     (runparts.go). Publish (fleet.go) puts a capture into a fleet of
//     Hive-style partitions, TABLE/host=NAME/study=NAME/.
//
// A capture is read by Open, which checks the folder as a whole
// (partcheck.go), and Read[T], which decodes every part of T's table with
// bounds on what a damaged part may make it allocate (reader.go).
//
// Under samples: study is the study file's schema, which a capture
// stores; infile opens the files pgstudy reads, by type and size; outdir
// decides what pgstudy may replace in an output folder. Example opens the
// real capture under example/, embedded in the binary.
package samples
