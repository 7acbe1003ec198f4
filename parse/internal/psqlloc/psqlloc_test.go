package psqlloc

import "testing"

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in, file string
		n        int
		rest     string
		ok       bool
	}{
		{"psql:my: file.sql:3: INFO:  vacuuming \"db.public.t\"", "my: file.sql", 3, "INFO:  vacuuming \"db.public.t\"", true},
		{"psql:run.sql:12: INFO:  x", "run.sql", 12, "INFO:  x", true},
		{"psql:<stdin>:1: ERROR:  y", "<stdin>", 1, "ERROR:  y", true},
		{"psql: not a location", "", 0, "psql: not a location", false},
		{"psql:f:99999999999999999999: x", "", 0, "psql:f:99999999999999999999: x", false},
		{"INFO:  plain", "", 0, "INFO:  plain", false},
	} {
		file, n, rest, ok := Cut(c.in)
		if file != c.file || n != c.n || rest != c.rest || ok != c.ok {
			t.Errorf("Cut(%q) = %q, %d, %q, %v; want %q, %d, %q, %v", c.in, file, n, rest, ok, c.file, c.n, c.rest, c.ok)
		}
	}
}
