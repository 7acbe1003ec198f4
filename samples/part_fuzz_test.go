package samples

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// FuzzReadPart reads any bytes as a run's part of the runs and diskstats
// tables: an error naming the part, or rows, never a panic, a crash or a
// read that does not end. The seeds are real parts of the sample capture.
func FuzzReadPart(f *testing.F) {
	session, err := os.ReadFile("example/capture/capture/s001.parquet")
	if err != nil {
		f.Fatal(err)
	}
	runs, _ := os.ReadFile("example/capture/runs/r000005.parquet")
	for _, table := range []string{"runs", "diskstats", "statements"} {
		b, err := os.ReadFile("example/capture/" + table + "/r000005.parquet")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("PAR1PAR1"))
	// A part the Parquet reader loops on (one is kept under testdata)
	// must end in an error, soon: no part here needs a second. The reads
	// given up keep spinning in this process, which slows the others: a
	// sound part that misses its deadline here says only that.
	deadline := readDeadline
	readDeadline = func(int64) time.Duration { return 5 * time.Second }
	f.Cleanup(func() { readDeadline = deadline })
	f.Fuzz(func(t *testing.T, part []byte) {
		for _, table := range []string{"runs", "diskstats"} {
			fsys := fstest.MapFS{
				"c/capture/s001.parquet": {Data: session},
				"c/runs/r000005.parquet": {Data: runs},
			}
			fsys["c/"+table+"/r000005.parquet"] = &fstest.MapFile{Data: part}
			r, err := openFS(fsys, "c")
			if err != nil {
				if strings.Contains(err.Error(), "did not finish") {
					continue
				}
				t.Fatal(err)
			}
			if table == "runs" {
				_, err = Read[Run](r)
			} else {
				_, err = Read[Diskstats](r)
			}
			if err != nil && !strings.Contains(err.Error(), "c/"+table+"/r000005.parquet") {
				t.Fatalf("the error does not name the part: %v", err)
			}
		}
	})
}
