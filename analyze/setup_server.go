package analyze

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// applied is what a capture's steps and statements say of how each
// configuration's settings were brought into effect and which client
// timed it, by configuration.
type applied struct {
	alter   map[string]map[string]bool // setting names written with ALTER SYSTEM SET
	set     map[string]map[string]bool // setting names SET on a session
	restart map[string]bool            // the server was restarted for its settings
	client  map[string]samples.Step    // the client's version step (phase "client")
}

// newApplied is an applied with its maps made, so that the steps and
// the statements, read side by side, each fill their own.
func newApplied() applied {
	return applied{alter: map[string]map[string]bool{}, set: map[string]map[string]bool{}, restart: map[string]bool{},
		client: map[string]samples.Step{}}
}

// step notes a step of phase "settings" or "client" of a run.
func (a *applied) step(st *samples.Step, run *Run) {
	switch {
	case st.Phase == "settings" && st.Name == "start" && st.Error == "":
		a.restart[run.Config] = true
	case st.Phase == "client" && st.Name == "version":
		if _, seen := a.client[run.Config]; !seen {
			a.client[run.Config] = *st
		}
	}
}

// setNames names the setting of each statement of phase "settings" or
// "set": the same few statements run before every run, and each is read
// once.
type setNames map[[2]string]string

func (names setNames) of(sql, prefix string) string {
	k := [2]string{sql, prefix}
	name, ok := names[k]
	if !ok {
		name = setName(sql, prefix)
		names[k] = name
	}
	return name
}

// statement notes a statement of phase "settings" (ALTER SYSTEM SET) or
// "set" (SET) of a run.
func (a *applied) statement(st *samples.Statement, run *Run, names setNames) {
	if st.Error != "" || st.Phase != "settings" && st.Phase != "set" {
		return
	}
	m, name := a.set, names.of(st.SQL, "SET ")
	if st.Phase == "settings" {
		m, name = a.alter, names.of(st.SQL, "ALTER SYSTEM SET ")
	}
	if name != "" {
		if m[run.Config] == nil {
			m[run.Config] = map[string]bool{}
		}
		m[run.Config][name] = true
	}
}

// setSQL is a SET or ALTER SYSTEM SET as the collector writes it: a name,
// quoted or not, then = or TO.
var setSQL = regexp.MustCompile(`(?i)^\s*("(?:[^"]|"")+"|[a-z_][a-z0-9_$.]*)\s*(?:=|\s+to\s)`)

// setName is the setting a statement that starts with prefix sets, in
// lower case and unquoted; "" when it is not one.
func setName(sql, prefix string) string {
	if len(sql) < len(prefix) || !strings.EqualFold(sql[:len(prefix)], prefix) {
		return ""
	}
	m := setSQL.FindStringSubmatch(sql[len(prefix):])
	if m == nil {
		return ""
	}
	name := m[1]
	if strings.HasPrefix(name, `"`) {
		return strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	}
	return strings.ToLower(name)
}

// measuredSettings are the settings "How we measured" gives for every
// configuration as its server reported them, where the server has them:
// those a reader needs to run the study again and get the same numbers.
var measuredSettings = []string{
	"autovacuum", "data_checksums", "full_page_writes", "shared_buffers", "work_mem", "maintenance_work_mem",
	"io_method", "io_workers", "io_combine_limit", "io_max_combine_limit", "effective_io_concurrency",
	"maintenance_io_concurrency", "track_io_timing", "max_parallel_workers_per_gather", "jit", "wal_compression",
	"checkpoint_timeout", "max_wal_size", "huge_pages",
}

// serverSetup adds to sv what a reader needs to set a configuration up
// again: its declared settings and how each was applied, the settings that
// matter as its server reported them, its client, and its relations' sizes.
func (c *capture) serverSetup(sv *ServerSetup, runs []*Run) {
	cfg := c.study.Config(sv.Config)
	if cfg != nil {
		for _, name := range sortedKeys(cfg.Settings) {
			d := DeclaredSetting{Name: name, Value: cfg.Settings[name]}
			switch {
			case c.applied.alter[sv.Config][name] && c.applied.restart[sv.Config]:
				d.Applied = "ALTER SYSTEM, then a restart"
			case c.applied.alter[sv.Config][name]:
				d.Applied = "ALTER SYSTEM, then a reload"
			case c.applied.set[sv.Config][name]:
				d.Applied = "SET on each session"
			}
			sv.Declared = append(sv.Declared, d)
		}
		sv.ClientOf = cfg.Client
		if cfg.Client == "psql" {
			sv.ClientCommand = strings.TrimSpace(cfg.Psql)
		}
	}
	if st, ok := c.applied.client[sv.Config]; ok {
		sv.ClientVersion, sv.ClientSource = firstLineOf(st.Output), st.Detail
		if sv.ClientVersion == "" {
			sv.ClientError = cmp.Or(firstLineOf(st.Error), "it printed nothing")
		}
	}
	for _, name := range measuredSettings {
		v := c.settings[sv.Config][name]
		if v == nil {
			continue
		}
		sv.Settings = append(sv.Settings, ReportedSetting{Name: name, Values: sortedKeys(v.values), Source: v.source})
	}
	sv.Relations = relations(runs, sv.Config, c.study)
}

