package vacuum

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// collector collects the records and warnings of one input.
type collector struct {
	source string
	recs   []*Record
	done   []bool // done[i]: recs[i] got its summary
	warns  []parse.Warning
	ints   []int64 // slabs the records' number fields point into
	ixs    map[indexKey]int
	floats []float64
	// foreign is the first line found in another language (see foreign.go).
	foreign *parse.Warning
}

// warn adds a warning. Its text is copied: Parse's lines are parts of the
// whole input, which a warning should not keep in memory.
func (s *collector) warn(line int, text, msg string) {
	s.warns = append(s.warns, parse.Warning{Source: s.source, Line: line, Text: strings.Clone(text), Msg: msg})
	s.lookForeign(line, text)
}

func (s *collector) int(v int64) *int64 {
	if len(s.ints) == cap(s.ints) {
		s.ints = make([]int64, 0, 512)
	}
	s.ints = append(s.ints, v)
	return &s.ints[len(s.ints)-1]
}

func (s *collector) float(v float64) *float64 {
	if len(s.floats) == cap(s.floats) {
		s.floats = make([]float64, 0, 128)
	}
	s.floats = append(s.floats, v)
	return &s.floats[len(s.floats)-1]
}

// add adds v to *p, or sets it.
func (s *collector) add(p **int64, v int64) {
	if *p == nil {
		*p = s.int(v)
		return
	}
	**p += v
}

// result is the records, in order.
func (s *collector) result() []Record {
	out := make([]Record, len(s.recs))
	for i, r := range s.recs {
		out[i] = *r
	}
	return out
}

// finish warns of the records that never got their summary.
func (s *collector) finish() {
	for i := range s.recs {
		if !s.done[i] {
			r := s.recs[i]
			what := "no summary (\"finished vacuuming\", or \"found ... row versions\") for this VACUUM"
			if r.Operation == "analyze" {
				what = "no \"scanned N of M pages\" line for this ANALYZE"
			}
			s.warn(r.Line, relName(r), what)
		}
	}
}

// index finds or adds the record's entry for an index. A record with many
// indexes (only a damaged input has thousands) finds them through a map.
func (s *collector) index(r *Record, name string) int {
	const few = 16
	if len(r.Indexes) <= few {
		for i := range r.Indexes {
			if r.Indexes[i].Name == name {
				return i
			}
		}
	} else if i, ok := s.ixs[indexKey{r, name}]; ok {
		return i
	}
	r.Indexes = append(r.Indexes, Index{Name: strings.Clone(name)})
	if n := len(r.Indexes); n > few {
		if s.ixs == nil {
			s.ixs = map[indexKey]int{}
		}
		if n == few+1 {
			for i := range r.Indexes {
				s.ixs[indexKey{r, r.Indexes[i].Name}] = i
			}
		}
		s.ixs[indexKey{r, name}] = n - 1
	}
	return len(r.Indexes) - 1
}

// indexKey names an index of a record.
type indexKey struct {
	r    *Record
	name string
}
