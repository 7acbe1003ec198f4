// Package fixturegen writes the parsers' input fixtures (parse/*/testdata) from real
// PostgreSQL 13 to 18 servers: VACUUM VERBOSE as psql prints it and as a
// driver receives it, autovacuum entries in a server log (and in every log
// format: stderr, csvlog, jsonlog, with syslog and journald made from the
// stderr one; logformats_test.go), EXPLAIN plans in
// JSON and text, and psql sessions.
//
// It is a generator, not a test: it runs only with PGSTUDY_FIXTURES=1, and
// parse/regenerate is the way to run it (it installs the server
// binaries of every version first). Each fixture folder has a README.md that
// says what each file holds.
//
// The data is fixed (setseed, generate_series), each server is fresh and
// autovacuum is off where it would change the state, so a second run writes
// the same files except for timings, rates and what depends on them, the
// order of the messages of a parallel index vacuum in 13 and 14, and a few
// buffer hit counts.
package fixturegen
