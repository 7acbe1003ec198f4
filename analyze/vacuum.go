package analyze

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/vacuum"
)

// VacuumTotal is what VACUUM VERBOSE reported for a run, summed over the
// tables it vacuumed (a table and its TOAST table). A figure the server
// did not print is absent (its version does not have it).
type VacuumTotal struct {
	Tables        int
	PagesScanned  *int64
	PagesRemoved  *int64
	PagesFrozen   *int64
	TuplesRemoved *int64
	TuplesFrozen  *int64
	BufferHits    *int64
	BufferReads   *int64 // misses up to 17, reads from 18
	BufferDirtied *int64
	WALRecords    *int64
	WALFPI        *int64
	WALBytes      *int64
	CPUS          *float64 // user + system
	ElapsedS      *float64
}

func totalVacuum(recs []vacuum.Record) *VacuumTotal {
	t := &VacuumTotal{}
	addI := func(dst **int64, v parse.Opt[int64]) {
		if v.Valid {
			if *dst == nil {
				*dst = new(int64)
			}
			**dst += v.V
		}
	}
	addF := func(dst **float64, vs ...parse.Opt[float64]) {
		for _, v := range vs {
			if v.Valid {
				if *dst == nil {
					*dst = new(float64)
				}
				**dst += v.V
			}
		}
	}
	for _, r := range recs {
		if r.Operation != "vacuum" {
			continue
		}
		t.Tables++
		addI(&t.PagesScanned, r.PagesScanned)
		addI(&t.PagesRemoved, r.PagesRemoved)
		addI(&t.PagesFrozen, r.PagesFrozen)
		addI(&t.TuplesRemoved, r.TuplesRemoved)
		addI(&t.TuplesFrozen, r.TuplesFrozen)
		addI(&t.BufferHits, r.BufferHits)
		addI(&t.BufferReads, r.BufferMisses)
		addI(&t.BufferReads, r.BufferReads)
		addI(&t.BufferDirtied, r.BufferDirtied)
		addI(&t.WALRecords, r.WALRecords)
		addI(&t.WALFPI, r.WALFullPageImages)
		addI(&t.WALBytes, r.WALBytes)
		addF(&t.CPUS, r.CPUUserS, r.CPUSystemS)
		addF(&t.ElapsedS, r.ElapsedS)
	}
	if t.Tables == 0 {
		return nil
	}
	return t
}

// VacuumRow is one run's vacuum figures: every round is listed, since
// conditions can differ between rounds.
type VacuumRow struct {
	Host   string
	Test   string
	Config string
	Round  int
	RunID  int64
	VacuumTotal
}

// vacuumFigure names a figure of VacuumTotal for the sentences.
type vacuumFigure struct {
	name string
	get  func(*VacuumTotal) *float64
}

func i2f(p *int64) *float64 {
	if p == nil {
		return nil
	}
	f := float64(*p)
	return &f
}

var vacuumFigures = []vacuumFigure{
	{"the WAL bytes", func(v *VacuumTotal) *float64 { return i2f(v.WALBytes) }},
	{"the full page images", func(v *VacuumTotal) *float64 { return i2f(v.WALFPI) }},
	{"the WAL records", func(v *VacuumTotal) *float64 { return i2f(v.WALRecords) }},
	{"the pages dirtied", func(v *VacuumTotal) *float64 { return i2f(v.BufferDirtied) }},
	{"the tuples frozen", func(v *VacuumTotal) *float64 { return i2f(v.TuplesFrozen) }},
	{"the buffers read", func(v *VacuumTotal) *float64 { return i2f(v.BufferReads) }},
	{"the CPU time", func(v *VacuumTotal) *float64 { return v.CPUS }},
}

