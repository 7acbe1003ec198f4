package sysbench

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

// TestSeqFixtures: every real output read as a sequence gives Parse's
// run and warnings, each record writes itself as encoding/json does, and
// the records are in the order of their lines, each naming its own, the
// summary last. (The real outputs log no message and have no queue
// lines: TestVariants, TestErrors and TestWarnings read theirs as a
// sequence too.)
func TestSeqFixtures(t *testing.T) {
	kinds := map[Kind]int{}
	for _, file := range golden.Files(t, "", "*.txt") {
		in := golden.Text(t, file)
		lines := strings.Split(in, "\n")
		recs := golden.SeqFold(t, []byte(in), Parse, ParseSeq, foldRecords)
		for i, rec := range recs {
			kinds[rec.Kind]++
			text := lines[rec.Line-1]
			ok := rec.Line > 0 && (i == 0 || rec.Line > recs[i-1].Line)
			switch rec.Kind {
			case KindInterval:
				ok = ok && strings.HasPrefix(text, "[ ")
			case KindMessage:
				ok = ok && text == rec.Text
			case KindSummary:
				ok = i == len(recs)-1 && strings.HasPrefix(text, "sysbench ")
			}
			if !ok {
				t.Errorf("%s: record %d of %d, %s, says line %d: %q", file, i, len(recs), rec.Kind, rec.Line, text)
			}
		}
	}
	if kinds[KindInterval] < 20 || kinds[KindSummary] != 4 {
		t.Errorf("records of each kind: %v; want the fixtures' (over 20, and 4 summaries)", kinds)
	}
}

// TestSeqJSON: a record is one flat object, "kind" and "line" first and
// then its part's fields; an interval is yielded with the queue length
// line after it; the summary's fields are Run's, without the rows that
// came as records.
func TestSeqJSON(t *testing.T) {
	real := golden.Text(t, "testdata/oltp-point-select.txt")
	in := strings.Replace(real, "[ 2s ]", "[ 1s ] queue length: 3, concurrency: 2\nWARNING: x\n[ 2s ]", 1)
	var got []string
	for rec, err := range ParseSeq(strings.NewReader(in), "in", func(w parse.Warning) { t.Error(w) }) {
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
		t.Fatalf("%d records; want 5 intervals, a message and the summary:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range map[int]string{
		0: `{"kind":"interval","line":13,"time_s":1,"threads":1,"tps":19526.92,"qps":19526.92,"reads_per_s":19526.92,"writes_per_s":0,"other_per_s":0,"errors_per_s":0,"reconnects_per_s":0,"latency_percentile":95,"latency_ms":0.08,"queue_length":3,"concurrency":2}`,
		1: `{"kind":"message","line":15,"text":"WARNING: x"}`,
	} {
		if got[i] != want {
			t.Errorf("record %d:\n got: %s\nwant: %s", i, got[i], want)
		}
	}
	sum := got[6]
	for _, part := range []string{`{"kind":"summary","line":1,"version":"1.0.20","luajit":"system LuaJIT 2.1.0-beta3","threads":1,`, `"sql":{"reads":`, `"fairness_exec_time_stddev_s":0}`} {
		if !strings.Contains(sum, part) {
			t.Errorf("summary lacks %s:\n%s", part, sum)
		}
	}
	if strings.Contains(sum, `"intervals"`) || strings.Contains(sum, `"messages"`) {
		t.Errorf("summary with rows: %s", sum)
	}
}

// TestSeqStops: a consumer that stops ends the reading.
func TestSeqStops(t *testing.T) {
	in := intervalsOf(t, 1_000_000)
	n := 0
	for _, err := range ParseSeq(in, "in", nil) {
		if n++; err != nil || n == 10 {
			break
		}
	}
	if left := 1_000_002 - in.Made(); n != 10 || left < 900_000 {
		t.Errorf("stopped after %d records with %d pieces left; want 10 and most of them", n, left)
	}
}

// TestSeqMemory: 230 MB of interval lines (an hour's run 500 times over,
// made as they are read) stream through ParseSeq with the live heap
// under 8 MiB, where Parse refuses more than 256 MiB and holds 2 bytes a
// byte; the records come in order and the summary last.
func TestSeqMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 230 MB")
	}
	const lines, limit = 1_800_000, 8 << 20
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	var peak uint64
	n := 0
	for rec, err := range ParseSeq(intervalsOf(t, lines), "in", func(w parse.Warning) { t.Fatal(w) }) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n <= lines && rec.Interval.TimeS != float64(n) || n > lines && rec.Kind != KindSummary {
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

// TestSeqTwoRuns: two runs' outputs appended to one file give the first
// run's intervals and its report, whole, then the error of the second.
func TestSeqTwoRuns(t *testing.T) {
	real := golden.Text(t, "testdata/oltp-read-write-t4.txt")
	var recs []Record
	var last error
	for rec, err := range ParseSeq(strings.NewReader(real+real), "sb.txt", nil) {
		if err != nil {
			last = err
			continue
		}
		recs = append(recs, rec)
	}
	want := "sb.txt:61: a second report (the first starts on line 18)"
	if last == nil || !strings.HasPrefix(last.Error(), want) {
		t.Fatalf("error %v; want %s...", last, want)
	}
	if n := len(recs); n == 0 || recs[n-1].Kind != KindSummary || recs[n-1].Run.SQL == nil || recs[n-1].Line != 1 {
		t.Errorf("last record %+v; want the first run's report, whole", recs[len(recs)-1])
	}
}
