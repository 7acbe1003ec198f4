package analyze

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ThroughputSetup is how a throughput test ran, for "How we measured": the
// study's arguments, connections, duration and warm-up, and what each
// configuration's runs actually ran.
type ThroughputSetup struct {
	Host     string
	Test     string
	Client   string // the study's: pgbench or sysbench
	Args     string // the study's pgbench: or sysbench: arguments
	Clients  int    // connections (pgbench threads too)
	Duration time.Duration
	Warmup   time.Duration // 0: none
	Set      map[string]string
	Configs  []ThroughputCommand
}

// ThroughputCommand is what a configuration's runs of a throughput test
// ran, as the capture recorded it: each distinct client and command line
// (secrets removed by the collector), with the runs that ran it.
type ThroughputCommand struct {
	Config  string
	Client  string
	Command string // the measured run's command line; "" when the capture has none
	Warmup  string // the warm-up's command line; "" when there was none
	Runs    []int64
}

// ThroughputSetups are the throughput tests of every host, in the
// analysis's order of hosts, tests and configurations.
func (a *Analysis) ThroughputSetups() []ThroughputSetup {
	var out []ThroughputSetup
	for _, h := range a.Hosts {
		st := a.study[h]
		if st == nil {
			continue
		}
		for i := range st.Tests {
			t := &st.Tests[i]
			if !t.Throughput() || !slices.Contains(a.Tests, t.Name) {
				continue
			}
			ts := ThroughputSetup{Host: h, Test: t.Name, Client: "pgbench", Args: strings.TrimSpace(t.Pgbench), Clients: t.Clients,
				Duration: t.Duration.Duration, Warmup: t.Warmup.Duration, Set: t.Set}
			if ts.Args == "" {
				ts.Client, ts.Args = "sysbench", strings.TrimSpace(t.Sysbench)
			}
			for _, c := range a.Configs {
				ts.Configs = append(ts.Configs, a.throughputCommands(h, t.Name, c)...)
			}
			out = append(out, ts)
		}
	}
	return out
}

// throughputCommands are the distinct (client, command, warm-up) of a
// configuration's runs of a test, in the order they first ran.
func (a *Analysis) throughputCommands(host, test, config string) []ThroughputCommand {
	var out []ThroughputCommand
	for _, r := range a.Runs {
		if r.Host != host || r.Test != test || r.Config != config {
			continue
		}
		i := slices.IndexFunc(out, func(c ThroughputCommand) bool {
			return c.Client == r.Client && c.Command == r.Command && c.Warmup == r.WarmupCommand
		})
		if i < 0 {
			out = append(out, ThroughputCommand{Config: config, Client: r.Client, Command: r.Command, Warmup: r.WarmupCommand})
			i = len(out) - 1
		}
		out[i].Runs = append(out[i].Runs, r.RunID)
	}
	return out
}

// configClients is each configuration's client as its runs ran it: one
// name ("psql", "pgx") when every run used it, else each client with the
// tests it timed, in the order they ran: "pgbench (select-only,
// simple-update) and sysbench (point-select)".
func configClients(runs []*Run) map[string]string {
	type use struct {
		client string
		tests  []string
	}
	uses := map[string][]use{}
	for _, r := range runs {
		us := uses[r.Config]
		i := slices.IndexFunc(us, func(u use) bool { return u.client == r.Client })
		if i < 0 {
			us, i = append(us, use{client: r.Client}), len(us)
		}
		if !slices.Contains(us[i].tests, r.Test) {
			us[i].tests = append(us[i].tests, r.Test)
		}
		uses[r.Config] = us
	}
	out := map[string]string{}
	for config, us := range uses {
		if len(us) == 1 {
			out[config] = us[0].client
			continue
		}
		var parts []string
		for _, u := range us {
			parts = append(parts, fmt.Sprintf("%s (%s)", u.client, strings.Join(u.tests, ", ")))
		}
		out[config] = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return out
}
