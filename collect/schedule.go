package collect

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pgstudy/pgstudy/samples/study"
)

// Item is one run of the schedule.
type Item struct {
	RunID    int64 // 1-based
	Round    int   // 1-based
	Position int   // 1-based place of the configuration in its turn
	rounds   int
	Test     *study.Test
	Config   *study.Config
}

// Schedule lays the study's runs out in order: rounds, then tests, then the
// configurations taking turns. With order rotate, the configuration that
// goes first moves by one each round, so that whatever drifts during a
// study (a burst allowance, a warming disk) falls on every configuration
// alike; with random, each turn is shuffled from the seed, the same every
// time.
func Schedule(s *study.Study) []Item {
	var items []Item
	rng := rand.New(rand.NewPCG(uint64(s.Protocol.Seed), 0x7067737475647921))
	n := len(s.Configs)
	for r := 1; r <= s.Protocol.Rounds; r++ {
		for ti := range s.Tests {
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			switch s.Protocol.Order {
			case "rotate":
				for i := range order {
					order[i] = (i + r - 1) % n
				}
			case "random":
				rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			for pos, ci := range order {
				items = append(items, Item{
					RunID:    int64(len(items) + 1),
					Round:    r,
					Position: pos + 1,
					rounds:   s.Protocol.Rounds,
					Test:     &s.Tests[ti],
					Config:   &s.Configs[ci],
				})
			}
		}
	}
	return items
}

// PrintSchedule writes the schedule as a table, for --dry-run: each run
// with the rows its test's slice covers in its round, then each
// configuration with the client that times it and its declared settings,
// then the totals.
func PrintSchedule(w io.Writer, s *study.Study, items []Item) error {
	red := NewRedactor(s)
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\tround\tposition\ttest\tconfiguration\tslice\n")
	for _, it := range items {
		slice := ""
		if it.Test.Slice != nil {
			sl := sliceFor(it.Test, it.Round)
			slice = fmt.Sprintf("rows %d-%d", sl.Lo, sl.Hi)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\n", it.RunID, it.Round, it.Position, it.Test.Name, it.Config.Name, slice)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(tw, "configuration\tclient\tsettings\n")
	for _, c := range s.Configs {
		client := c.Client
		if c.Client == "psql" {
			client += ": " + red.Text(strings.TrimSpace(c.Psql))
		}
		var set []string
		for _, k := range sortedKeys(c.Settings) {
			set = append(set, k+"="+c.Settings[k])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, client, red.Text(strings.Join(set, ", ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "%d runs: %d rounds x %d tests x %d configurations, order %s; cold steps before each: %s\n",
		len(items), s.Protocol.Rounds, len(s.Tests), len(s.Configs), s.Protocol.Order, red.Text(coldSummary(s.Protocol.Cold)))
	fmt.Fprintf(&b, "%s\n", durationSummary(items))
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \n") + "\n"
	}
	for _, d := range designWarnings(s, items) {
		lines = append(lines[:len(lines)-1], "warning: "+red.Text(d)+"\n", "")
	}
	if _, err := io.WriteString(w, strings.Join(lines[:len(lines)-1], "")); err != nil {
		return err
	}
	return printCalibration(w, s)
}

// durationSummary says how long the schedule takes, as far as the study
// says: a throughput run takes its warm-up and its duration; a timed
// statement's time, the cold steps and restarts are known only when they
// run.
func durationSummary(items []Item) string {
	var known time.Duration
	var throughput, timed int
	for _, it := range items {
		if it.Test.Throughput() {
			throughput++
			known += it.Test.Warmup.Duration + it.Test.Duration.Duration
		} else {
			timed++
		}
	}
	switch {
	case throughput == 0:
		return fmt.Sprintf("time: unknown before it runs (%d timed statements, and the cold steps and restarts between them)", timed)
	case timed == 0:
		return fmt.Sprintf("time: at least %s (%d throughput runs, each its warm-up and its duration), plus the steps and restarts between runs", known, throughput)
	}
	return fmt.Sprintf("time: at least %s (%d throughput runs, each its warm-up and its duration), plus %d timed statements and the steps and restarts between runs, known only when they run",
		known, throughput, timed)
}

func coldSummary(steps []study.Step) string {
	if len(steps) == 0 {
		return "none (the cache is not made cold)"
	}
	out := ""
	for i, st := range steps {
		if i > 0 {
			out += ", "
		}
		out += st.String()
	}
	return out
}

// designWarnings are the study's design warnings, and what only its
// schedule shows: a random order whose seed put every configuration in
// the same position of every round, a fixed order in all but name.
func designWarnings(s *study.Study, items []Item) []string {
	out := s.DesignWarnings()
	if s.Protocol.Order != "random" || len(s.Configs) < 2 || s.Protocol.Rounds < 2 {
		return out
	}
	pos := map[string]int{} // test and configuration -> its position, or -1 once it moved
	for _, it := range items {
		k := it.Test.Name + "\x00" + it.Config.Name
		if p, ok := pos[k]; !ok {
			pos[k] = it.Position
		} else if p != it.Position {
			pos[k] = -1
		}
	}
	for _, p := range pos {
		if p < 0 {
			return out
		}
	}
	return append(out, fmt.Sprintf("protocol: order random with seed %d puts every configuration in the same position of every round: "+
		"a fixed order in all but name; choose another seed, or use order: rotate", s.Protocol.Seed))
}
