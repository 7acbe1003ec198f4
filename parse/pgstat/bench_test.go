package pgstat

import (
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// ioFixtures is every row of the real pg_stat_io fixtures (17, then 18),
// and the files' text.
func ioFixtures(t testing.TB) (rows []string, text []byte) {
	for _, f := range []string{"testdata/io/pg17-stat-io.jsonl", "testdata/io/pg18-stat-io.jsonl"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text = append(text, b...)
		rows = append(rows, strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")...)
	}
	return rows, text
}

// TestIOFixtures reads the real rows: each names its backend type, object
// and context, and has the byte counter of its version (op_bytes up to
// 17, read_bytes and write_bytes from 18).
func TestIOFixtures(t *testing.T) {
	rows, _ := ioFixtures(t)
	if len(rows) != 35+79 {
		t.Fatalf("%d rows, want 114", len(rows))
	}
	for i, row := range rows {
		r, err := ParseIO(row, "io")
		if err != nil {
			t.Fatal(err)
		}
		if r.BackendType == "" || r.Object == "" || r.Context == "" {
			t.Errorf("row %d: %+v", i, r)
		}
		if v18 := i >= 35; r.OpBytes.Valid == v18 || v18 && r.Reads.Valid && !r.ReadBytes.Valid {
			t.Errorf("row %d (18: %v): %+v", i, v18, r)
		}
	}
}

// BenchmarkIOFixtures reads every real pg_stat_io row of 17 and 18, as
// the analysis reads the rows each run recorded; the bytes are the
// files', a row a line.
func BenchmarkIOFixtures(b *testing.B) {
	rows, text := ioFixtures(b)
	golden.Bench(b, text)
	for b.Loop() {
		for _, row := range rows {
			if _, err := ParseIO(row, "io"); err != nil {
				b.Fatal(err)
			}
		}
	}
}
