package study

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDecodeText: UTF-16 with a byte order mark and UTF-8 with one are
// read as the same study; other bytes are an error with their place.
func TestDecodeText(t *testing.T) {
	text := "configs: [{name: a, dsn: \"postgres://u:Wide-Secret-9@h/db\"}]\ntests: [{name: t, sql: select 1}]\n"
	le := []byte{0xFF, 0xFE}
	for _, r := range text {
		le = append(le, byte(r), 0)
	}
	for name, b := range map[string][]byte{"utf-16le": le, "utf-8 bom": append([]byte{0xEF, 0xBB, 0xBF}, text...)} {
		got, err := DecodeText(name, b)
		if err != nil || string(got) != text {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	if _, err := DecodeText("latin1.yaml", []byte("configs: []\n# caf\xe9\n")); err == nil || !strings.Contains(err.Error(), "latin1.yaml:2:6: expected UTF-8 text") {
		t.Errorf("latin-1: %v", err)
	}
}

// TestSliceWraps: a slice with a last row starts again from its first, as
// a stored study that ran before wrapping was refused did.
func TestSliceWraps(t *testing.T) {
	sl := &Slice{First: 1, Size: 40, Last: 100}
	for round, want := range map[int][2]int64{1: {1, 40}, 2: {41, 80}, 3: {1, 40}, 4: {41, 80}} {
		if lo, hi := sl.Rows(round); lo != want[0] || hi != want[1] {
			t.Errorf("round %d: %d to %d, want %v", round, lo, hi, want)
		}
	}
}

// TestMatrix: a configuration with a matrix becomes one configuration per
// combination, the last setting varying fastest, each with its values and
// the entry's other settings.
func TestMatrix(t *testing.T) {
	s, err := Parse("m.yaml", []byte(`
configs:
  - name: base
    dsn: postgres://bench@127.0.0.1:5417/bench
  - name: pg18
    dsn: postgres://bench@127.0.0.1:5418/bench
    settings: {work_mem: 64MB}
    matrix: {io_method: [sync, worker], effective_io_concurrency: [1, 16, 64]}
tests:
  - name: t
    sql: select 1
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Configs {
		got = append(got, fmt.Sprintf("%s %s %s %s", c.Name, c.Settings["io_method"], c.Settings["effective_io_concurrency"], c.Settings["work_mem"]))
	}
	want := []string{"base   ",
		"pg18.io_method-sync.effective_io_concurrency-1 sync 1 64MB", "pg18.io_method-sync.effective_io_concurrency-16 sync 16 64MB",
		"pg18.io_method-sync.effective_io_concurrency-64 sync 64 64MB", "pg18.io_method-worker.effective_io_concurrency-1 worker 1 64MB",
		"pg18.io_method-worker.effective_io_concurrency-16 worker 16 64MB", "pg18.io_method-worker.effective_io_concurrency-64 worker 64 64MB"}
	if !slices.Equal(got, want) {
		t.Errorf("configurations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStored: a study a capture recorded decodes with the same bounds,
// but names are data (whatever they hold), unknown keys are listed rather
// than refused, and no text is no study.
func TestStored(t *testing.T) {
	text := []byte("configs: [{name: \"a|b\\n# c\", dsn: x}]\ntests: [{name: t, sql: select 1, colour: blue}]\ndisk: {sample: 250ms, limits: {vda: {read_mib_s: 125}}}\n")
	if _, err := Parse("s.yaml", text, Options{}); err == nil || !strings.Contains(err.Error(), `s.yaml:2:34: unknown key "colour"`) {
		t.Errorf("Parse: %v", err)
	}
	s, err := Stored("s.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Ignored.Error(); !strings.HasPrefix(got, `s.yaml:2:34: unknown key "colour"; expected one of: name, group, sql,`) {
		t.Errorf("ignored: %s", got)
	}
	if s.Configs[0].Name != "a|b\n# c" || s.Disk.Sample.String() != "250ms" || s.Disk.Limits["vda"].ReadMiBs != 125 || s.Protocol.Rounds != 5 {
		t.Errorf("stored: %+v", s)
	}
	if _, err := Stored("s.yaml", []byte("configs: [{name: a}]\ntests: [{name: t, sql: x}]\nprotocol: {rounds: 0x}\n")); err == nil || err.Error() != `s.yaml:3:20: expected a whole number, found "0x"` {
		t.Errorf("a bad value: %v", err)
	}
	if s, err := Stored("s.yaml", nil); err != nil || len(s.Configs) != 0 {
		t.Errorf("no text: %+v %v", s, err)
	}
}

// TestRules: a reader's rules report in the same list, sorted by place
// with the schema's, and their messages are redacted like the schema's.
func TestRules(t *testing.T) {
	rule := func(s *Study, report func(p Pos, format string, args ...any)) {
		report(s.Configs[0].DSNPos, "dsn %s", s.Configs[0].DSN)
	}
	opt := Options{Rules: []Rule{rule}, Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") }}
	_, err := Parse("s.yaml", []byte("configs:\n  - {name: a, dsn: hunter2}\ntests: [{name: t}]\n"), opt)
	want := "s.yaml:2:20: dsn ***\ns.yaml:3:9: test t: expected sql: the statement to time (or pgbench: or sysbench: for a throughput test)"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// TestAIOSample: pg_aios is read every 50 ms unless the protocol says,
// and not more often than every 10 ms.
func TestAIOSample(t *testing.T) {
	base := "configs: [{name: a, dsn: x}]\ntests: [{name: t, sql: select 1}]\n"
	s, err := Parse("s.yaml", []byte(base), Options{})
	if err != nil || s.AIOSampleEvery() != DefaultAIOSample || DefaultAIOSample.String() != "50ms" {
		t.Fatalf("default: %v, %v", s, err)
	}
	s, err = Parse("s.yaml", []byte(base+"protocol: {aios_sample: 20ms}\n"), Options{})
	if err != nil || s.AIOSampleEvery().String() != "20ms" {
		t.Fatalf("20ms: %v", err)
	}
	_, err = Parse("s.yaml", []byte(base+"protocol: {aios_sample: 5ms}\n"), Options{})
	if want := "s.yaml:3:11: protocol: aios_sample must be at least 10ms, found 5ms"; err == nil || err.Error() != want {
		t.Errorf("5ms: %v, want %s", err, want)
	}
}

// TestSliceRefused: a slice whose rounds would wrap (every round past the
// rows it holds changes an earlier round's rows again) or overflow is
// refused, naming the test, the slice, its range and the rounds; a stored
// study that ran so is read as it ran.
func TestSliceRefused(t *testing.T) {
	study := func(slice string, rounds int) []byte {
		return fmt.Appendf(nil, "configs: [{name: a, dsn: x}]\ntests:\n  - name: vacuum\n    slice: %s\n"+
			"    before: update t set v = v + 1 where id between {{.Slice.Lo}} and {{.Slice.Hi}}\n    sql: vacuum t\nprotocol: {rounds: %d}\n", slice, rounds)
	}
	for _, c := range []struct {
		slice  string
		rounds int
		want   string
	}{
		{"{first: 1, size: 40, last: 100}", 3, "s.yaml:4:12: test vacuum: slice of 40 rows in rows 1 to 100 holds 2 slice(s), but the study has 3 rounds: " +
			"round 3 would change the rows of round 1 again; make last at least 120, size at most 33, or rounds at most 2"},
		{"{first: 1000001, size: 1000000, last: 2000000}", 5, "s.yaml:4:12: test vacuum: slice of 1000000 rows in rows 1000001 to 2000000 holds 1 slice(s), " +
			"but the study has 5 rounds: round 2 would change the rows of round 1 again; make last at least 6000000, size at most 200000, or rounds at most 1"},
		{"{first: 1, size: 200, last: 100}", 1, "s.yaml:4:12: test vacuum: slice last must leave room for one slice of size 200 after first"},
		{"{first: 9223372036854775000, size: 1000}", 2, "s.yaml:4:12: test vacuum: slice of 1000 rows from 9223372036854775000 for 2 rounds goes past the largest row number (9223372036854775807)"},
	} {
		_, err := Parse("s.yaml", study(c.slice, c.rounds), Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s, %d rounds:\n got %v\nwant %s", c.slice, c.rounds, err, c.want)
		}
		if c.rounds > 1 && strings.Contains(c.want, "holds") {
			if _, err := Stored("s.yaml", study(c.slice, c.rounds)); err != nil {
				t.Errorf("stored %s: %v", c.slice, err)
			}
		}
	}
	for _, ok := range []string{"{first: 1, size: 40, last: 120}", "{first: 1, size: 40}"} {
		if _, err := Parse("s.yaml", study(ok, 3), Options{}); err != nil {
			t.Errorf("%s, 3 rounds: %v", ok, err)
		}
	}
}
