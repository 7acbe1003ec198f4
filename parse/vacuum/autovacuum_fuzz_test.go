package vacuum

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// FuzzAutovacuum checks Autovacuum's results on any input (see
// checkResult), that a second read gives the same, and that
// AutovacuumSeq gives the same (see checkSeqMatches).
func FuzzAutovacuum(f *testing.F) {
	files := golden.Files(f, "autovacuum", "*.log")
	for _, ext := range []string{"csv", "json", "syslog", "journal-iso"} { // the other formats' readers
		files = append(files, golden.Files(f, "logformats", "pg1[58]-logformats."+ext)...)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.log"
		lines := bytes.Count(in, []byte("\n")) + 1
		recs, warns, err := checkSeqMatches(t, in, source)
		checkResult(t, source, lines, false, recs, warns, err)
		again, warns2, err2 := Autovacuum(bytes.NewReader(in), source)
		if !reflect.DeepEqual(recs, again) || !reflect.DeepEqual(warns, warns2) || (err == nil) != (err2 == nil) {
			t.Fatalf("a second read differs")
		}
	})
}
