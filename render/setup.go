package render

import (
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
)

// writeMeasured is the report's "How we measured": each capture's setup,
// its tests and how it was collected, then how many settings differ.
func writeMeasured(bw *errWriter, a *analyze.Analysis) {
	bw.printf("## How we measured\n\n")
	for _, s := range a.Setups {
		if len(a.Setups) > 1 {
			bw.printf("### %s\n\n", markdownText(s.Host))
		}
		for _, line := range describeSetup(s) {
			bw.printf("- %s\n", markdownText(line))
		}
		for _, t := range s.Tests {
			if lines := throughputLines(a, s.Host, t.Name); lines != nil {
				bw.printf("%s\n", strings.Join(lines, "\n"))
				continue
			}
			line := fmt.Sprintf("- Test %s: `%s`", markdownText(t.Name), codeText(t.SQL))
			if t.ExpectPlan != "" {
				line += fmt.Sprintf(", expected to use a %s", markdownText(t.ExpectPlan))
			}
			bw.printf("%s.\n", line)
		}
		if s.Command != "" {
			bw.printf("- Collected with `%s` (pgstudy %s).\n", codeText(s.Command), markdownText(s.Tool))
		}
		bw.printf("\n")
	}
	if n := len(a.Settings); n > 0 {
		var rel []string
		for _, s := range a.Settings {
			if s.Relevant {
				rel = append(rel, s.Name)
			}
		}
		bw.printf("%d settings differ between the configurations", n)
		if len(rel) > 0 {
			bw.printf(", among them %s", markdownText(strings.Join(rel, ", ")))
		}
		bw.printf(" (table at the end).\n\n")
	}
}

// describeSetup is a capture's setup as the sentences of "How we
// measured": analyze gathers the facts, the words are written here.
func describeSetup(s analyze.Setup) []string {
	var out []string
	machine := fmt.Sprintf("Host %s", s.Host)
	if s.CPU != "" {
		machine += fmt.Sprintf(": %s CPU(s), %s", s.CPUs, s.CPU)
	}
	if s.MemoryGiB > 0 {
		machine += fmt.Sprintf(", %.1f GiB of memory", s.MemoryGiB)
	}
	if s.OS != "" || s.Kernel != "" {
		machine += fmt.Sprintf("; %s, Linux %s", s.OS, s.Kernel)
	}
	out = append(out, machine+".")
	for _, d := range s.Devices {
		line := fmt.Sprintf("Disk %s", d.Name)
		if d.Model != "" {
			line += " (" + d.Model + ")"
		}
		if d.SizeGiB > 0 {
			line += fmt.Sprintf(", %.0f GiB", d.SizeGiB)
		}
		var q []string
		for _, kv := range [][2]string{{"scheduler", d.Scheduler}, {"rotational", d.Rotational}, {"read_ahead_kb", d.ReadAheadKB},
			{"max_sectors_kb", d.MaxSectorsKB}, {"nr_requests", d.NrRequests}} {
			if kv[1] != "" {
				q = append(q, kv[0]+" "+kv[1])
			}
		}
		if len(q) > 0 {
			line += "; queue: " + strings.Join(q, ", ")
		}
		if l, ok := s.Limits[d.Name]; ok {
			line += fmt.Sprintf("; limits given by the study: %s", limitText(l))
		}
		out = append(out, line+".")
	}
	for _, sv := range s.Servers {
		out = append(out, fmt.Sprintf("%s: PostgreSQL %s, data checksums %s, timed with the %s client.", sv.Config, sv.Version, sv.DataChecksums, sv.Client))
	}
	proto := fmt.Sprintf("%d runs in %d rounds; within each round the configurations took turns (order: %s)", s.Runs, s.Rounds, s.Order)
	if s.Cold != "" {
		proto += fmt.Sprintf("; before every timed statement: %s", s.Cold)
	}
	if s.Sample > 0 {
		proto += fmt.Sprintf("; /proc/diskstats read every %s during each statement", s.Sample)
	}
	out = append(out, proto+".")
	return out
}

func limitText(l analyze.Limit) string {
	var parts []string
	for _, p := range []struct {
		v    float64
		unit string
	}{{l.ReadMiBs, "MiB/s read"}, {l.WriteMiBs, "MiB/s written"}, {l.MiBs, "MiB/s"}, {l.IOPS, "IOPS"}} {
		if p.v > 0 {
			parts = append(parts, fmt.Sprintf("%g %s", p.v, p.unit))
		}
	}
	return strings.Join(parts, ", ")
}
