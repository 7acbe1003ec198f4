package pgbench

import "strings"

// What `pgbench -i` prints, to stderr, while it initialises its tables:
// a log of a whole study holds it before the runs (`pgbench -i && pgbench
// ... 2>&1 | tee log`). Its lines are messages, not warnings: a large
// scale prints a line each 100,000 rows, which would bury the warnings
// that matter and make the input look like another program's.

// initSteps are the lines of the steps, as 13 to 18 print them.
var initSteps = map[string]bool{
	"dropping old tables...":   true,
	"creating tables...":       true,
	"vacuuming...":             true,
	"creating primary keys...": true,
	"creating foreign keys...": true,
	"done.":                    true,
}

// isInitLine reports whether s is a line of `pgbench -i`: a step, a
// server's notice about a table it drops, the
// closing "done in 1.23 s (drop tables 0.01 s, ...).", or the rows
// generated so far, several on one line when stderr was a terminal
// (each written over the last after a "\r").
func isInitLine(s string) bool {
	switch {
	case initSteps[s]:
		return true
	case strings.HasPrefix(s, "NOTICE:  "):
		return true // the server's, through libpq: "table ... does not exist, skipping"
	case strings.HasPrefix(s, "generating data") && strings.HasSuffix(s, "..."):
		return true // "generating data (client-side)...", 13's "generating data..."
	case strings.HasPrefix(s, "done in ") && strings.HasSuffix(s, "."):
		_, ok := decimal(strings.TrimPrefix(s, "done in "), " s")
		return ok
	}
	some := false
	for piece := range strings.SplitSeq(s, "\r") {
		if piece = strings.TrimRight(piece, " "); piece == "" {
			continue
		}
		if !isInitProgress(piece) {
			return false
		}
		some = true
	}
	return some
}

// isInitProgress reports whether s is "200000 of 2000000 tuples (10%) of
// pgbench_accounts done (elapsed 0.11 s, remaining 0.95 s)" (14 and
// later; 13 names no table and may end with ".").
func isInitProgress(s string) bool {
	s, ok := digits(s, " of ")
	if s, ok = digitsAfter(s, ok, " tuples ("); !ok {
		return false
	}
	if s, ok = digits(s, "%) "); !ok {
		return false
	}
	if rest, found := strings.CutPrefix(s, "of "); found {
		i := strings.IndexByte(rest, ' ')
		if i <= 0 {
			return false
		}
		s = rest[i+1:]
	}
	if s, ok = strings.CutPrefix(s, "done (elapsed "); !ok {
		return false
	}
	if s, ok = decimal(s, " s, remaining "); !ok {
		return false
	}
	s, ok = decimal(s, " s)")
	return ok && (s == "" || s == ".")
}

// digits cuts a run of digits and then sep from the front of s.
func digits(s, sep string) (string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return s, false
	}
	return strings.CutPrefix(s[i:], sep)
}

// digitsAfter is digits when ok, for a chain of cuts.
func digitsAfter(s string, ok bool, sep string) (string, bool) {
	if !ok {
		return s, false
	}
	return digits(s, sep)
}

// decimal cuts "12.34" (digits, then a point and digits) and then sep
// from the front of s.
func decimal(s, sep string) (string, bool) {
	s, ok := digits(s, ".")
	if !ok {
		return s, false
	}
	return digits(s, sep)
}
