package study

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// checkSameAs: a control names another configuration, not itself, and
// declares the same settings (a matrix entry's combinations differ from
// each other, so none of them is a copy).
func (s *Study) checkSameAs(d *decoder) {
	byName := map[string]*Config{}
	var names []string
	for i := range s.Configs {
		byName[s.Configs[i].Name] = &s.Configs[i]
		names = append(names, s.Configs[i].Name)
	}
	for _, c := range s.Configs {
		if c.SameAs == "" {
			continue
		}
		other, ok := byName[c.SameAs]
		switch {
		case c.SameAs == c.Name:
			d.errorAt(c.SameAsPos, "configuration %s: same_as names the configuration itself; expected another configuration it is a copy of", c.Name)
		case !ok:
			d.errorAt(c.SameAsPos, "configuration %s: same_as: no configuration is named %q (the study has %s)", c.Name, c.SameAs, strings.Join(names, ", "))
		case !maps.Equal(c.Settings, other.Settings):
			d.errorAt(c.SameAsPos, "configuration %s: same_as %s, but the two declare different settings (%s against %s); a control is a copy, with the same settings",
				c.Name, c.SameAs, settingsText(c.Settings), settingsText(other.Settings))
		}
	}
}

func settingsText(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ", ")
}

// writingSQL matches a statement that changes the data or its storage,
// by its first keyword. A data-modifying WITH or a function that writes
// is not seen here: the analysis adds what each run's WAL shows.
var writingSQL = regexp.MustCompile(`(?i)^\s*(insert|update|delete|merge|vacuum|analy[sz]e|copy\s+\S+\s+from|create|drop|alter|truncate|cluster|reindex|refresh|checkpoint)\b`)

// readOnlyPgbench is pgbench's one built-in script that changes no data:
// select-only (-S, -b select-only); customScript a script of the user's.
var readOnlyPgbench = regexp.MustCompile(`(^|\s)(-S|--select-only|-b\s*select-only|--builtin[= ]select-only)(\s|$)`)

// readOnlySysbench are sysbench's tests that only read.
var customScript = regexp.MustCompile(`(^|\s)(-f|--file)(\s|=|$)`)

var readOnlySysbench = regexp.MustCompile(`^(oltp_read_only|oltp_point_select|select_random_points|select_random_ranges)\b`)

// Writes says what of a test changes the data its configuration's later
// runs read ("" when nothing the study file shows does): its statement, a
// before statement, or a throughput client's built-in writing script. A
// custom pgbench script (-f) is judged by what it is named, not read:
// the analysis adds what a run's WAL shows.
func (t *Test) Writes() string {
	first := func(sql string) string {
		return strings.ToLower(strings.Fields(strings.TrimSpace(sql) + " ")[0])
	}
	switch {
	case strings.TrimSpace(t.Pgbench) != "":
		if !readOnlyPgbench.MatchString(t.Pgbench) && !customScript.MatchString(t.Pgbench) {
			return "pgbench " + strings.TrimSpace(t.Pgbench) + " (a writing built-in script)"
		}
	case strings.TrimSpace(t.Sysbench) != "":
		if !readOnlySysbench.MatchString(strings.TrimSpace(t.Sysbench)) {
			return "sysbench " + strings.Fields(t.Sysbench)[0]
		}
	case writingSQL.MatchString(t.SQL):
		return "its statement (" + first(t.SQL) + ")"
	}
	for _, b := range t.Before {
		if writingSQL.MatchString(b.Value) {
			return "a before statement (" + first(b.Value) + ")"
		}
	}
	return ""
}

// DesignWarnings are what the study's order of runs will not let an
// analysis tell apart, said before anything runs: a fixed order puts
// each configuration in the same position of every round, so a position
// effect (the first run of a round on a cold host, a disk slower at some
// point of a round) becomes a difference between configurations; and a
// test placed after a writing test reads what the write left (dirty pages
// to flush, a checkpoint, hint bits and visibility to set) in every round.
func (s *Study) DesignWarnings() []string {
	var out []string
	if s.Protocol.Order == "fixed" && len(s.Configs) > 1 {
		out = append(out, fmt.Sprintf("protocol: order fixed runs each configuration in the same position of every round "+
			"(%s first): a difference between positions will read as a difference between configurations, "+
			"and pgstudy check will refuse a difference it cannot attribute; use order: rotate (the default) or random",
			s.Configs[0].Name))
	}
	for i, t := range s.Tests {
		for j := i - 1; j >= 0; j-- {
			if w := s.Tests[j].Writes(); w != "" {
				out = append(out, fmt.Sprintf("test %s runs after %s in every round, which writes (%s): %s's runs read what that write left "+
					"(dirty pages, hint bits, a checkpoint); put reading tests before writing ones, or give the writing test a study of its own",
					t.Name, s.Tests[j].Name, w, t.Name))
				break
			}
		}
	}
	return out
}
