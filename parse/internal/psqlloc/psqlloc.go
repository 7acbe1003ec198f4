// Package psqlloc reads the "psql:FILE:LINE: " prefix psql puts before a
// message when it reads a script file: the one reading of it that the psql
// and the VACUUM parsers share.
package psqlloc

import "strconv"

// Cut strips the "psql:FILE:N: " prefix from line; ok is false, and rest
// is line, when there is none. FILE may hold ": " ("psql:my: file.sql:3:
// INFO: ..."): the prefix ends at the first ":N: ".
func Cut(line string) (file string, n int, rest string, ok bool) {
	const head = "psql:"
	if len(line) < len(head) || line[:len(head)] != head {
		return "", 0, line, false
	}
	s := line[len(head):]
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j > i+1 && j+1 < len(s) && s[j] == ':' && s[j+1] == ' ' {
			num, err := strconv.Atoi(s[i+1 : j])
			if err == nil {
				return s[:i], num, s[j+2:], true
			}
		}
	}
	return "", 0, line, false
}
