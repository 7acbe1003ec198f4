package explain

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// TestPlainRun: the run plainRun finds, eight bytes at a time, is the
// one a byte at a time finds, whatever the bytes and wherever they are.
func TestPlainRun(t *testing.T) {
	slow := func(s string) int {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				return i
			}
		}
		return len(s)
	}
	special := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, 'a', 0x5b, 0x5d, 0x23}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		// One to three bytes of the kinds that stop a run, or are next
		// to them, anywhere.
		for range 1 + rng.IntN(3) {
			if len(b) > 0 && n%5 != 0 {
				b[rng.IntN(len(b))] = special[rng.IntN(len(special))]
			}
		}
		if got, want := plainRun(string(b)), slow(string(b)); got != want {
			t.Fatalf("plainRun(%q) = %d, want %d", b, got, want)
		}
	}
}

// TestJSONLines: the line the decoder gives every key and element, which
// skip counts as it passes newlines, is the line counted from the start,
// in every JSON fixture and in each with its white space changed (CRLF,
// tabs, a newline before every colon and after every comma).
func TestJSONLines(t *testing.T) {
	var walk func(d *jsonDecoder) error
	check := func(d *jsonDecoder, line, at int) error {
		if want := strings.Count(d.data[:at], "\n") + 1; line != want {
			return fmt.Errorf("offset %d: line %d, want %d", at, line, want)
		}
		return nil
	}
	walk = func(d *jsonDecoder) error {
		switch d.peek() {
		case '{':
			return d.object("", func(_ string, line int) error {
				if err := check(d, d.line(), d.pos); err != nil {
					return err
				}
				return walk(d)
			})
		case '[':
			return d.array("", func(line int) error {
				if err := check(d, line, d.pos); err != nil {
					return err
				}
				return walk(d)
			})
		}
		_, err := d.value()
		return err
	}
	for _, f := range golden.Files(t, "", "*.json") {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		in := string(golden.Text(t, f))
		for _, v := range []string{in, strings.ReplaceAll(in, "\n", "\r\n"), strings.ReplaceAll(in, "  ", "\t"),
			strings.ReplaceAll(strings.ReplaceAll(in, `": `, "\"\n:\n "), ",", ",\n")} {
			d := newJSONDecoder(v, f)
			if err := walk(d); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if d.line() != strings.Count(v[:d.pos], "\n")+1 {
				t.Fatalf("%s: at the end, line %d", f, d.line())
			}
		}
	}
}
