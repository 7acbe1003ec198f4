// Package explain reads EXPLAIN plans, in JSON (JSON) and in the default
// text format (Text), raw or as psql prints them, into one Plan: the tree
// of nodes with their estimates, actual figures, buffers, WAL and I/O
// timings, and the statement's planning, JIT, triggers and settings.
//
// Both readers take in the input psql adds around a plan (input.go), then
// read the statement (json.go, text.go), its nodes (jsonnode.go,
// textnode.go, textdetail.go) and its summary (textsummary.go); the two
// formats of one plan give the same Plan (agree_test.go). Shape and
// Fingerprint (fingerprint.go) name a plan's tree without its numbers, so
// that two runs' plans can be compared.
package explain
