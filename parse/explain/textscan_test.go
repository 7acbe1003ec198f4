package explain

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// TestLastOpen: lastOpen finds what strings.LastIndex(s, " (") finds,
// which the node line's groups were read with before.
func TestLastOpen(t *testing.T) {
	for _, s := range []string{
		"", "(", " (", "((", "a (b)", "a(b)", "(a (b)", "a (b) (c)", "a ((b)", "a( (b(",
		"Seq Scan on t  (cost=0.00..1.00 rows=1 width=4) (actual time=0.1..0.2 rows=1.00 loops=1)",
		"Custom Scan (Foo) on t", "x (never executed)", "é (ü)",
	} {
		if got, want := lastOpen(s), strings.LastIndex(s, " ("); got != want {
			t.Errorf("lastOpen(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzLastOpen(f *testing.F) {
	f.Add("a (b) (c)")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lastOpen(s), strings.LastIndex(s, " ("); got != want {
			t.Errorf("lastOpen(%q) = %d, want %d", s, got, want)
		}
	})
}

// TestFields: field splits as strings.Fields does, also around spaces
// beyond ASCII, and cutEq as strings.Cut(kv, "=").
func TestFields(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", " a ", "cost=0.00..1.23 rows=4 width=5", "a\tb\n c\r\v\fd",
		"a\u00a0b c", "\u2003a b", "a b\u0085", "é b", "a é\u00a0b  c", "a\xffb \xc2", "\u3000x\u2029",
	} {
		checkFields(t, s)
	}
}

func checkFields(t *testing.T, s string) {
	t.Helper()
	var got []string
	for f, rest := field(s); f != ""; f, rest = field(rest) {
		got = append(got, f)
	}
	if want := strings.Fields(s); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
		t.Errorf("fields(%q) = %q, want %q", s, got, want)
	}
	k, v := cutEq(s)
	if wk, wv, _ := strings.Cut(s, "="); k != wk || v != wv {
		t.Errorf("cutEq(%q) = %q, %q, want %q, %q", s, k, v, wk, wv)
	}
}

// TestCut: cut finds what strings.Cut finds, for the separators Text
// cuts at.
func TestCut(t *testing.T) {
	for _, s := range []string{"", ":", ": ", "a: b: c", "a:b: c", "1.5..2.5", "1..", "..", "a,b, c", "x = 'y', z = 'w'", "a :  b"} {
		checkCut(t, s)
	}
}

func checkCut(t *testing.T, s string) {
	t.Helper()
	for _, sep := range []string{": ", ", ", "..", " = ", "="} {
		b, a, ok := cut(s, sep)
		if wb, wa, wok := strings.Cut(s, sep); b != wb || a != wa || ok != wok {
			t.Errorf("cut(%q, %q) = %q, %q, %v, want %q, %q, %v", s, sep, b, a, ok, wb, wa, wok)
		}
	}
}

func FuzzCut(f *testing.F) {
	f.Add("Buffers: shared hit=1, local read=2")
	f.Fuzz(checkCut)
}

func FuzzFields(f *testing.F) {
	f.Add("a\u00a0b c=d")
	f.Fuzz(checkFields)
}

// FuzzFigures: a group the one-pass scan reads gives the figures the
// field-by-field reading gives.
func FuzzFigures(f *testing.F) {
	for _, s := range []string{
		"cost=0.00..1.23 rows=4 width=5", "cost=2160.83..2160.84 rows=41667 width=0",
		"cost=1..2 rows=1e3 width=4", "cost=0.00..1.00 rows=1 width=4 ", "cost=1.5..2 rows=3 width=0123",
	} {
		f.Add(s, "time=14.355..231.511 rows=33333.33 loops=3")
		f.Add(s, "rows=4.00 loops=1")
	}
	f.Fuzz(func(t *testing.T, cost, actual string) {
		var p textParser
		var fast, slow Node
		if p.costAsPrinted(cost, &fast) {
			if !p.costFields(cost, &slow) || jsonString(fast) != jsonString(slow) {
				t.Fatalf("%q: %s as printed, %s by fields", cost, jsonString(fast), jsonString(slow))
			}
		}
		fast, slow = Node{}, Node{}
		if p.actualAsPrinted(actual, &fast.ActualStartupTimeMs, &fast.ActualTotalTimeMs, &fast.ActualRows, &fast.ActualLoops) {
			if !p.actualFields(actual, &slow.ActualStartupTimeMs, &slow.ActualTotalTimeMs, &slow.ActualRows, &slow.ActualLoops) || jsonString(fast) != jsonString(slow) {
				t.Fatalf("%q: %s as printed, %s by fields", actual, jsonString(fast), jsonString(slow))
			}
		}
	})
}

