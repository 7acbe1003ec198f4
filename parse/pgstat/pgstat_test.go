package pgstat

import (
	"errors"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// Rows as the collector records them (row_to_json of PostgreSQL 17 and
// 18's views).
const (
	io17 = `{"backend_type":"client backend","object":"relation","context":"normal","reads":22658,"read_time":0,"writes":0,"write_time":0,"writebacks":0,"writeback_time":0,"extends":0,"extend_time":0,"op_bytes":8192,"hits":1337,"evictions":0,"reuses":null,"fsyncs":0,"fsync_time":0,"stats_reset":"2026-12-01T18:40:47.236+00:00"}`
	io18 = `{"backend_type":"io worker","object":"relation","context":"normal","reads":1416,"read_bytes":185597952,"read_time":0,"writes":0,"write_bytes":0,"write_time":0,"writebacks":0,"writeback_time":0,"extends":null,"extend_bytes":null,"extend_time":0,"hits":0,"evictions":0,"reuses":null,"fsyncs":0,"fsync_time":0,"stats_reset":"2026-12-01T18:40:47.236+00:00"}`
	wal  = `{"wal_records":120,"wal_fpi":3,"wal_bytes":"18446744073709551615","wal_buffers_full":0,"stats_reset":null}`
)

func TestIO(t *testing.T) {
	r, err := ParseIO(io17, "io")
	if err != nil {
		t.Fatal(err)
	}
	want := IO{BackendType: "client backend", Object: "relation", Context: "normal", Reads: Num{22658, true},
		Writes: Num{0, true}, Extends: Num{0, true}, Hits: Num{1337, true}, Evictions: Num{0, true}, OpBytes: Num{8192, true}}
	if r != want {
		t.Errorf("17: %+v\nwant %+v", r, want)
	}
	r, err = ParseIO(io18, "io")
	if err != nil {
		t.Fatal(err)
	}
	if r.ReadBytes != (Num{185597952, true}) || r.OpBytes.Valid || r.Extends.Valid || r.BackendType != "io worker" {
		t.Errorf("18: %+v", r)
	}
}

func TestWAL(t *testing.T) {
	r, err := ParseWAL(wal, "wal")
	if err != nil || r.Records != (Num{120, true}) || r.FPI != (Num{3, true}) || r.Bytes != (Num{18446744073709551615, true}) {
		t.Errorf("%+v, %v", r, err)
	}
}

func TestText(t *testing.T) {
	r, err := ParseAIO(` { "at" : "2026-12-01 18:40:47.2" , "state":"SUBMITTED\u0021", "n": 4, "x": {"y": [1, "}"]}, "b": false }`, "aio")
	if err != nil || r.At != "2026-12-01 18:40:47.2" || r.State != "SUBMITTED!" || r.N != (Num{4, true}) {
		t.Errorf("%+v, %v", r, err)
	}
}

// TestAIOEmpty: a sample that found no handle in use, as the collector
// records it on a real 18 server: state null, n 0, with its interval.
func TestAIOEmpty(t *testing.T) {
	r, err := ParseAIO(`{"at":"2026-12-02T00:32:23.332962Z","every_ms":50,"state":null,"n":0}`, "aio")
	if err != nil || r.At != "2026-12-02T00:32:23.332962Z" || r.State != "" || r.N != (Num{0, true}) || r.EveryMs != (Num{50, true}) {
		t.Errorf("%+v, %v", r, err)
	}
}

func TestActivity(t *testing.T) {
	r, err := ParseActivity(`{"pid":6127,"backend_type":"client backend","state":"active","wait_event_type":null,"query":"select '\\u00e9t\u00e9' || \"x\""}`, "act")
	if err != nil || r.PID != 6127 || r.State != "active" || r.Query != `select '\u00e9té' || "x"` {
		t.Errorf("%+v, %v", r, err)
	}
}

func TestSetting(t *testing.T) {
	r, err := ParseSetting(`{"name":"shared_buffers","setting":"16384","unit":"8kB","source":"configuration file","pending_restart":true}`, "settings")
	want := Setting{Name: "shared_buffers", Setting: "16384", Unit: "8kB", Source: "configuration file", PendingRestart: true}
	if err != nil || r != want {
		t.Errorf("%+v, %v", r, err)
	}
	r, err = ParseSetting(`{"name":"io_method","setting":"worker","unit":null,"source":"default","pending_restart":false}`, "settings")
	if err != nil || r != (Setting{Name: "io_method", Setting: "worker", Source: "default"}) {
		t.Errorf("%+v, %v", r, err)
	}
}

func TestErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "row: expected a JSON object at byte 0, found the end; expected a row of a statistics view as JSON",
		`["reads", 1]`:     `row: expected a JSON object at byte 0, found "[\"reads\", 1]"; expected a row of a statistics view as JSON`,
		`{"reads":1`:       "row: expected ',' or '}' at byte 10, found the end; expected a row of a statistics view as JSON",
		`{"reads":}`:       `row: expected a value at byte 9, found "}"; expected a row of a statistics view as JSON`,
		`{"reads":1} junk`: `row: text after the object at byte 12, found "junk"; expected a row of a statistics view as JSON`,
		`{"a":"open}`:      `row: expected a value at byte 5, found "\"open}"; expected a row of a statistics view as JSON`,
	} {
		_, err := ParseIO(in, "row")
		var se *parse.SyntaxError
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("%q: %v\nwant %s", in, err, want)
		}
	}
}

// TestNoAllocs: reading a row allocates nothing (an analysis reads
// millions).
func TestNoAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { ParseIO(io18, "io") }); n != 0 {
		t.Errorf("%v allocations a row, want 0", n)
	}
}

func BenchmarkIO(b *testing.B) {
	b.SetBytes(int64(len(io18)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseIO(io18, "io"); err != nil {
			b.Fatal(err)
		}
	}
}