func (a *Analysis) vacuums() {
	groups, keys := a.groupRuns(okRun)
	for _, k := range keys {
		for _, r := range groups[k] {
			if r.Vacuum != nil {
				a.Vacuums = append(a.Vacuums, VacuumRow{Host: k.Host, Test: k.Test, Config: k.Config, Round: r.Round, RunID: r.RunID, VacuumTotal: *r.Vacuum})
			}
		}
	}
	// The differences in words: each configuration's medians against the
	// baseline's, for each test that vacuumed.
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			for _, c := range a.Configs {
				if c == a.Baseline {
					continue
				}
				if s := a.vacuumContrast(h, test, c); s != "" {
					a.Contrast = append(a.Contrast, s)
				}
			}
		}
	}
}

// vacuumSpread is a figure's median over rounds, its range and its
// interquartile range.
type vacuumSpread struct{ med, lo, hi, iqr float64 }

// vacuumMedian is host's test's figure f on config, over its rounds.
func (a *Analysis) vacuumMedian(host, test, config string, f vacuumFigure) (vacuumSpread, bool) {
	var xs []float64
	for _, v := range a.Vacuums {
		if v.Host == host && v.Test == test && v.Config == config {
			if p := f.get(&v.VacuumTotal); p != nil {
				xs = append(xs, *p)
			}
		}
	}
	if len(xs) == 0 {
		return vacuumSpread{}, false
	}
	sum := stats.Summarize(xs, 0.95)
	return vacuumSpread{sum.Median, sum.Min, sum.Max, sum.IQR}, true
}

// steadyBase says whether a baseline's figure can divide another: not
// zero, the middle half of its rounds within half its median (an outlier
// round does not count), and the ratio under 100x. Otherwise both values are written ("250,051 against 39
// (12 to 100)"): a ratio over a small or unsteady baseline says more
// about the baseline than about the difference.
func steadyBase(b vacuumSpread, ratio float64) bool {
	return b.med > 0 && b.iqr <= 0.5*b.med && ratio < 100 && ratio > 0.01
}

// vacuumContrast is the sentence comparing config's vacuum figures with
// the baseline's, or "" when none can be compared.
func (a *Analysis) vacuumContrast(h, test, c string) string {
	var parts, plain []string
	for _, f := range vacuumFigures {
		b, ok1 := a.vacuumMedian(h, test, a.Baseline, f)
		x, ok2 := a.vacuumMedian(h, test, c, f)
		switch {
		case !ok1 || !ok2 || (b.med == 0 && x.med == 0):
		case b.med > 0 && steadyBase(b, x.med/b.med):
			parts = append(parts, fmt.Sprintf("%s %s", times2(x.med/b.med), f.name))
		default:
			plain = append(plain, fmt.Sprintf("%s %s against %s (%s to %s)", f.name, plainNumber(x.med), plainNumber(b.med), plainNumber(b.lo), plainNumber(b.hi)))
		}
	}
	var s string
	switch {
	case len(parts) > 0:
		s = fmt.Sprintf("%s: %s had %s of %s", test, c, parts[0], a.Baseline)
		if len(parts) > 1 {
			s += ", with " + strings.Join(parts[1:], ", ")
		}
		if len(plain) > 0 {
			s += "; not as ratios, " + a.Baseline + "'s being small or unsteady over rounds: " + strings.Join(plain, ", ")
		}
	case len(plain) > 0:
		s = fmt.Sprintf("%s: %s against %s, not as ratios, %s's being small or unsteady over rounds: %s", test, c, a.Baseline, a.Baseline, strings.Join(plain, ", "))
	default:
		return ""
	}
	if len(a.Hosts) > 1 {
		s = h + ": " + s
	}
	return s + " (medians over rounds; ranges are the baseline's)."
}

// plainNumber writes a number of 1,000 or more rounded, with its
// thousands grouped ("250,051"), and a smaller one with up to three
// significant digits.
func plainNumber(x float64) string {
	if math.Abs(x) >= 1e15 || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	if x != math.Trunc(x) && math.Abs(x) < 1000 {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	x = math.Round(x)
	digits := strconv.FormatInt(int64(math.Abs(x)), 10)
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// times2 writes a ratio as a post would: "7.1x", "0.52x", "1.00x".
func times2(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "n/a"
	case r >= 10:
		return fmt.Sprintf("%.0fx", r)
	case r >= 2:
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}
