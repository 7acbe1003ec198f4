// Command pgstudy runs PostgreSQL performance studies and turns their raw
// outputs into numbers a reader can trust.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
