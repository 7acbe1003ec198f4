package parse

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// FuzzAutovacuumLog checks AutovacuumLog's results on any input (see
// checkVacuumResult), and that a second read gives the same.
func FuzzAutovacuumLog(f *testing.F) {
	for _, file := range fixtures(f, "autovacuum", "*.log") {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range vacuumSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.log"
		lines := bytes.Count(in, []byte("\n")) + 1
		recs, warns, err := AutovacuumLog(bytes.NewReader(in), source)
		checkVacuumResult(t, source, lines, false, recs, warns, err)
		again, warns2, err2 := AutovacuumLog(bytes.NewReader(in), source)
		if !reflect.DeepEqual(recs, again) || !reflect.DeepEqual(warns, warns2) || (err == nil) != (err2 == nil) {
			t.Fatalf("a second read differs")
		}
	})
}
