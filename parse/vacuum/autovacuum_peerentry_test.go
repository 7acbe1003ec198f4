package vacuum

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The generator's autovacuum and autoanalyze entries: a fixture's entry
// with other numbers.

type peerVac struct {
	removed, remain, scanned, eager  int64 // pages
	pins, skippedFrozen              int64 // up to 14
	tuples, tuplesRemain, dead, xmin int64
	cutoff, cutoffAge                int64
	frozenXID, frozenAhead           int64
	mxid, mxidAhead                  int64
	frozenPages, frozenTuples        int64
	visible, allFrozen, wereVisible  int64
	deadPages, deadItems             int64
}

// vacuum writes an autovacuum entry of table name like e, with other
// numbers; short is the table's name without schema (for its indexes'),
// toastOID that of a TOAST table.
func (g *peerGen) vacuum(s *peerServer, p *peerProc, e peerEntry, name, short string, toastOID int) {
	g.advance(50*time.Millisecond, 900*time.Millisecond)
	_, rest := peerTableName(e.msg)
	scans, err := strconv.Atoi(strings.TrimPrefix(rest, ": index scans: "))
	if err != nil {
		g.err = fmt.Errorf("pg%d: %q: expected index scans: N after the table name", s.version, e.msg)
		return
	}
	needed := scans > 0
	for _, l := range e.body {
		needed = needed || strings.HasPrefix(l, "index scan needed")
	}
	verb, aggressive := g.vacuumVerb()
	if needed && g.chance(0.1) {
		scans = 2
	}
	v := g.vacuumNumbers(aggressive, needed)
	body := make([]string, 0, len(e.body))
	for _, l := range e.body {
		body = append(body, g.vacuumLine(l, &v, short, toastOID))
		if g.err != nil {
			g.err = fmt.Errorf("pg%d: %v", s.version, g.err)
			return
		}
	}
	g.line(g.now, p, 2, "LOG", fmt.Sprintf("%s of table \"%s\": index scans: %d", verb, name, scans), body)
	t := g.truth[name]
	t.Vacuums++
	t.TuplesRemoved += v.tuples
	t.PagesRemoved += v.removed
	g.truth[name] = t
}

// vacuumVerb draws how an entry starts: now and then an aggressive
// vacuum, rarely one to prevent wraparound.
func (g *peerGen) vacuumVerb() (verb string, aggressive bool) {
	verb = "automatic vacuum"
	switch x := g.rng.Float64(); {
	case x < 0.01:
		verb, aggressive = "automatic aggressive vacuum to prevent wraparound", true
	case x < 0.06:
		verb, aggressive = "automatic aggressive vacuum", true
	}
	return verb, aggressive
}

// vacuumNumbers draws the numbers of an entry, consistent with each other:
// an aggressive vacuum scans every page, and an index scan needed means
// dead items.
func (g *peerGen) vacuumNumbers(aggressive, needed bool) peerVac {
	var v peerVac
	total := g.spread(1, 200_000)
	if g.chance(0.15) && total > 1 {
		v.removed = g.between(max(1, total/16), total-1)
	}
	v.remain = total - v.removed
	v.scanned = total
	if !aggressive && g.chance(0.7) {
		v.scanned = g.between(max(1, v.removed), total)
	}
	if g.chance(0.3) {
		v.eager = g.between(0, v.scanned/20)
	}
	if !aggressive {
		v.skippedFrozen = total - v.scanned
	}
	if g.chance(0.05) {
		v.pins = g.between(1, 3)
	}
	if g.chance(0.85) || needed {
		v.tuples = g.spread(1, 40*total)
	}
	v.tuplesRemain = v.remain * g.between(20, 120)
	if g.chance(0.1) {
		v.dead = g.between(1, 500)
	}
	g.xid += g.between(1, 400)
	v.cutoff, v.cutoffAge = g.xid, g.between(0, 50)
	v.xmin = v.cutoff
	v.frozenXID, v.frozenAhead = v.cutoff-g.between(0, 200), g.between(1, 100_000)
	v.mxid, v.mxidAhead = g.between(1, 1000), g.between(1, 100)
	if g.chance(0.5) {
		v.frozenPages = g.between(0, v.scanned)
		v.frozenTuples = v.frozenPages * g.between(0, 60)
	}
	v.visible = g.between(0, v.scanned)
	v.allFrozen = g.between(0, v.visible)
	v.wereVisible = g.between(0, v.allFrozen)
	if needed {
		v.deadItems = v.tuples - g.between(0, v.tuples/4)
		v.deadPages = min(v.scanned, v.deadItems, g.between(1, v.deadItems))
	}
	return v
}

func peerPct(part, whole int64) float64 {
	if whole == 0 {
		return 100
	}
	return 100 * float64(part) / float64(whole)
}