// FuzzMatchName: matchName finds the longest name of nodeNames that starts
// a line and ends at a space or the line's end, as a look-up at every
// space did.
func FuzzMatchName(f *testing.F) {
	for _, s := range []string{"Seq Scan on t", "Hash Right Anti Join", "Hash  Join", " Seq Scan", "Hash", "Finalize GroupAggregate x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, head string) {
		best := -1
		for i := 0; i <= len(head); i++ {
			if i == len(head) || head[i] == ' ' {
				if _, ok := nodeNames[head[:i]]; ok {
					best = i
				}
			}
		}
		spec, name, rest, known := matchName(head)
		if known != (best >= 0) || known && (name != head[:best] || *spec != nodeNames[name] || rest != strings.TrimPrefix(head[best:], " ")) {
			t.Fatalf("%q: %v %q %q %v, want the name %d bytes long", head, spec, name, rest, known, best)
		}
	})
}

// FuzzBuffers: a Buffers or I/O Timings line read in one pass where it
// can be, else field by field (buffersLine), gives the counters and the
// warning that reading it field by field alone gives.
func FuzzBuffers(f *testing.F) {
	for _, s := range []string{
		"shared hit=37 read=11", "shared read=1640", "shared hit=1 read=2 dirtied=3 written=4, local hit=5 read=6 dirtied=7 written=8, temp read=9 written=10",
		"shared hit=1  read=2", "shared hit=1, ", "local hit=x", "shared hit=12345678901234567890", "hit=1",
		"shared read=465.148", "read=1.500 write=2.500", "shared/local read=1.500 write=2.500, temp read=0.500 write=0.250",
		"shared read=1.500, local write=3.000", "shared read=1. write=2", "temp read=1e3", "",
	} {
		f.Add(true, s)
		f.Add(false, s)
	}
	f.Fuzz(func(t *testing.T, times bool, value string) {
		label := "Buffers"
		if times {
			label = "I/O Timings"
		}
		read := func(line func(p *textParser, b *Buffers)) (Buffers, []parse.Warning) {
			p := textParser{in: newPlanLines(label + ": " + value)}
			p.in.next()
			var b Buffers
			line(&p, &b)
			return b, p.warns
		}
		got, gotWarns := read(func(p *textParser, b *Buffers) { p.buffersLine(b, label, value) })
		want, wantWarns := read(func(p *textParser, b *Buffers) {
			p.buffersLine(b, label, "") // the counters it sets to zero
			p.buffersFields(b, label, value)
		})
		if got != want || !reflect.DeepEqual(gotWarns, wantWarns) {
			t.Fatalf("%s: %q: %s %v, field by field %s %v", label, value, jsonString(got), gotWarns, jsonString(want), wantWarns)
		}
	})
}

// FuzzGroups: a node line whose groups figuresAsPrinted reads gives the
// head and figures that reading them from the last (groups) gives; where
// it does not read them, it sets nothing.
func FuzzGroups(f *testing.F) {
	for _, s := range []string{
		"Seq Scan on t  (cost=0.00..1.00 rows=1 width=4)",
		"Parallel Seq Scan on pgbench_accounts  (cost=0.00..2056.67 rows=41667 width=0) (actual time=14.355..231.511 rows=33333.33 loops=3)",
		"Hash  (cost=1.00..1.00 rows=1 width=4) (never executed)", "Limit  (cost=1..2 rows=1 width=4) (actual rows=1.00 loops=1)",
		"Custom Scan (Foo)  (cost=0.00..1.00 rows=1 width=4)", `Seq Scan on t "a (cost=0.00..1.00 rows=1 width=4)"  (cost=0.00..1.00 rows=1 width=4)`,
		"Sort  (actual time=1..2 rows=1 loops=1) (cost=0.00..1.00 rows=1 width=4)", "Result  (cost=0.00..0.01 rows=1 width=4) (actual time=0.001..0.001 rows=1 loops=1) (x)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var p textParser
		var fast, slow Node
		head, ok := figuresAsPrinted(s, &fast)
		if !ok {
			if jsonString(fast) != jsonString(Node{}) {
				t.Fatalf("%q: not read, yet set %s", s, jsonString(fast))
			}
			return
		}
		wantHead, stats, wantOK := p.groups(s, &slow)
		if head != wantHead || stats == 0 || !wantOK || jsonString(fast) != jsonString(slow) {
			t.Fatalf("%q: %q %s, from the last %q %d %v %s", s, head, jsonString(fast), wantHead, stats, wantOK, jsonString(slow))
		}
	})
}
