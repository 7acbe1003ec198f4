package collect

import (
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"

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

// PrintSchedule writes the schedule as a table, for --dry-run.
func PrintSchedule(w io.Writer, s *study.Study, items []Item) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\tround\tposition\ttest\tconfiguration\n")
	for _, it := range items {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\n", it.RunID, it.Round, it.Position, it.Test.Name, it.Config.Name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d runs: %d rounds x %d tests x %d configurations, order %s; cold steps before each: %s\n",
		len(items), s.Protocol.Rounds, len(s.Tests), len(s.Configs), s.Protocol.Order, (*Redactor)(nil).Structural(coldSummary(s.Protocol.Cold)))
	if err != nil {
		return err
	}
	return printCalibration(w, s)
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
