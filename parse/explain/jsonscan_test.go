package explain

import (
	"math/rand/v2"
	"testing"
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
