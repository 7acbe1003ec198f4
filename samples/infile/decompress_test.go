package infile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
)

// fixtures is a server log and its copies made by gzip -9n, bzip2 -9 and
// zstd -19 (parse/vacuum/testdata/logformats).
const fixtures = "../../parse/vacuum/testdata/logformats/pg17-logformats."

func readAll(t *testing.T, r io.Reader, limit int64) ([]byte, string, error) {
	t.Helper()
	d := Decompressed(r, limit)
	defer d.Close()
	b, err := io.ReadAll(d)
	return b, d.(*decompressed).Format(), err
}

func TestDecompressedFixtures(t *testing.T) {
	for _, kind := range []string{"log", "csv", "json"} {
		plain, err := os.ReadFile(fixtures + kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ ext, format string }{{"", ""}, {".gz", "gzip"}, {".bz2", "bzip2"}, {".zst", "zstd"}} {
			f, err := os.Open(fixtures + kind + c.ext)
			if err != nil {
				t.Fatal(err)
			}
			got, format, err := readAll(t, f, MaxDecompressed)
			f.Close()
			if err != nil || format != c.format || !bytes.Equal(got, plain) {
				t.Errorf("%s%s: format %q, err %v, %d bytes (equal: %v); want %q, the %d bytes of the plain file",
					kind, c.ext, format, err, len(got), bytes.Equal(got, plain), c.format, len(plain))
			}
		}
	}
}

// TestDecompressedDamaged: a truncated or corrupt stream is an error that
// says so, after the bytes that could be read; never a panic or a hang.
func TestDecompressedDamaged(t *testing.T) {
	for _, ext := range []string{".gz", ".bz2", ".zst"} {
		b, err := os.ReadFile(fixtures + "log" + ext)
		if err != nil {
			t.Fatal(err)
		}
		corrupt := bytes.Clone(b)
		for i := len(b) / 2; i < len(b)/2+16; i++ {
			corrupt[i] ^= 0x55
		}
		for _, tc := range []struct {
			name string
			in   []byte
			want string
		}{
			{"truncated", b[:len(b)/2], "-compressed stream is "},
			{"header only", b[:6], "-compressed stream is "},
			{"corrupt", corrupt, "-compressed stream is damaged"},
		} {
			_, _, err := readAll(t, bytes.NewReader(tc.in), MaxDecompressed)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: err %v; want one containing %q", ext, tc.name, err, tc.want)
			}
		}
	}
}

// TestDecompressedBomb: output past the limit is an error naming it, read
// no further.
func TestDecompressedBomb(t *testing.T) {
	var z bytes.Buffer
	w, _ := zstd.NewWriter(&z)
	w.Write(bytes.Repeat([]byte("LOG:  x\n"), 1<<20)) // 8 MiB of text in a few hundred bytes
	w.Close()
	_, _, err := readAll(t, &z, 1<<20)
	want := "zstd-compressed input that decompresses to more than 1 MiB, the most pgstudy reads of one compressed file"
	if err == nil || err.Error() != want {
		t.Errorf("err %v; want %q", err, want)
	}
}

func TestDecompressedEdges(t *testing.T) {
	var empty bytes.Buffer
	gw := gzip.NewWriter(&empty)
	gw.Close()
	for _, tc := range []struct {
		name, in, format, want, err string
	}{
		{"empty gzip", empty.String(), "gzip", "", ""},
		{"empty file", "", "", "", ""},
		{"short text", "L", "", "L", ""},
		{"text, then a read error", "L", "", "L", "disk gone"},
		{"bzip2's magic alone", "BZh", "bzip2", "", "bzip2-compressed stream is truncated"},
		{"xz", "\xfd7zXZ\x00\x00\x04", "", "", "xz-compressed data, which pgstudy does not decompress (it reads gzip, bzip2 and zstd): decompress it first"},
		{"two gzip members", gz("L1\n") + gz("L2\n"), "gzip", "L1\nL2\n", ""},
		{"gzip, then other bytes", gz("L1\n") + "a line of text, not gzip\n", "gzip", "L1\n",
			"what follows the end of the gzip stream is not another gzip member"},
		{"gzip whose checksum fails", badCRC(gz("L1\n")), "gzip", "L1\n",
			"gzip: invalid checksum; the checksum covers what was read before this error: records from it may hold damaged values"},
	} {
		var r io.Reader = strings.NewReader(tc.in)
		if tc.name == "text, then a read error" {
			r = io.MultiReader(r, iotest.ErrReader(errors.New("disk gone")))
		}
		got, format, err := readAll(t, r, MaxDecompressed)
		if string(got) != tc.want || format != tc.format || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %q, format %q, err %v; want %q, %q, err %q", tc.name, got, format, err, tc.want, tc.format, tc.err)
		}
		if tc.name == "text, then a read error" && (err == nil || err.Error() != "disk gone") {
			t.Errorf("%s: err %v; want the reader's own, unchanged", tc.name, err)
		}
	}
}

// gz is s as one gzip member.
func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// badCRC is a gzip member whose trailer's checksum is wrong.
func badCRC(member string) string {
	b := []byte(member)
	b[len(b)-8] ^= 0xff
	return string(b)
}

// BenchmarkDecompressed reads the fixture's copies by gzip, bzip2 and
// zstd, each repeated (concatenated streams, as gzip and zstd allow) to
// about 8 MiB of text; the bytes are the text's, as a parser sees them.
func BenchmarkDecompressed(b *testing.B) {
	plain, err := os.ReadFile(fixtures + "log")
	if err != nil {
		b.Fatal(err)
	}
	copies := 8 << 20 / len(plain)
	for _, ext := range []string{"", ".gz", ".bz2", ".zst"} {
		name := strings.TrimPrefix(ext, ".")
		if name == "" {
			name = "text"
		}
		b.Run(name, func(b *testing.B) {
			one, err := os.ReadFile(fixtures + "log" + ext)
			if err != nil {
				b.Fatal(err)
			}
			in := bytes.Repeat(one, copies)
			b.SetBytes(int64(len(plain) * copies))
			b.ReportAllocs()
			for b.Loop() {
				d := Decompressed(bytes.NewReader(in), MaxDecompressed)
				n, err := io.Copy(io.Discard, d)
				d.Close()
				if err != nil || n != int64(len(plain)*copies) {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
		})
	}
}

// FuzzDecompressed: any input gives its own bytes (text), its decompressed
// bytes within the limit, or an error; never a panic or a hang.
func FuzzDecompressed(f *testing.F) {
	for _, ext := range []string{"", ".gz", ".bz2", ".zst"} {
		b, err := os.ReadFile(fixtures + "log" + ext)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 1 << 20
		d := Decompressed(bytes.NewReader(in), limit)
		defer d.Close()
		out, err := io.ReadAll(d)
		format := d.(*decompressed).Format()
		if len(out) > limit {
			t.Fatalf("%d bytes out, over the limit of %d", len(out), limit)
		}
		if format == "" && err == nil && !bytes.Equal(out, in) {
			t.Fatalf("text changed: %d bytes in, %d out", len(in), len(out))
		}
		if err != nil && !strings.Contains(err.Error(), "compress") {
			t.Fatalf("error not about the compression: %v", err)
		}
	})
}
