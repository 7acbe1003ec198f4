package samples

// The names of run parts, and which of them count. A run part is named
// after the runs it holds: rFIRST.parquet as the Writer commits them (one
// run, or the runs of one CommitMany, named by the first), and
// rFIRST-LAST.parquet as Compact writes them, holding every run from
// FIRST to LAST. A compacted runs part is the commit record of the runs
// it holds: once it is in runs/, the parts it replaced (whose runs lie in
// its range) no longer count, in any table, whether or not they have been
// removed yet. So a reader never counts a run twice, and a compaction
// killed at any point leaves a capture that reads as before or as after.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// partRange is the runs a run part's name gives: first, and for a
// compacted part last (0 for a part as committed, whose name does not say
// which runs were committed with its first).
type partRange struct{ first, last int64 }

// compacted reports whether the name is a compacted part's.
func (p partRange) compacted() bool { return p.last > 0 }

// end is the last run of p's name: its range's end, or its first run
// (a part of several runs committed together is named by its first).
func (p partRange) end() int64 { return max(p.first, p.last) }

// within reports whether p's runs by name lie in q's.
func (p partRange) within(q partRange) bool { return q.first <= p.first && p.end() <= q.end() }

// name is the part name of p.
func (p partRange) name() string {
	if p.compacted() {
		return rangePart(p.first, p.last)
	}
	return runPart(p.first)
}

// rangePart is the name of a compacted part holding runs first to last.
func rangePart(first, last int64) string { return fmt.Sprintf("r%06d-%06d.parquet", first, last) }

// parseRunPart parses a run part's name, either form; ok only for a name
// pgstudy gives (canonical: the zero padding as runPart writes it, and a
// range of at least two runs).
func parseRunPart(name string) (partRange, bool) {
	if !isPart(name) || len(name) < 2 || name[0] != 'r' {
		return partRange{}, false
	}
	body := strings.TrimSuffix(name[1:], partSuffix)
	a, b, isRange := strings.Cut(body, "-")
	first, ok := digits(a)
	if !ok || first < 1 {
		return partRange{}, false
	}
	p := partRange{first: first}
	if isRange {
		last, ok := digits(b)
		if !ok || last <= first {
			return partRange{}, false
		}
		p.last = last
	}
	return p, p.name() == name
}

// digits is the number a string of decimal digits writes.
func digits(s string) (int64, bool) {
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, s != ""
}

// comparePartNames orders part names by the numbers they carry (a
// session's, or a run part's first run and then its last), so that run
// 1000000 comes after run 999999 and a compacted part sorts among the
// parts it replaced; names of no known form sort after, by name.
func comparePartNames(a, b string) int {
	ka, oka := partKey(a)
	kb, okb := partKey(b)
	switch {
	case oka && okb:
		// A session's parts first (raw_bytes holds both kinds), as the
		// sessions come before their runs.
		return cmp.Or(-cmp.Compare(a[0], b[0]), cmp.Compare(ka.first, kb.first), cmp.Compare(ka.last, kb.last), strings.Compare(a, b))
	case oka != okb:
		if oka {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

// partKey is the numbers of a session's or run's part name.
func partKey(name string) (partRange, bool) {
	if p, ok := parseRunPart(name); ok {
		return p, true
	}
	if n, ok := parsePart(name, 's'); ok {
		return partRange{first: n}, true
	}
	return partRange{}, false
}

// liveRunParts splits the names of the parts in runs/ into those that
// count and those a compacted part replaced: a part whose first run lies
// in another (compacted) part's range. Two compacted parts whose ranges
// overlap without one holding the other are a damaged capture, and an
// error. live keeps the order of names.
func liveRunParts(names []string) (live, replaced []string, err error) {
	var ranges []partRange
	for _, n := range names {
		if p, ok := parseRunPart(n); ok && p.compacted() {
			ranges = append(ranges, p)
		}
	}
	slices.SortFunc(ranges, func(a, b partRange) int { return cmp.Or(cmp.Compare(a.first, b.first), cmp.Compare(a.last, b.last)) })
	// reach[j] is the furthest run the ranges up to j hold: the walk back
	// from the ranges starting at or before a part's first stops where no
	// earlier range reaches it.
	reach := make([]int64, len(ranges))
	for j, r := range ranges {
		reach[j] = r.last
		if j > 0 {
			reach[j] = max(reach[j], reach[j-1])
		}
	}
	// holder finds the compacted part that replaced p, if any.
	holder := func(p partRange) (partRange, bool, error) {
		i, _ := slices.BinarySearchFunc(ranges, p.first+1, func(r partRange, t int64) int { return cmp.Compare(r.first, t) })
		for j := i - 1; j >= 0 && reach[j] >= p.first; j-- {
			q := ranges[j] // q.first <= p.first
			switch {
			case q == p || q.last < p.first:
			case !p.compacted() || q.last >= p.last:
				return q, true, nil
			case q.first < p.first:
				return q, false, fmt.Errorf("samples: runs parts %s and %s overlap, and neither holds the other: "+
					"a damaged capture (were parts copied in by hand?)", q.name(), p.name())
			}
			// Otherwise p holds q: q is the replaced one.
		}
		return partRange{}, false, nil
	}
	for _, n := range names {
		p, ok := parseRunPart(n)
		if !ok {
			live = append(live, n)
			continue
		}
		_, held, err := holder(p)
		if err != nil {
			return nil, nil, err
		}
		if held {
			replaced = append(replaced, n)
		} else {
			live = append(live, n)
		}
	}
	return live, replaced, nil
}

// canonicalName reports whether name is a part name pgstudy gives: a
// session's (prefix 's') or a run's, either form (prefix 'r').
func canonicalName(name string, prefix byte) bool {
	if prefix == 'r' {
		_, ok := parseRunPart(name)
		return ok
	}
	n, ok := parsePart(name, prefix)
	return ok && canonicalPart(prefix, n) == name
}
