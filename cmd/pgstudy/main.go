// Command pgstudy runs PostgreSQL performance studies and turns their raw
// outputs into numbers a reader can trust.
//
// Each command (collect.go, import.go, init.go, parse.go, analyze.go,
// report.go) is three steps, in order:
//
//  1. newXCmd binds the flags into an xOptions.
//  2. validate takes the arguments in and returns every usage error
//     before anything is read or run (those found only in a file, such as
//     a baseline the capture lacks, come from the library as usage errors).
//  3. xRun(ctx, opts, streams) makes the library call and writes the
//     results to the command's standard output and its diagnostics to
//     standard error.
//
// run in root.go turns the error into the exit code, in one place
// (exitCode). A test builds a command with its own run function to check
// the options without running anything.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
