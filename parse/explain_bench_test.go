package parse

import (
	"bytes"
	"os"
	"testing"
)

// explainLargest is the largest fixture matching pattern.
func explainLargest(b *testing.B, pattern string) []byte {
	var largest []byte
	for _, f := range fixtures(b, "explain", pattern) {
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

func BenchmarkExplainJSON(b *testing.B) {
	data := explainLargest(b, "pg*.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ExplainJSON(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExplainText(b *testing.B) {
	data := explainLargest(b, "pg*.txt")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ExplainText(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExplainFingerprint(b *testing.B) {
	p, _, err := ExplainJSON(bytes.NewReader(explainLargest(b, "pg*.json")), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Fingerprint()
	}
}
