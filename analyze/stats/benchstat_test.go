package stats

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// peerPair is one benchmark: a baseline sample and a sample to compare with it, as printed in the
// benchmark files (ns/op) and as parsed back.
type peerPair struct {
	name    string
	base, x []float64
	text    [2][]string // the printed values, so that both sides read the same numbers
}

// peerPairs makes the deterministic sample pairs of the peer check: every size from 3 to 20 and
// some unequal and larger ones (the larger ones reach benchstat's normal approximations: the
// median interval above 30 values, the U test above 25 with ties and 50 without), shifts of 0%,
// 1%, 5% and 30%, three spreads, and values printed finely (almost no ties) or on a coarse grid
// (many ties); then a few edge cases.
func peerPairs() []peerPair {
	var sizes [][2]int
	for n := 3; n <= 20; n++ {
		sizes = append(sizes, [2]int{n, n})
	}
	sizes = append(sizes, [2]int{3, 5}, [2]int{4, 7}, [2]int{5, 10}, [2]int{6, 9}, [2]int{8, 12},
		[2]int{10, 20}, [2]int{20, 10}, [2]int{12, 5}, [2]int{1, 6}, [2]int{2, 9},
		[2]int{24, 24}, [2]int{25, 25}, [2]int{26, 26}, [2]int{30, 30}, [2]int{31, 31},
		[2]int{40, 40}, [2]int{45, 55}, [2]int{50, 50}, [2]int{51, 51}, [2]int{80, 80})
	rng := rand.New(rand.NewPCG(20240917, 7))
	var pairs []peerPair
	for _, size := range sizes {
		for _, shift := range []float64{0, 0.01, 0.05, 0.30} {
			for _, spread := range []float64{0.005, 0.02, 0.10} {
				for _, coarse := range []bool{false, true} {
					level := 1e5 * (1 + 100*rng.Float64()) // 0.1 to 10 ms
					gen := func(n int, f float64) []string {
						out := make([]string, n)
						for i := range out {
							v := level * f * math.Exp(spread*rng.NormFloat64())
							if rng.IntN(10) == 0 {
								v *= 1 + 3*spread*rng.Float64() // an occasional slow run
							}
							if coarse {
								q := level * spread / 2
								out[i] = strconv.FormatFloat(math.Round(v/q)*q, 'f', 0, 64)
							} else {
								out[i] = strconv.FormatFloat(v, 'f', 3, 64)
							}
						}
						return out
					}
					pairs = append(pairs, mkPair(gen(size[0], 1), gen(size[1], 1+shift)))
				}
			}
		}
	}
	rep := func(v string, n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	pairs = append(pairs,
		mkPair(rep("1000", 5), rep("1000", 5)), // every value equal: benchstat's "all samples are equal"
		mkPair(rep("1000", 8), rep("2000", 8)), // ties within, none between
		mkPair([]string{"1", "2", "2"}, []string{"2"}),
		mkPair([]string{"10", "10", "10", "11", "30", "30", "31", "32", "33"},
			[]string{"10", "11", "30", "30", "30", "31", "32"}),
		mkPair([]string{"100", "101", "102", "103", "104", "105"}, []string{"100", "101", "102", "103", "104", "105"}),
	)
	for i := range pairs {
		pairs[i].name = fmt.Sprintf("P%04d", i)
	}
	return pairs
}

func mkPair(base, x []string) peerPair {
	p := peerPair{text: [2][]string{base, x}}
	for _, s := range base {
		v, _ := strconv.ParseFloat(s, 64)
		p.base = append(p.base, v)
	}
	for _, s := range x {
		v, _ := strconv.ParseFloat(s, 64)
		p.x = append(p.x, v)
	}
	return p
}

// pctRange is how benchstat prints a median's interval: the larger relative distance of a bound
// from the median, in whole percent.
func pctRange(s Summary) string {
	switch {
	case !s.CIValid:
		return "∞"
	case s.Median == 0:
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*pctRangeValue(s))
}

func pctRangeValue(s Summary) float64 {
	return math.Max(s.Hi/s.Median-1, 1-s.Lo/s.Median)
}

// peerTally counts the peer check's comparisons.
type peerTally struct {
	compared, boundary, capped int
}

// check compares our value with benchstat's printed one. They must print the same, except where
// ours lies on a rounding boundary of the printed precision (within 1e-9 of a half unit): then
// they may differ by half a unit.
func (tl *peerTally) check(t *testing.T, what string, ours float64, format func(float64) string, unit float64, theirs string, parse func(string) (float64, bool)) {
	t.Helper()
	tl.compared++
	if format(ours) == theirs {
		return
	}
	if v, ok := parse(theirs); ok && unit > 0 {
		f := ours/unit - math.Floor(ours/unit)
		if math.Abs(f-0.5) < 1e-9 && math.Abs(ours-v) <= unit/2*(1+1e-9) {
			tl.boundary++
			return
		}
	}
	t.Errorf("%s: ours %s (%v), benchstat %s", what, format(ours), ours, theirs)
}

var (
	pField    = regexp.MustCompile(`^(?:p=([0-9.]+) )?n=(\d+)(?:\+(\d+))?$`)
	warnLine  = regexp.MustCompile(`^([A-Z]+)(\d+): (.*)$`)
	pctField  = regexp.MustCompile(`^([0-9]+)%$`)
	deltaFied = regexp.MustCompile(`^([+-][0-9]+\.[0-9]{2})%$`)
)

// TestBenchstatPeer checks Summarize and Compare against the real benchstat at three confidence
// and alpha levels: medians at full precision, the intervals as "± x%", the "~" or the change in
// percent, the p-value at three decimals, the sample sizes, and the warnings for samples too
// small for an interval or a test.
func TestBenchstatPeer(t *testing.T) {
	bin := pgtest.Benchstat(t)
	pairs := peerPairs()
	dir := t.TempDir()
	var files [2]bytes.Buffer
	for _, p := range pairs {
		for side := range files {
			for _, v := range p.text[side] {
				fmt.Fprintf(&files[side], "Benchmark%s 1 %s ns/op\n", p.name, v)
			}
		}
	}
	paths := [2]string{filepath.Join(dir, "base.txt"), filepath.Join(dir, "x.txt")}
	for i, p := range paths {
		if err := os.WriteFile(p, files[i].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var tally peerTally
	for _, lv := range []peerLevel{{0.95, 0.05}, {0.90, 0.10}, {0.99, 0.01}} {
		t.Run(fmt.Sprintf("confidence=%v,alpha=%v", lv.confidence, lv.alpha), func(t *testing.T) {
			records, warnings := runBenchstat(t, bin, paths, lv)
			byName := map[string]int{}
			for i, rec := range records {
				if len(rec) > 0 {
					byName[rec[0]] = i
				}
			}
			for _, p := range pairs {
				i, ok := byName[p.name]
				if !ok {
					t.Errorf("%s: not in benchstat's output", p.name)
					continue
				}
				if rec := records[i]; len(rec) != 7 {
					t.Errorf("%s: benchstat row %q has %d fields, want 7", p.name, rec, len(rec))
					continue
				}
				tally.row(t, p, records[i], strconv.Itoa(i+1), warnings, lv)
			}
		})
	}
	t.Logf("benchstat peer check: %d sample pairs at 3 levels, %d comparisons, %d on a rounding boundary (within half a printed unit), %d p-values above 1 from benchstat capped at 1 here",
		len(pairs), tally.compared, tally.boundary, tally.capped)
}

// peerLevel is a confidence level and a significance level benchstat is
// run at.
type peerLevel struct{ confidence, alpha float64 }

// runBenchstat runs benchstat on the two files and returns its CSV
// records and its warnings. Warnings go to stderr, addressed like
// spreadsheet cells: B is the baseline's summary, D the other sample's, F
// the comparison; rows count CSV records from 1.
func runBenchstat(t *testing.T, bin string, paths [2]string, lv peerLevel) ([][]string, map[string][]string) {
	t.Helper()
	cmd := exec.Command(bin, "-format", "csv",
		"-confidence", fmt.Sprint(lv.confidence), "-alpha", fmt.Sprint(lv.alpha), paths[0], paths[1])
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("benchstat: %v\n%s", err, stderr.String())
	}
	r := csv.NewReader(&stdout)
	r.FieldsPerRecord = -1
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("reading benchstat's CSV: %v", err)
	}
	warnings := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if m := warnLine.FindStringSubmatch(line); m != nil {
			warnings[m[1]+m[2]] = append(warnings[m[1]+m[2]], m[3])
		} else if line != "" {
			t.Errorf("unexpected benchstat stderr line %q", line)
		}
	}
	return records, warnings
}

