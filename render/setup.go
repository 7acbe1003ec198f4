package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
)

// writeMeasured is the report's "How we measured": each capture's setup,
// each configuration as a reader would set it up again, its tests as they
// ran, the sizes of what they touched and how it was collected, then how
// many settings differ.
func writeMeasured(bw *errWriter, a *analyze.Analysis) {
	bw.printf("## How we measured\n\n")
	for _, s := range a.Setups {
		if len(a.Setups) > 1 {
			bw.printf("### %s\n\n", markdownText(s.Host))
		}
		for _, line := range describeSetup(s) {
			bw.printf("- %s\n", line)
		}
		for _, t := range s.Tests {
			if lines := throughputLines(a, s.Host, t.Name); lines != nil {
				bw.printf("%s\n", strings.Join(lines, "\n"))
				continue
			}
			if t.SQL != "" {
				bw.printf("- %s\n", testLine(t))
			}
		}
		if s.Command != "" {
			bw.printf("- Collected with `%s` (pgstudy %s).\n", codeText(s.Command), markdownText(s.Tool))
		}
		bw.printf("\n")
		writeRelations(bw, s)
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
		cpus := "unknown"
		if s.CPUs != nil {
			cpus = strconv.FormatInt(*s.CPUs, 10)
		}
		machine += fmt.Sprintf(": %s CPU(s), %s", cpus, s.CPU)
	}
	if s.Memory != nil {
		machine += fmt.Sprintf(", %.1f GiB of memory", float64(*s.Memory)/(1<<30))
	}
	if s.OS != "" || s.Kernel != "" {
		machine += fmt.Sprintf("; %s, Linux %s", s.OS, s.Kernel)
	}
	out = append(out, markdownText(machine+"."))
	for _, d := range s.Devices {
		line := fmt.Sprintf("Disk %s", d.Name)
		if d.Model != "" {
			line += " (" + d.Model + ")"
		}
		if d.Size != nil {
			line += fmt.Sprintf(", %.0f GiB", float64(*d.Size)/(1<<30))
		}
		q := []string{}
		if d.Scheduler != "" {
			q = append(q, "scheduler "+d.Scheduler)
		}
		if d.Rotational != nil {
			q = append(q, "rotational "+map[bool]string{true: "1", false: "0"}[*d.Rotational])
		}
		for _, kv := range []struct {
			name string
			v    *int64
		}{{"read_ahead_kb", d.ReadAheadKB}, {"max_sectors_kb", d.MaxSectorsKB}, {"nr_requests", d.NrRequests}} {
			if kv.v != nil {
				q = append(q, kv.name+" "+strconv.FormatInt(*kv.v, 10))
			}
		}
		if len(q) > 0 {
			line += "; queue: " + strings.Join(q, ", ")
		}
		if l, ok := s.Limits[d.Name]; ok {
			line += fmt.Sprintf("; limits given by the study: %s", limitText(l))
		}
		out = append(out, markdownText(line+"."))
	}
	if len(s.Devices) > 0 {
		out = append(out, "The disk figures are the device's own counters (/proc/diskstats): they count every process's I/O on the "+
			"whole device (the server's, its background and I/O workers', the kernel's readahead, any other program's), not the timed statement's alone.")
	}
	for _, sv := range s.Servers {
		out = append(out, serverLines(sv)...)
	}
	proto := fmt.Sprintf("%d runs in %d rounds; within each round the configurations took turns (order: %s)", s.Runs, s.Rounds, s.Order)
	if s.Cold != "" {
		proto += fmt.Sprintf("; before every timed statement: %s", s.Cold)
	}
	if s.Sample > 0 {
		proto += fmt.Sprintf("; /proc/diskstats read every %s during each statement", s.Sample)
	}
	out = append(out, markdownText(proto+"."))
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

// serverLines are a configuration's lines: its server and client, its
// declared settings and how each was applied, and the settings that
// matter as its server reported them.
func serverLines(sv analyze.ServerSetup) []string {
	m := markdownText
	line := fmt.Sprintf("%s: PostgreSQL %s, data checksums %s; timed with %s", m(sv.Config), m(sv.Version), m(sv.DataChecksums), m(sv.Client))
	if sv.ClientCommand != "" {
		line += fmt.Sprintf(" (`%s`)", codeText(sv.ClientCommand))
	}
	of := m(sv.ClientOf)
	switch {
	case sv.ClientVersion != "" && sv.ClientSource == "go build info":
		line += fmt.Sprintf("; %s's version: %s (from pgstudy's build information)", of, m(sv.ClientVersion))
	case sv.ClientVersion != "":
		line += fmt.Sprintf("; `%s` says `%s`", codeText(sv.ClientSource), codeText(sv.ClientVersion))
	case sv.ClientError != "":
		line += fmt.Sprintf("; %s's version unknown (%s)", of, m(sv.ClientError))
	case sv.ClientOf != "":
		line += fmt.Sprintf("; %s's version not recorded (the capture predates it)", of)
	}
	out := []string{line + "."}
	if len(sv.Declared) == 0 {
		out = append(out, fmt.Sprintf("%s declares no settings: it ran with its server's own.", m(sv.Config)))
	} else {
		var ds []string
		for _, d := range sv.Declared {
			how := d.Applied
			if how == "" {
				how = "how it was applied is not recorded"
			}
			ds = append(ds, fmt.Sprintf("`%s = %s` (%s)", codeText(d.Name), codeText(d.Value), m(how)))
		}
		out = append(out, fmt.Sprintf("%s declares %s.", m(sv.Config), strings.Join(ds, ", ")))
	}
	if len(sv.Settings) > 0 {
		var ss []string
		varies := false
		for _, st := range sv.Settings {
			v := strings.Join(st.Values, " / ")
			if len(st.Values) > 1 {
				v += " (changed between rounds)"
				varies = true
			}
			ss = append(ss, m(st.Name)+" "+m(v))
		}
		note := "the same in every round"
		if varies {
			note = "a value that changed between rounds is marked"
		}
		out = append(out, fmt.Sprintf("%s as its server reported it (pg_settings, read in each round; %s): %s.", m(sv.Config), note, strings.Join(ss, ", ")))
	}
	return out
}

// testLine is a statement test as a reader would run it again: the SETs
// of its session, its before statements with each round's slice, its
// statement and its expected plan (throughputLines writes a throughput
// test's).
func testLine(t analyze.TestSetup) string {
	line := fmt.Sprintf("Test %s: ", markdownText(t.Name))
	if len(t.Before) > 0 {
		var bs []string
		for _, b := range t.Before {
			bs = append(bs, "`"+codeText(b)+"`")
		}
		line += "before each run (before its cold steps) " + strings.Join(bs, "; ")
		if len(t.Slices) > 0 {
			line += ", " + slicesText(t.Slices)
		}
		line += "; then "
	}
	line += fmt.Sprintf("`%s`", codeText(t.SQL))
	if len(t.Set) > 0 {
		var sets []string
		for _, k := range sortedNames(t.Set) {
			sets = append(sets, fmt.Sprintf("SET %s = %s", k, t.Set[k]))
		}
		line += fmt.Sprintf(" on a session with `%s`", codeText(strings.Join(sets, "; ")))
	}
	if t.ExpectPlan != "" {
		line += fmt.Sprintf(", expected to use a %s", markdownText(t.ExpectPlan))
	}
	return line + "."
}

func sortedNames(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// slicesText is the rows each round's slice covered: every round up to
// eight, else the first three and the last two.
func slicesText(sl []analyze.SliceRound) string {
	var parts []string
	for i, r := range sl {
		if len(sl) > 8 && i == 3 {
			parts = append(parts, "...")
		}
		if len(sl) <= 8 || i < 3 || i >= len(sl)-2 {
			parts = append(parts, fmt.Sprintf("round %d rows %d-%d", r.Round, r.Lo, r.Hi))
		}
	}
	return "the slice covering " + strings.Join(parts, ", ")
}

// writeRelations is the table of the sizes of the relations the tests
// touched, per configuration, each size given once for the rounds that
// read it.
func writeRelations(bw *errWriter, s analyze.Setup) {
	recorded := false
	for _, sv := range s.Servers {
		recorded = recorded || len(sv.Relations) > 0
	}
	if !recorded {
		bw.printf("The sizes of the tables and indexes were not recorded (a capture made before pgstudy recorded them, or an import).\n\n")
		return
	}
	bw.printf("The relations the tests touch, as each configuration's server reported them in each round before its first timed statement " +
		"(size: pg\\_relation\\_size; total: pg\\_total\\_relation\\_size, a table's with its indexes and TOAST; rows: reltuples, the planner's estimate):\n\n")
	bw.printf("| configuration | relation | kind | size | total | rows |\n|---|---|---|---|---|---|\n")
	kinds := map[string]string{"r": "table", "i": "index", "m": "materialized view", "t": "TOAST"}
	for _, sv := range s.Servers {
		for _, rel := range sv.Relations {
			kind := kinds[rel.Kind]
			if rel.Table != "" {
				kind += " of " + rel.Table
			}
			size := func(get func(analyze.RelationRound) *float64, bytes bool) string {
				return byRound(rel.Rounds, func(r analyze.RelationRound) string {
					v := get(r)
					switch {
					case v == nil:
						return "unknown"
					case bytes:
						return bytesText(*v)
					}
					return sig(*v, 3)
				})
			}
			bw.printf("| %s | %s | %s | %s | %s | %s |\n", markdownText(sv.Config), markdownText(rel.Schema+"."+rel.Name), markdownText(kind),
				size(func(r analyze.RelationRound) *float64 { return r.Bytes }, true),
				size(func(r analyze.RelationRound) *float64 { return r.TotalBytes }, true),
				size(func(r analyze.RelationRound) *float64 { return r.Tuples }, false))
		}
	}
	bw.printf("\n")
}

// byRound writes a value per round once for each run of rounds with the
// same value: "24 MiB" when every round read it, else "24 MiB (rounds
// 1-2), 25.2 MiB (round 3)".
func byRound(rounds []analyze.RelationRound, text func(analyze.RelationRound) string) string {
	type span struct {
		v      string
		lo, hi int
	}
	var spans []span
	for _, r := range rounds {
		v := text(r)
		if n := len(spans); n > 0 && spans[n-1].v == v {
			spans[n-1].hi = r.Round
			continue
		}
		spans = append(spans, span{v, r.Round, r.Round})
	}
	if len(spans) == 1 {
		return spans[0].v
	}
	var parts []string
	for _, sp := range spans {
		if sp.lo == sp.hi {
			parts = append(parts, fmt.Sprintf("%s (round %d)", sp.v, sp.lo))
		} else {
			parts = append(parts, fmt.Sprintf("%s (rounds %d-%d)", sp.v, sp.lo, sp.hi))
		}
	}
	return strings.Join(parts, ", ")
}

// bytesText is a size in bytes with a binary unit, to three significant
// digits: 8 KiB, 24.1 MiB, 2.56 GiB.
func bytesText(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return sig(b, 3) + " " + units[i]
}
