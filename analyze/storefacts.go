package analyze

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// pendingFacts are the facts an analysis computed of one capture's raw
// text, encoded, waiting to be stored beside it.
type pendingFacts struct {
	name     string // the capture, as messages name it
	reader   *samples.Reader
	computed int                     // parts whose facts were computed
	parts    [][]samples.DerivedPart // per runs part, its tables in the order they are stored
}

// encodeFacts encodes a part's facts in the order they are stored:
// run_facts last, for a part's facts count once its run_facts rows are
// there, and a store stopped part way leaves facts that do not count.
func encodeFacts(r *samples.Reader, part string, s facts.Set) ([]samples.DerivedPart, error) {
	var out []samples.DerivedPart
	add := func(p samples.DerivedPart, err error) error {
		out = append(out, p)
		return err
	}
	err := errors.Join(
		add(samples.EncodeDerived(r, part, s.Disks)),
		add(samples.EncodeDerived(r, part, s.IO)),
		add(samples.EncodeDerived(r, part, s.Views)),
		add(samples.EncodeDerived(r, part, s.Problems)),
		add(samples.EncodeDerived(r, part, s.Runs)))
	return out, err
}

// StoreFacts stores beside each capture the facts the analysis computed
// from its raw text, for the next analysis to read instead. A command
// calls it once what its user asked for is written, so that the facts
// never take the space that needs. Storing is a saving, not a need: a
// capture that cannot be written (read only, in use, a fleet, a full
// disk) is left as it was, and Options.Note is told why.
func (a *Analysis) StoreFacts() {
	for _, p := range a.pending {
		if msg := p.store(); msg != "" && a.note != nil {
			a.note(msg)
		}
	}
	a.pending = nil
}

// store stores the pending facts and says what it did.
func (p *pendingFacts) store() string {
	if len(p.parts) == 0 {
		return fmt.Sprintf("%s: computed the facts of %s from the raw text for this analysis; stored none (facts of a newer pgstudy are kept as they are)",
			p.name, plural(p.computed, "part"))
	}
	d, err := p.reader.OpenDerived()
	if err != nil {
		if errors.Is(err, samples.ErrFleet) {
			err = fmt.Errorf("%w: store them by analysing the capture it was published from, then publish it again with pgstudy compact --fleet", err)
		}
		return fmt.Sprintf("%s: computed the facts of %s from the raw text for this analysis, and stored none of them (%v): the next analysis computes them again",
			p.name, plural(p.computed, "part"), err)
	}
	defer d.Close()
	need := 0
	for _, tables := range p.parts {
		for _, t := range tables {
			need += t.Size()
		}
	}
	if err := d.Room(int64(need)); err != nil {
		return fmt.Sprintf("%s: computed the facts of %s from the raw text for this analysis, and stored none of them (%v): the next analysis computes them again",
			p.name, plural(p.computed, "part"), err)
	}
	stored, size := 0, 0
	for _, tables := range p.parts {
		for _, t := range tables {
			if err := d.Write(t); err != nil {
				return fmt.Sprintf("%s: stored the facts of %d of the %s computed from the raw text, and no more (%v): the next analysis computes the others again",
					p.name, stored, plural(p.computed, "part"), err)
			}
			size += t.Size()
		}
		stored++
	}
	return fmt.Sprintf("%s: stored the facts of %s beside it (facts version %d, %s): the next analysis reads them instead of the raw text",
		p.name, plural(stored, "part"), facts.Version, bytesText(size))
}

// plural is "1 part", "2 parts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// reasons says why parts' facts were computed, most frequent first: "none
// stored (12 parts); --reparse".
func reasons(whys map[string]int) string {
	keys := slices.SortedFunc(maps.Keys(whys), func(a, b string) int {
		if whys[a] != whys[b] {
			return whys[b] - whys[a]
		}
		return strings.Compare(a, b)
	})
	var out []string
	for i, k := range keys {
		if i == 3 {
			out = append(out, fmt.Sprintf("and %d other reasons", len(keys)-3))
			break
		}
		if len(keys) > 1 {
			k += " (" + plural(whys[k], "part") + ")"
		}
		out = append(out, k)
	}
	return strings.Join(out, "; ")
}

// bytesText is a size for a message: "812 bytes", "2.4 MiB".
func bytesText(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
