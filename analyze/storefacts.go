package analyze

import (
	"context"
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
	name   string // the capture, as messages name it
	reader *samples.Reader
	runs   int           // runs whose facts were computed
	kept   int           // parts whose stored facts are a newer pgstudy's, left as they are
	parts  []pendingPart // the parts to store
}

// pendingPart is one runs part's facts: its tables, in the order they are
// stored, and how many runs they are of.
type pendingPart struct {
	tables []samples.DerivedPart
	runs   int
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
		add(samples.EncodeDerived(r, part, s.Figures)),
		add(samples.EncodeDerived(r, part, s.Intervals)),
		add(samples.EncodeDerived(r, part, s.IO)),
		add(samples.EncodeDerived(r, part, s.Views)),
		add(samples.EncodeDerived(r, part, s.Problems)),
		add(samples.EncodeDerived(r, part, s.Runs)))
	return out, err
}

// StoreFacts stores beside each capture the facts the analysis computed
// from its raw text, for the next analysis to read instead, and says
// whether all of them are stored now. A command calls it once what its
// user asked for is written, so that the facts never take the space that
// needs. Storing is a saving, not a need: a capture that cannot be written
// (read only, in use, a fleet, a full disk) is left as it was, and
// Options.Note is told why. Once ctx is done it stores no further part:
// each part is stored whole or not at all, so that a command stopped
// meanwhile leaves no part half written.
func (a *Analysis) StoreFacts(ctx context.Context) bool {
	all := true
	for _, p := range a.pending {
		msg, ok := p.store(ctx)
		if msg != "" && a.note != nil {
			a.note(msg)
		}
		all = all && ok
	}
	a.pending = nil
	return all
}

// FactsOf computes the facts of the capture in reads where they are not
// stored, or not current, as an analysis of it would, for StoreFacts to
// store; it tells note what it does. A capture is published to a fleet
// with its facts: an analysis never writes a fleet's partitions.
func FactsOf(in Input, note func(string)) (*Analysis, error) {
	c := &capture{info: CaptureInfo{Name: in.Name}}
	_, partRuns, err := c.readRuns(in.Reader)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	if err := c.readFacts(in.Reader, partRuns, false, note); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name, err)
	}
	a := &Analysis{note: note}
	if c.pending != nil {
		a.pending = append(a.pending, c.pending)
	}
	return a, nil
}

// store stores the pending facts and says what it did.
func (p *pendingFacts) store(ctx context.Context) (string, bool) {
	computed := plural(p.runs, "run")
	if len(p.parts) == 0 {
		return fmt.Sprintf("%s: computed the facts of %s from the raw text for this analysis; stored none (facts of a newer pgstudy are kept as they are)",
			p.name, computed), true
	}
	notStored := func(err error) (string, bool) {
		return fmt.Sprintf("%s: computed the facts of %s from the raw text for this analysis, and stored none of them (%v): the next analysis computes them again",
			p.name, computed, err), false
	}
	d, err := p.reader.OpenDerived()
	if errors.Is(err, samples.ErrFleet) {
		return notStored(fmt.Errorf("%w: store them by analysing the capture it was published from, then publish it again with pgstudy compact --fleet", err))
	}
	if err != nil {
		return notStored(err)
	}
	defer d.Close()
	need := 0
	for _, part := range p.parts {
		for _, t := range part.tables {
			need += t.Size()
		}
	}
	if err := d.Room(int64(need)); err != nil {
		return notStored(err)
	}
	stored, runs, size, gone := 0, 0, 0, 0
	var refused []string
	for _, part := range p.parts {
		if !d.HasRunsPart(part.tables[0].Part) { // compacted since it was read
			gone++
			continue
		}
		if ctx.Err() != nil {
			return fmt.Sprintf("%s: interrupted while storing the facts computed from the raw text, after those of %s (each part stored is whole): the next analysis computes the others again",
				p.name, plural(runs, "run")), false
		}
		n, err := storePart(d, part.tables)
		size += n
		if errors.Is(err, samples.ErrNotRegular) {
			refused = append(refused, strings.TrimPrefix(err.Error(), "samples: "))
			continue
		}
		if err != nil {
			return fmt.Sprintf("%s: stored the facts of %d of the %s computed from the raw text, and no more (%v): the next analysis computes the others again",
				p.name, runs, computed, err), false
		}
		stored++
		runs += part.runs
	}
	msg := fmt.Sprintf("%s: stored the facts of %s beside it (%s, facts version %d, %s): the next analysis reads them instead of the raw text",
		p.name, plural(runs, "run"), plural(stored, "part"), facts.Version, bytesText(size))
	if stored == 0 {
		msg = fmt.Sprintf("%s: computed the facts of %s from the raw text for this analysis, and stored none of them", p.name, computed)
	}
	if gone > 0 {
		msg += fmt.Sprintf("; those of %s were not stored: the capture was compacted since it was read, and the next analysis computes the facts of its new parts", plural(gone, "part"))
	}
	if len(refused) > 0 {
		msg += fmt.Sprintf("; those of %s were not stored, the next analysis computes them again: %s",
			plural(len(refused), "part"), strings.Join(refused[:min(len(refused), 3)], "; "))
	}
	if p.kept > 0 {
		msg += fmt.Sprintf("; those of %s, stored by a newer pgstudy, are kept as they are", plural(p.kept, "part"))
	}
	return msg, len(refused) == 0 && gone == 0
}

// storePart stores one runs part's fact tables in order (run_facts last),
// and gives the bytes stored. It stops at the first table it cannot
// store: without its run_facts, what it stored does not count.
func storePart(d *samples.Derived, tables []samples.DerivedPart) (int, error) {
	size := 0
	for _, t := range tables {
		if err := d.Write(t); err != nil {
			return size, err
		}
		size += t.Size()
	}
	return size, nil
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
