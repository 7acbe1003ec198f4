package pgbench

import (
	"encoding/json"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// foldRecords is what Parse makes of the records of ParseSeq.
func foldRecords(recs []Record) Run {
	var f fold
	for i := range recs {
		f.add(&recs[i])
	}
	return f.result()
}

// TestSeqFixtures: every real output, and stdout and stderr together,
// read as a sequence gives Parse's run and warnings, each record writes
// itself as encoding/json does, and the records are in the order of
// their lines, each naming its own, the summary last. (The real outputs
// log no message: TestWordings, TestErrors and TestWarnings read theirs
// as a sequence too.)
func TestSeqFixtures(t *testing.T) {
	var ins [][]byte
	for _, file := range golden.Files(t, "", "*.txt") {
		ins = append(ins, []byte(golden.Text(t, file)))
	}
	for _, name := range []string{"tpcb-r", "multi-script", "rate-limit"} {
		ins = append(ins, []byte(golden.Text(t, "testdata/"+name+".stderr.txt")+golden.Text(t, "testdata/"+name+".stdout.txt")))
	}
	kinds := map[Kind]int{}
	for _, in := range ins {
		lines := strings.Split(string(in), "\n")
		recs := golden.SeqFold(t, in, Parse, ParseSeq, foldRecords)
		for i, rec := range recs {
			kinds[rec.Kind]++
			text := lines[rec.Line-1]
			ok := rec.Line > 0 && (i == 0 || rec.Line > recs[i-1].Line)
			switch rec.Kind {
			case KindProgress:
				ok = ok && strings.HasPrefix(text, "progress: ")
			case KindMessage:
				ok = ok && strings.HasSuffix(text, rec.Text)
			case KindSummary:
				ok = i == len(recs)-1 && strings.HasPrefix(text, "pgbench (") && rec.Run.Summary != nil
			}
			if !ok {
				t.Errorf("record %d of %d, %s, says line %d: %q", i, len(recs), rec.Kind, rec.Line, text)
			}
		}
	}
	if kinds[KindProgress] < 40 || kinds[KindSummary] < 10 {
		t.Errorf("records of each kind: %v; want the fixtures' (over 40 and 10)", kinds)
	}
}

// TestSeqJSON: a record is one flat object, "kind" and "line" first and
// then its part's fields; the summary's is Run's, without the rows that
// came as records.
func TestSeqJSON(t *testing.T) {
	in := golden.Text(t, "testdata/rate-limit.stderr.txt") + golden.Text(t, "testdata/rate-limit.stdout.txt") +
		"pgbench: error: Run was aborted; the above results are incomplete.\n"
	var got []string
	for rec, err := range ParseSeq(strings.NewReader(in), "in", nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	if len(got) != 7 {
		t.Fatalf("%d records; want 5 progress lines, a message and the summary:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range map[int]string{
		0: `{"kind":"progress","line":2,"time_s":1,"tps":166.9,"latency_avg_ms":7.875,"latency_stddev_ms":5.199,"failed":0,"lag_ms":0.465,"skipped":111}`,
		5: `{"kind":"message","line":24,"text":"pgbench: error: Run was aborted; the above results are incomplete."}`,
	} {
		if got[i] != want {
			t.Errorf("record %d:\n got: %s\nwant: %s", i, got[i], want)
		}
	}
	sum := got[6]
	for _, part := range []string{`{"kind":"summary","line":7,"version":"15.18 (Debian 15.18-0+deb12u1)","summary":{"transaction_type":`, `"aborted":true}`} {
		if !strings.Contains(sum, part) {
			t.Errorf("summary lacks %s:\n%s", part, sum)
		}
	}
	if strings.Contains(sum, `"progress"`) || strings.Contains(sum, `"messages"`) {
		t.Errorf("summary with rows: %s", sum)
	}
}

// TestSeqErrors: the checks of the whole run end the sequence, naming
// the file and the line, after the records read before them: a summary
// cut short, a second run's (after the first run's summary, which is
// whole: two outputs appended to one file).
func TestSeqErrors(t *testing.T) {
	stderr := golden.Text(t, "testdata/tpcb.stderr.txt")
	stdout := golden.Text(t, "testdata/tpcb.stdout.txt")
	cut := strings.Join(strings.SplitAfter(stdout, "\n")[:12], "")
	for _, tt := range []struct {
		name, in string
		err      string
	}{
		{"cut before tps", stderr + cut, `in:18: the summary that starts on line 8 ends before its tps line; the output is cut short`},
		{"two runs", stderr + stdout + stdout, `in:22: a second summary (the first starts on line 8); the input holds more than one pgbench run`},
		{"binary", stderr + "\x00\n", `in:7: binary data (a NUL byte); expected text`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := golden.SeqFold(t, []byte(tt.in), Parse, ParseSeq, foldRecords)
			_, _, err := Parse(strings.NewReader(tt.in), "in")
			if err == nil || err.Error() != tt.err {
				t.Errorf("error %v; want %s", err, tt.err)
			}
			want := 5
			if tt.name == "two runs" {
				want = 6
				if len(recs) == 6 && (recs[5].Kind != KindSummary || recs[5].Line != 7 || recs[5].Run.Summary == nil || recs[5].Run.Summary.TPS == nil) {
					t.Errorf("record 6 %+v; want the first run's summary, whole, at its banner's line, 7", recs[5])
				}
			}
			if len(recs) != want || recs[4].Kind != KindProgress {
				t.Errorf("%d records before the error; want the 5 progress lines (and the first run's summary)", len(recs))
			}
		})
	}
}

// TestSeqStops: a consumer that stops ends the reading.
func TestSeqStops(t *testing.T) {
	in := hourOfProgress(t, 1_000_000)
	n := 0
	for _, err := range ParseSeq(in, "in", nil) {
		if n++; err != nil || n == 10 {
			break
		}
	}
	if left := 1_000_001 - in.Made(); n != 10 || left < 900_000 {
		t.Errorf("stopped after %d records with %d pieces left; want 10 and most of them", n, left)
	}
}

// TestSeqMemory: 200 MB of progress lines (an hour's run 700 times over,
// made as they are read) stream through ParseSeq with the live heap
// under 8 MiB, where Parse refuses more than 256 MiB and holds 2 bytes a
// byte; the records come in order and the summary last.
func TestSeqMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	const lines, limit = 3_000_000, 8 << 20
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	var peak uint64
	n := 0
	for rec, err := range ParseSeq(hourOfProgress(t, lines), "in", func(w parse.Warning) { t.Fatal(w) }) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n <= lines && rec.Progress.TimeS != float64(n) || n > lines && rec.Kind != KindSummary {
			t.Fatalf("record %d: %+v", n, rec)
		}
		if n%1024 == 0 {
			metrics.Read(live)
			peak = max(peak, live[0].Value.Uint64())
		}
	}
	t.Logf("%d records; peak live heap %.1f MiB", n, float64(peak)/(1<<20))
	if n != lines+1 || peak == 0 || peak > limit {
		t.Errorf("%d records, peak live heap %d KiB; want %d and under %d MiB", n, peak>>10, lines+1, limit>>20)
	}
}
