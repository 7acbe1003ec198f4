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

// TestSliceWraps: a slice with a last row starts again from its first.
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
