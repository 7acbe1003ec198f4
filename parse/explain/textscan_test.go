package explain

import (
	"strings"
	"testing"
)

// TestLastOpen: lastOpen finds what strings.LastIndex(s, " (") finds,
// which the node line's groups were read with before.
func TestLastOpen(t *testing.T) {
	for _, s := range []string{
		"", "(", " (", "((", "a (b)", "a(b)", "(a (b)", "a (b) (c)", "a ((b)", "a( (b(",
		"Seq Scan on t  (cost=0.00..1.00 rows=1 width=4) (actual time=0.1..0.2 rows=1.00 loops=1)",
		"Custom Scan (Foo) on t", "x (never executed)", "é (ü)",
	} {
		if got, want := lastOpen(s), strings.LastIndex(s, " ("); got != want {
			t.Errorf("lastOpen(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzLastOpen(f *testing.F) {
	f.Add("a (b) (c)")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lastOpen(s), strings.LastIndex(s, " ("); got != want {
			t.Errorf("lastOpen(%q) = %d, want %d", s, got, want)
		}
	})
}
