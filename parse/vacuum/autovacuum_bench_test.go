package vacuum

import "testing"

// BenchmarkAutovacuumSeq reads server logs with autovacuum entries, 13
// to 18, about 8 MiB, a record at a time, as pgstudy parse does.
func BenchmarkAutovacuumSeq(b *testing.B) {
	benchSeq(b, benchInput(b, "autovacuum", "*.log", 8<<20), AutovacuumSeq)
}

// BenchmarkLogFormatsSeq reads the same servers' entries
// (testdata/logformats, 13 to 18) in each format, about 8 MiB of each, a
// record at a time, as pgstudy parse autovacuum-log does: the stderr log
// is the baseline of the others.
func BenchmarkLogFormatsSeq(b *testing.B) {
	for _, ext := range logFormats {
		b.Run(ext, func(b *testing.B) {
			benchSeq(b, benchInput(b, "logformats", "pg*-logformats."+ext, 8<<20), AutovacuumSeq)
		})
	}
}
