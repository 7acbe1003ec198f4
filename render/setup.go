package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
)

// measuredDoc is the report's "How we measured": each capture's setup,
// each configuration as a reader would set it up again, its tests as they
// ran, the sizes of what they touched and how it was collected, then how
// many settings differ.
func measuredDoc(d *doc, a *analyze.Analysis) {
	d.heading(2, words("How we measured"))
	for _, s := range a.Setups {
		if len(a.Setups) > 1 {
			d.heading(3, words("%s", s.Host))
		}
		var items []item
		for _, l := range describeSetup(s) {
			items = append(items, item{line: l})
		}
		for _, t := range s.Tests {
			if it, ok := throughputItem(a, s.Host, t.Name); ok {
				items = append(items, it)
				continue
			}
			if t.SQL != "" {
				items = append(items, item{line: testLine(t)})
			}
		}
		if s.Command != "" {
			items = append(items, item{line: words("Collected with ").code(s.Command).text(" (pgstudy %s).", s.Tool)})
		}
		d.list(items)
		relationsDoc(d, s)
	}
	if n := len(a.Settings); n > 0 {
		var rel []string
		for _, s := range a.Settings {
			if s.Relevant {
				rel = append(rel, s.Name)
			}
		}
		l := words("%d settings differ between the configurations", n)
		if len(rel) > 0 {
			l = l.text(", among them %s", strings.Join(rel, ", "))
		}
		d.para(l.text(" (table at the end)."))
	}
}

// describeSetup is a capture's setup as the sentences of "How we
// measured": analyze gathers the facts, the words are written here.
func describeSetup(s analyze.Setup) []line {
	var out []line
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
	out = append(out, words("%s.", machine))
	for _, d := range s.Devices {
		out = append(out, words("%s.", deviceText(d, s.Limits)))
	}
	if len(s.Devices) > 0 {
		out = append(out, words("The disk figures are the device's own counters (/proc/diskstats): they count every process's I/O on the "+
			"whole device (the server's, its background and I/O workers', the kernel's readahead, any other program's), not the timed statement's alone."))
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
	return append(out, words("%s.", proto))
}

// deviceText is a disk with its queue settings and the study's limits.
func deviceText(d analyze.DeviceSetup, limits map[string]analyze.Limit) string {
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
	if l, ok := limits[d.Name]; ok {
		line += fmt.Sprintf("; limits given by the study: %s", limitText(l))
	}
	return line
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
func serverLines(sv analyze.ServerSetup) []line {
	l := words("%s: PostgreSQL %s, data checksums %s; timed with %s", sv.Config, sv.Version, sv.DataChecksums, sv.Client)
	if sv.ClientCommand != "" {
		l = l.text(" (").code(sv.ClientCommand).text(")")
	}
	switch {
	case sv.ClientVersion != "" && sv.ClientSource == "go build info":
		l = l.text("; %s's version: %s (from pgstudy's build information)", sv.ClientOf, sv.ClientVersion)
	case sv.ClientVersion != "":
		l = l.text("; ").code(sv.ClientSource).text(" says ").code(sv.ClientVersion)
	case sv.ClientError != "":
		l = l.text("; %s's version unknown (%s)", sv.ClientOf, sv.ClientError)
	case sv.ClientOf != "":
		l = l.text("; %s's version not recorded (the capture predates it)", sv.ClientOf)
	}
	out := []line{l.text(".")}
	if len(sv.Declared) == 0 {
		out = append(out, words("%s declares no settings: it ran with its server's own.", sv.Config))
	} else {
		l := words("%s declares ", sv.Config)
		for i, d := range sv.Declared {
			how := d.Applied
			if how == "" {
				how = "how it was applied is not recorded"
			}
			if i > 0 {
				l = l.text(", ")
			}
			l = l.code(d.Name+" = "+d.Value).text(" (%s)", how)
		}
		out = append(out, l.text("."))
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
			ss = append(ss, st.Name+" "+v)
		}
		note := "the same in every round"
		if varies {
			note = "a value that changed between rounds is marked"
		}
		out = append(out, words("%s as its server reported it (pg_settings, read in each round; %s): %s.", sv.Config, note, strings.Join(ss, ", ")))
	}
	return out
}

// testLine is a statement test as a reader would run it again: the SETs
// of its session, its before statements with each round's slice, its
// statement and its expected plan (throughputItem writes a throughput
// test's).
func testLine(t analyze.TestSetup) line {
	l := words("Test %s: ", t.Name)
	if len(t.Before) > 0 {
		l = l.text("before each run (before its cold steps) ")
		for i, b := range t.Before {
			if i > 0 {
				l = l.text("; ")
			}
			l = l.code(b)
		}
		if len(t.Slices) > 0 {
			l = l.text(", %s", slicesText(t.Slices))
		}
		l = l.text("; then ")
	}
	l = l.code(t.SQL)
	if len(t.Set) > 0 {
		var sets []string
		for _, k := range sortedNames(t.Set) {
			sets = append(sets, fmt.Sprintf("SET %s = %s", k, t.Set[k]))
		}
		l = l.text(" on a session with ").code(strings.Join(sets, "; "))
	}
	if t.ExpectPlan != "" {
		l = l.text(", expected to use a %s", t.ExpectPlan)
	}
	return l.text(".")
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

// relationsDoc is the table of the sizes of the relations the tests
// touched, per configuration, each size given once for the rounds that
// read it.
func relationsDoc(d *doc, s analyze.Setup) {
	recorded := false
	for _, sv := range s.Servers {
		recorded = recorded || len(sv.Relations) > 0
	}
	if !recorded {
		d.para(words("The sizes of the tables and indexes were not recorded (a capture made before pgstudy recorded them, or an import)."))
		return
	}
	d.para(words("The relations the tests touch, as each configuration's server reported them in each round before its first timed statement " +
		"(size: pg_relation_size; total: pg_total_relation_size, a table's with its indexes and TOAST; rows: reltuples, the planner's estimate):"))
	g := grid{headers: []string{"configuration", "relation", "kind", "size", "total", "rows"}, numeric: make([]bool, 6)}
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
			g.rows = append(g.rows, []string{sv.Config, rel.Schema + "." + rel.Name, kind,
				size(func(r analyze.RelationRound) *float64 { return r.Bytes }, true),
				size(func(r analyze.RelationRound) *float64 { return r.TotalBytes }, true),
				size(func(r analyze.RelationRound) *float64 { return r.Tuples }, false)})
		}
	}
	*d = append(*d, g)
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