// nsToSec reads ns/op as benchstat does: as sec/op.
func nsToSec(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = v * 1e-9
	}
	return out
}

func sprint(v float64) string { return fmt.Sprint(v) }

func parseF(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// parseMatch reads the number re's first group captures in s.
func parseMatch(re *regexp.Regexp) func(string) (float64, bool) {
	return func(s string) (float64, bool) {
		m := re.FindStringSubmatch(s)
		if m == nil {
			return 0, false
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v, true
	}
}

// row checks one pair against benchstat's row rec (numbered row).
func (tl *peerTally) row(t *testing.T, p peerPair, rec []string, row string, warnings map[string][]string, lv peerLevel) {
	t.Helper()
	base, x := nsToSec(p.base), nsToSec(p.x)
	sb, sx := Summarize(base, lv.confidence), Summarize(x, lv.confidence)
	c := Compare(base, x, lv.confidence, lv.alpha)
	what := func(s string) string { return fmt.Sprintf("%s %s (n=%d+%d)", p.name, s, len(base), len(x)) }

	tl.check(t, what("base median"), sb.Median, sprint, 0, rec[1], parseF)
	tl.check(t, what("x median"), sx.Median, sprint, 0, rec[3], parseF)
	for _, side := range []struct {
		s    Summary
		got  string
		cell string
	}{{sb, rec[2], "B"}, {sx, rec[4], "D"}} {
		pct := func(float64) string { return pctRange(side.s) }
		val := math.NaN()
		if side.s.CIValid {
			val = 100 * pctRangeValue(side.s)
		}
		tl.check(t, what("interval "+side.cell), val, pct, 1, side.got, parseMatch(pctField))
		tl.compared++
		warned := hasWarning(warnings[side.cell+row], "samples for confidence interval")
		if warned == side.s.CIValid {
			t.Errorf("%s: CIValid %v, benchstat warned %v", what("interval "+side.cell), side.s.CIValid, warned)
		}
	}
	tl.delta(t, what("vs base"), c, sb.Median == sx.Median, rec[5], lv)
	tl.pValue(t, what, c, rec[6], len(base), len(x))

	fw := warnings["F"+row]
	if !hasWarning(fw, "all samples are equal") {
		tl.compared++
		if warned := hasWarning(fw, "to detect a difference"); warned == c.PValid {
			t.Errorf("%s: PValid %v, benchstat warned %v (%q)", what("P"), c.PValid, warned, fw)
		}
	}
}

// delta checks the "vs base" cell: "~" when not significant, else the
// change in percent.
func (tl *peerTally) delta(t *testing.T, what string, c Comparison, sameMedian bool, cell string, lv peerLevel) {
	t.Helper()
	delta := func(float64) string {
		switch {
		case !c.Significant:
			return "~"
		case sameMedian:
			return "0.00%"
		}
		return fmt.Sprintf("%+.2f%%", (c.Ratio-1)*100)
	}
	if math.Abs(c.P-lv.alpha) <= 1e-12*lv.alpha && (cell == "~") != (delta(0) == "~") {
		// P equals alpha in exact arithmetic: benchstat's floating point puts it
		// on either side, depending on ties; only the change must agree when shown.
		tl.boundary++
		if cell == "~" {
			tl.compared++
			return
		}
		c.Significant = true
	}
	tl.check(t, what, (c.Ratio-1)*100, delta, 0.01, cell, parseMatch(deltaFied))
}

// pValue checks the P cell: "p=0.002 n=6+6" (or "n=6" when both are).
func (tl *peerTally) pValue(t *testing.T, what func(string) string, c Comparison, cell string, nBase, nX int) {
	t.Helper()
	m := pField.FindStringSubmatch(cell)
	if m == nil {
		t.Errorf("%s: cannot read benchstat's %q", what("P"), cell)
		return
	}
	n1, n2 := m[2], m[3]
	if n2 == "" {
		n2 = n1
	}
	tl.compared++
	if n1 != strconv.Itoa(nBase) || n2 != strconv.Itoa(nX) {
		t.Errorf("%s: benchstat says %q", what("n"), cell)
	}
	if _, err := strconv.ParseFloat(m[1], 64); err != nil {
		t.Errorf("%s: benchstat printed no p in %q", what("P"), cell)
		return
	}
	if theirP, _ := strconv.ParseFloat(m[1], 64); theirP > 1 && c.P == 1 {
		// benchstat doubles one tail of an asymmetric tied distribution without capping.
		tl.compared++
		tl.capped++
		return
	}
	tl.check(t, what("P"), c.P, func(v float64) string { return fmt.Sprintf("%0.3f", v) }, 0.001, m[1], parseF)
}

func hasWarning(ws []string, substr string) bool {
	for _, w := range ws {
		if strings.Contains(w, substr) {
			return true
		}
	}
	return false
}
