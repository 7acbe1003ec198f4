package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzSysbench(f *testing.F) {
	for _, file := range fixtures(f, "sysbench", "*.txt") {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n",
		"[ 1s ] thds: 2 eps: 99.00 lat (ms,95%): 1.01\n[ 1s ] queue length: 0 concurrency: 1\n",
		"       value  ------------- distribution ------------- count\n       0.985 |****  150\n",
		"General statistics:\n    total time: 1s\n    total number of events: 1\nLatency (ms):\n min: 1\n avg: 1\n max: 1\n percentile stats: disabled\n sum: 1\nThreads fairness:\n events (avg/stddev): 1/0\n execution time (avg/stddev): 1/0\n",
		"FATAL: error\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.txt"
		run, warns, err := Sysbench(bytes.NewReader(in), source)
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
		checkSysbench(t, run)
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