// vacuumLine rewrites a continuation line of an autovacuum entry with the
// numbers of v. A line it does not know stays as it is; a known line with
// another count of numbers is an error.
func (g *peerGen) vacuumLine(l string, v *peerVac, short string, toastOID int) string {
	key, _, _ := strings.Cut(l, ":")
	total := v.removed + v.remain
	f := func(x int64) float64 { return float64(x) }
	switch {
	case key == "pages" && strings.Contains(l, "skipped due to pins"): // up to 14
		return g.set(l, f(v.removed), f(v.remain), f(v.pins), f(v.skippedFrozen))
	case key == "pages" && strings.Contains(l, "eagerly scanned"): // 18
		return g.set(l, f(v.removed), f(v.remain), f(v.scanned), peerPct(v.scanned, total), f(v.eager))
	case key == "pages":
		return g.set(l, f(v.removed), f(v.remain), f(v.scanned), peerPct(v.scanned, total))
	case key == "tuples" && strings.Contains(l, "oldest xmin"): // up to 14
		return g.set(l, f(v.tuples), f(v.tuplesRemain), f(v.dead), f(v.xmin))
	case key == "tuples":
		return g.set(l, f(v.tuples), f(v.tuplesRemain), f(v.dead))
	case key == "removable cutoff":
		return g.set(l, f(v.cutoff), f(v.cutoffAge))
	case key == "new relfrozenxid":
		return g.set(l, f(v.frozenXID), f(v.frozenAhead))
	case key == "new relminmxid":
		return g.set(l, f(v.mxid), f(v.mxidAhead))
	case key == "frozen":
		return g.set(l, f(v.frozenPages), peerPct(v.frozenPages, total), f(v.frozenTuples))
	case key == "visibility map":
		return g.set(l, f(v.visible), f(v.allFrozen), f(v.wereVisible))
	case key == "index scan needed" || key == "index scan bypassed":
		return g.set(l, f(v.deadPages), peerPct(v.deadPages, total), f(v.deadItems))
	case strings.HasPrefix(key, `index "`):
		idx, rest := peerTableName(l)
		if toastOID > 0 {
			idx = fmt.Sprintf("pg_toast_%d_index", toastOID)
		} else if short != "" {
			idx = short + strings.TrimPrefix(idx, "t")
		}
		pages := g.spread(2, max(2, total/2))
		deleted := g.between(0, pages/50)
		return `index "` + idx + `"` + g.set(rest, f(pages), f(g.between(0, deleted)), f(deleted), f(g.between(0, deleted)))
	}
	return g.usageLine(l, v.scanned)
}

// usageLine rewrites the lines of resource usage of an autovacuum or
// autoanalyze entry.
func (g *peerGen) usageLine(l string, pages int64) string {
	f := func(x int64) float64 { return float64(x) }
	key, _, _ := strings.Cut(l, ":")
	switch key {
	case "avg read rate":
		return g.set(l, g.rng.Float64()*80, g.rng.Float64()*40)
	case "buffer usage":
		return g.set(l, f(pages*2+g.between(0, 500)), f(g.between(0, pages)), f(g.between(0, pages/2+3)))
	case "WAL usage":
		records := g.between(0, pages*2+10)
		fpi := g.between(0, records/4)
		bytes := records*g.between(60, 200) + fpi*8192
		if strings.Count(l, ",") == 3 { // 18: "N buffers full"
			return g.set(l, f(records), f(fpi), f(bytes), f(g.between(0, 2)))
		}
		return g.set(l, f(records), f(fpi), f(bytes))
	case "system usage":
		user, sys := float64(g.spread(1, 5000))/100, float64(g.between(0, 200))/100
		return g.set(l, user, sys, user+sys+float64(g.spread(1, 20000))/100)
	}
	return l
}

// analyze writes an autoanalyze entry of table name like e, with other
// numbers.
func (g *peerGen) analyze(p *peerProc, e peerEntry, name string) {
	g.advance(50*time.Millisecond, 900*time.Millisecond)
	_, rest := peerTableName(e.msg)
	if rest != "" { // 13: system usage on the same line
		rest = " " + g.usageLine(strings.TrimPrefix(rest, " "), 0)
	}
	pages := g.spread(1, 30_000)
	body := make([]string, 0, len(e.body))
	for _, l := range e.body {
		body = append(body, g.usageLine(l, pages))
	}
	g.line(g.now, p, 2, "LOG", `automatic analyze of table "`+name+`"`+rest, body)
}

// set replaces the numbers of s, in order, with vals, each written with as
// many decimals as the number it replaces.
func (g *peerGen) set(s string, vals ...float64) string {
	var b []byte
	k, last := 0, 0
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		decimals := 0
		if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
			d := j + 1
			for d < len(s) && s[d] >= '0' && s[d] <= '9' {
				d++
			}
			decimals, j = d-j-1, d
		}
		if k == len(vals) {
			k++
			break
		}
		b = append(b, s[last:i]...)
		b = strconv.AppendFloat(b, vals[k], 'f', decimals, 64)
		k++
		i, last = j, j
	}
	if k != len(vals) {
		if g.err == nil {
			g.err = fmt.Errorf("%q: expected %d numbers", s, len(vals))
		}
		return s
	}
	return string(append(b, s[last:]...))
}
