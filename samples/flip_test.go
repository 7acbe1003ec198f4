package samples

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEveryByteFlipped flips each bit 0 of every byte, one at a time, of
// three parts of the sample capture (a run, its diskstats, its
// statements) and reads the capture: each read must give an error naming
// the part, or rows equal to the undamaged ones. A damaged part must never
// crash pgstudy (a panic on one of the Parquet reader's goroutines, or a
// length read from the footer that asks for gigabytes) nor read as other
// values (a damaged column name read as an absent column).
func TestEveryByteFlipped(t *testing.T) {
	for _, tc := range []struct {
		table  string
		stride int
		read   func(*Reader) (any, error)
	}{
		{"runs", 1, func(r *Reader) (any, error) { return Read[Run](r) }},
		{"diskstats", 3, func(r *Reader) (any, error) { return Read[Diskstats](r) }},
		{"statements", 3, func(r *Reader) (any, error) { return Read[Statement](r) }},
	} {
		// A capture of the sample's sessions and one run.
		dir := t.TempDir()
		for _, tb := range Tables {
			os.MkdirAll(filepath.Join(dir, tb.Name), 0o755)
		}
		for _, rel := range []string{"capture/s001.parquet", "runs/r000005.parquet", tc.table + "/r000005.parquet"} {
			b, err := os.ReadFile(filepath.Join("example/capture", rel))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		part := filepath.Join(dir, tc.table, "r000005.parquet")
		orig, _ := os.ReadFile(part)
		read := func() (any, error) {
			r, err := Open(dir)
			if err != nil {
				return nil, err
			}
			return tc.read(r)
		}
		want, err := read()
		if err != nil {
			t.Fatal(err)
		}
		var errs, same int
		for off := 0; off < len(orig); off += tc.stride {
			b := append([]byte(nil), orig...)
			b[off] ^= 1
			if err := os.WriteFile(part, b, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := read()
			switch {
			case err != nil:
				errs++
				if !strings.Contains(err.Error(), part) {
					t.Errorf("%s, byte %d: the error does not name the part: %v", tc.table, off, err)
				}
			case reflect.DeepEqual(got, want):
				same++
			default:
				t.Errorf("%s, byte %d flipped: read without error, but the rows differ", tc.table, off)
			}
		}
		t.Logf("%s part of %d bytes, every %d: %d errors, %d reads of the same rows (bytes no value depends on: statistics, padding)",
			tc.table, len(orig), tc.stride, errs, same)
	}
}
