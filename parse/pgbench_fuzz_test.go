package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzPgbench(f *testing.F) {
	for _, file := range fixtures(f, "pgbench", "*.txt") {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"starting vacuum...end.\n",
		"progress: 1.0 s, 100.0 tps, lat 9.950 ms stddev -nan, lag 0.100 ms, 4 skipped\n",
		"pgbench (17.2, server 15.4)\nRun was aborted; the above results are incomplete.\n",
		"transaction type: x\nscaling factor: 1\nquery mode: simple\nnumber of clients: 1\nnumber of threads: 1\nnumber of transactions actually processed: 0/10\n",
		"tps = 485.143289 (including connections establishing)\ntps = 496.476346 (excluding connections establishing)\n",
		"statement latencies in milliseconds:\n         0.003  \\set aid random(1, 100000 * :scale)\n",
		"SQL script 1: a\n - 5 transactions (50.0% of total)\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.txt"
		run, warns, err := Pgbench(bytes.NewReader(in), source)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v, want *SyntaxError", err, err)
			}
			if se.Source != source || se.Line < 0 || !strings.HasPrefix(err.Error(), source+":") {
				t.Fatalf("bad error %#v", se)
			}
			return
		}
		checkPgbench(t, run)
		for _, w := range warns {
			if w.Source != source || w.Line < 1 || strings.ContainsRune(w.Text, '\n') || w.Msg == "" {
				t.Fatalf("bad warning %#v", w)
			}
		}
		if _, err := json.Marshal(run); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}