// maxRelations bounds how many relations a configuration lists.
const maxRelations = 40

// relations are the sizes of the relations config's tests touch, by round:
// the tables a test's statements name, with their indexes and TOAST
// tables; every relation recorded when no test names one.
func relations(runs []*Run, config string, s *study.Study) []RelationSetup {
	byName := map[string]*RelationSetup{}
	for _, run := range runs {
		if run.Config != config {
			continue
		}
		for _, rs := range run.sizes {
			key := rs.Schema + "." + rs.Name
			rel := byName[key]
			if rel == nil {
				rel = &RelationSetup{Schema: rs.Schema, Name: rs.Name, Kind: rs.Kind, Table: rs.Table}
				byName[key] = rel
			}
			if slices.ContainsFunc(rel.Rounds, func(r RelationRound) bool { return r.Round == run.Round }) {
				continue
			}
			rel.Rounds = append(rel.Rounds, RelationRound{Round: run.Round, Bytes: known(rs.Bytes.V, rs.Bytes.Valid),
				TotalBytes: known(rs.TotalBytes.V, rs.TotalBytes.Valid), Tuples: known(rs.Tuples.V, rs.Tuples.Valid && rs.Tuples.V >= 0)})
		}
	}
	named := testWords(s)
	touched := func(r *RelationSetup) bool { return named[strings.ToLower(cmp.Or(r.Table, r.Name))] }
	if !slices.ContainsFunc(mapValues(byName), touched) {
		touched = func(*RelationSetup) bool { return true }
	}
	var out []RelationSetup
	for _, r := range mapValues(byName) {
		if touched(r) {
			slices.SortFunc(r.Rounds, func(x, y RelationRound) int { return cmp.Compare(x.Round, y.Round) })
			out = append(out, *r)
		}
	}
	kindOrder := map[string]int{"r": 0, "m": 0, "i": 1, "t": 2}
	slices.SortFunc(out, func(x, y RelationSetup) int {
		return cmp.Or(cmp.Compare(cmp.Or(x.Table, x.Name), cmp.Or(y.Table, y.Name)), cmp.Compare(kindOrder[x.Kind], kindOrder[y.Kind]),
			cmp.Compare(x.Schema, y.Schema), cmp.Compare(x.Name, y.Name))
	})
	if len(out) > maxRelations {
		out = out[:maxRelations]
	}
	return out
}

func known(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

var wordRE = regexp.MustCompile(`[a-z_][a-z0-9_$]*`)

// testWords are the words of every test's statements, before statements
// and client arguments, in lower case: the names of what they touch.
func testWords(s *study.Study) map[string]bool {
	words := map[string]bool{}
	for _, t := range s.Tests {
		texts := []string{t.SQL, t.Pgbench, t.Sysbench}
		for _, b := range t.Before {
			texts = append(texts, b.Value)
		}
		for _, text := range texts {
			for _, w := range wordRE.FindAllString(strings.ToLower(text), -1) {
				words[w] = true
			}
		}
	}
	return words
}

// testSetup is a test as "How we measured" gives it: its statement, the
// settings its sessions SET, and its before statements with the rows each
// round's slice covered.
func testSetup(t *study.Test, rounds int) TestSetup {
	ts := TestSetup{Name: t.Name, SQL: strings.TrimSpace(t.SQL), ExpectPlan: t.ExpectPlan, Set: t.Set}
	for _, b := range t.Before {
		ts.Before = append(ts.Before, strings.TrimSpace(b.Value))
	}
	if t.Slice != nil && t.Slice.Size > 0 {
		for r := 1; r <= rounds; r++ {
			lo, hi := t.Slice.Rows(r)
			ts.Slices = append(ts.Slices, SliceRound{Round: r, Lo: lo, Hi: hi})
		}
	}
	return ts
}
