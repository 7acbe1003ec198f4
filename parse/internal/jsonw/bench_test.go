package jsonw

import (
	"testing"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// device is a record of numbers, as diskstats writes a device line.
type device struct {
	Major, Minor       uint32
	Name               string `json:"name"`
	Reads, ReadsMerged uint64
	ReadSectors        uint64 `json:"read_sectors"`
	ReadTime           uint64 `json:"read_time_ms"`
	Writes             uint64 `json:"writes_completed"`
	WritesMerged       uint64 `json:"writes_merged"`
	WriteSectors       uint64 `json:"write_sectors"`
	WriteTime          uint64 `json:"write_time_ms"`
	InFlight           uint64 `json:"in_flight"`
	IOTime             uint64 `json:"io_time_ms"`
	WeightedIOTime     uint64 `json:"weighted_io_time_ms"`
	Zero               uint64 `json:"zero,omitempty"`
}

// figures is a record of decimals and text, as the vacuum and pgbench
// parsers write theirs.
type figures struct {
	Line     int     `json:"line"`
	Database string  `json:"database"`
	Table    string  `json:"table"`
	Auto     bool    `json:"automatic"`
	Read     float64 `json:"avg_read_mb_s"`
	Write    float64 `json:"avg_write_mb_s"`
	Hits     int64   `json:"buffer_hits"`
	Misses   int64   `json:"buffer_misses"`
	User     float64 `json:"cpu_user_s"`
	Elapsed  float64 `json:"elapsed_s"`
	Text     string  `json:"text,omitempty"`
}

// BenchmarkAppend writes records of each shape into one reused buffer,
// as pgstudy parse writes its jsonl; the bytes are the JSON's.
func BenchmarkAppend(b *testing.B) {
	b.Run("device", func(b *testing.B) {
		recs := make([]device, 64)
		for i := range recs {
			x := uint64(i) * 7919
			recs[i] = device{8, uint32(i), "nvme0n1", x, 0, x * 8, x / 3, x * 5, 0, x * 40, x / 2, 0, x, x * 3, 0}
		}
		benchAppend(b, recs)
	})
	b.Run("figures", func(b *testing.B) {
		recs := make([]figures, 64)
		for i := range recs {
			f := float64(i)
			recs[i] = figures{i, "postgres", "pgbench_accounts", i%2 == 0, 4.774 + f, 1.389 * f, int64(i) * 248,
				55, 0.01 * f, 0.09 + f, "automatic vacuum of table \"postgres.public.pgbench_accounts\": index scans: 1"}
		}
		benchAppend(b, recs)
	})
}

func benchAppend[T any](b *testing.B, recs []T) {
	s, err := NewStruct[T]()
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	n := 0
	for i := range recs {
		buf, _ = s.Append(buf[:0], &recs[i])
		n += len(buf)
	}
	parsetest.Bench(b, n)
	for b.Loop() {
		for i := range recs {
			buf, _ = s.Append(buf[:0], &recs[i])
		}
	}
}
