package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/table"
)

// throughputItem is "How we measured" for a throughput test of host:
// its client and arguments, connections, duration and warm-up, then under
// it the command lines each configuration's runs ran, as recorded
// (configurations that ran the same are listed together). False when test
// is not a throughput test.
func throughputItem(a *analyze.Analysis, host, test string) (item, bool) {
	i := slices.IndexFunc(a.ThroughputSetups(), func(t analyze.ThroughputSetup) bool { return t.Host == host && t.Test == test })
	if i < 0 {
		return item{}, false
	}
	t := a.ThroughputSetups()[i]
	head := words("Test %s: %s ", t.Test, t.Client).code(t.Args).text(", %d connection(s), measured for %s", t.Clients, durationText(t.Duration))
	if t.Warmup > 0 {
		head = head.text(" after a warm-up of %s (recorded, left out of the results)", durationText(t.Warmup))
	} else {
		head = head.text(", with no warm-up")
	}
	if len(t.Set) > 0 {
		var set []string
		for _, k := range slices.Sorted(maps.Keys(t.Set)) {
			set = append(set, k+"="+t.Set[k])
		}
		head = head.text("; the test's settings, passed in PGOPTIONS: ").code(strings.Join(set, " "))
	}
	it := item{line: head.text(".")}
	for _, g := range groupCommands(t.Configs) {
		l := words("%s (%s, %s): ", strings.Join(g.configs, ", "), g.cmd.Client, listRunsText(g.runs))
		if g.cmd.Command == "" {
			l = l.text("the capture has no command line for these runs")
		} else {
			l = l.code(g.cmd.Command)
		}
		if g.cmd.Warmup != "" {
			l = l.text("; warm-up ").code(g.cmd.Warmup)
		}
		it.sub = append(it.sub, l.text("."))
	}
	return it, true
}

// commandGroup is the configurations that ran one client and command.
type commandGroup struct {
	cmd     analyze.ThroughputCommand
	configs []string
	runs    []int64
}

// groupCommands puts together the configurations whose runs ran the same
// client, command and warm-up, in the order they first appear.
func groupCommands(cmds []analyze.ThroughputCommand) []commandGroup {
	var out []commandGroup
	for _, c := range cmds {
		i := slices.IndexFunc(out, func(g commandGroup) bool {
			return g.cmd.Client == c.Client && g.cmd.Command == c.Command && g.cmd.Warmup == c.Warmup
		})
		if i < 0 {
			out = append(out, commandGroup{cmd: c})
			i = len(out) - 1
		}
		if !slices.Contains(out[i].configs, c.Config) {
			out[i].configs = append(out[i].configs, c.Config)
		}
		out[i].runs = append(out[i].runs, c.Runs...)
	}
	return out
}

// listRunsText names runs as a table cell does: "run 3", "runs 1-4, 9".
func listRunsText(ids []int64) string {
	if len(ids) == 1 {
		return fmt.Sprintf("run %d", ids[0])
	}
	return "runs " + table.RangeText(slices.Sorted(slices.Values(ids)))
}

// durationText is a study's duration as a reader writes it: "5 min",
// "90 s", "1.5 s".
func durationText(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", d/time.Minute)
	}
	return fmt.Sprintf("%g s", d.Seconds())
}
