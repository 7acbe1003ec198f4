// Package psql reads psql's output back into the statements it sent, each
// with its echo, its results (aligned, unaligned and expanded tables,
// command tags), its Time: line and the server's messages, plus psql's own
// meta-commands and errors.
//
// ParseSeq (one stream, a record at a time), Parse (its records gathered
// into one Output) and Streams (stdout and stderr apart) go through the
// lines once (parser.go), as a window holds them (window.go): each line is
// classified (classify.go) and handed to the reader of what it continues
// or starts: an echo (echo.go), a statement's tag or output
// (statement.go), a table (table.go, aligned.go), a meta-command
// (meta.go), a Time: line (time.go) or a message (message.go); the SQL of
// echoes is split with psql's own lexing rules (sql.go). A record is handed out once complete (record.go), and written
// as JSON by its AppendJSON (json.go). Output in another language is
// refused (foreign.go).
package psql
