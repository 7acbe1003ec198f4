package explain

import (
	"bytes"
	"os"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// largestPlan is the largest fixture matching pattern.
func largestPlan(b *testing.B, pattern string) []byte {
	var largest []byte
	for _, f := range golden.Files(b, "", pattern) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(largest) {
			largest = data
		}
	}
	return largest
}

func BenchmarkJSON(b *testing.B) {
	data := largestPlan(b, "pg*.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := JSON(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText(b *testing.B) {
	data := largestPlan(b, "pg*.txt")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Text(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	p, _, err := JSON(bytes.NewReader(largestPlan(b, "pg*.json")), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Fingerprint()
	}
}
