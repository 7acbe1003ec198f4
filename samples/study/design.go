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
		case other.SameAs != "":
			d.errorAt(c.SameAsPos, "configuration %s: same_as %s, which is itself declared a copy (of %s); name the original every copy is compared with", c.Name, c.SameAs, other.SameAs)
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
// by its first keyword, and captures the relation it writes when the
// statement names one (a VACUUM or CHECKPOINT alone writes any). A
// data-modifying WITH or a function that writes is not seen here: the
// analysis adds what each run's WAL shows.
var writingSQL = regexp.MustCompile(`(?i)^\s*(?:` +
	`update\s+(?:only\s+)?|delete\s+from\s+(?:only\s+)?|insert\s+into\s+|merge\s+into\s+|` +
	`truncate\s+(?:table\s+)?(?:only\s+)?|copy\s+|alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?|drop\s+table\s+(?:if\s+exists\s+)?|` +
	`vacuum\b\s*(?:\([^)]*\)\s*)?(?:(?:full|freeze|verbose|analy[sz]e)\s+)*|analy[sz]e\b\s*(?:\([^)]*\)\s*)?(?:verbose\s+)?|` +
	`cluster\b\s*(?:verbose\s+)?|reindex\s+(?:\([^)]*\)\s*)?(?:table|index)\s+(?:concurrently\s+)?|` +
	`refresh\s+materialized\s+view\s+(?:concurrently\s+)?|create\b|drop\b|alter\b|checkpoint\b)` +
	`([A-Za-z_"][\w."$]*)?`)

// readOnlyPgbench is pgbench's one built-in script that changes no data:
// select-only (-S, -b select-only); customScript a script of the user's.
var readOnlyPgbench = regexp.MustCompile(`(^|\s)(-S|--select-only|-b\s*select-only|--builtin[= ]select-only)(\s|$)`)

var customScript = regexp.MustCompile(`(^|\s)(-f|--file)(\s|=|$)`)

// readOnlySysbench are sysbench's tests that only read.
var readOnlySysbench = regexp.MustCompile(`^(oltp_read_only|oltp_point_select|select_random_points|select_random_ranges)\b`)

// Write is what a test writes that its configuration's later runs read.
type Write struct {
	Why string // for messages: "its statement (vacuum)"
	// Relations are the tables its writing statements name, in lower
	// case without schema or quotes; All is set when it may write any
	// (a whole-database VACUUM, a client's script, a CREATE).
	Relations []string
	All       bool
	// Rebuilds are the relations it empties or makes anew (TRUNCATE,
	// DROP, CREATE TABLE ... AS): what an earlier write left there is gone.
	Rebuilds []string
}

// rebuilding matches a statement that empties or replaces a relation.
var rebuilding = regexp.MustCompile(`(?i)^\s*(?:truncate\s+(?:table\s+)?(?:only\s+)?|drop\s+table\s+(?:if\s+exists\s+)?|create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?)([A-Za-z_"][\w."$]*)`)

// Writes says what of a test changes the data its configuration's later
// runs read (nil when nothing the study file shows does): its statement,
// a before statement, or a throughput client's built-in writing script.
// A custom pgbench script (-f) is not read: the analysis adds what a
// run's WAL shows.
func (t *Test) Writes() *Write {
	switch {
	case strings.TrimSpace(t.Pgbench) != "":
		if !readOnlyPgbench.MatchString(t.Pgbench) && !customScript.MatchString(t.Pgbench) {
			return &Write{Why: "pgbench " + strings.TrimSpace(t.Pgbench) + " (a writing built-in script)", All: true}
		}
	case strings.TrimSpace(t.Sysbench) != "":
		if !readOnlySysbench.MatchString(strings.TrimSpace(t.Sysbench)) {
			return &Write{Why: "sysbench " + strings.Fields(t.Sysbench)[0], All: true}
		}
	}
	var w *Write
	add := func(sql, where string) {
		m := writingSQL.FindStringSubmatch(sql)
		if m == nil {
			return
		}
		if w == nil {
			w = &Write{Why: where + " (" + strings.ToLower(strings.Fields(strings.TrimSpace(sql))[0]) + ")"}
		}
		if rel := relationName(m[1]); rel != "" {
			w.Relations = append(w.Relations, rel)
		} else if r := rebuilding.FindStringSubmatch(sql); r == nil {
			w.All = true // a write of no relation named: any
		}
		if r := rebuilding.FindStringSubmatch(sql); r != nil {
			w.Rebuilds = append(w.Rebuilds, relationName(r[1]))
		}
	}
	add(t.SQL, "its statement")
	for _, b := range t.Before {
		add(b.Value, "a before statement")
	}
	return w
}

// relationName is a relation as a statement names it, in lower case,
// without schema or quotes ("" for none).
func relationName(s string) string {
	s = strings.ToLower(strings.Trim(s, `"`))
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Trim(s, `"`)
}

var wordRE = regexp.MustCompile(`[a-z_][a-z0-9_$]*`)

// Reaches says whether the write can change what test t reads: a
// relation it writes is named by t's statement (or client arguments), and
// t's own before statements do not rebuild that relation first (a test
// that truncates and refills its table reads its own write, not the
// earlier one; a row it inserts leaves the earlier write's pages as they
// were).
func (w *Write) Reaches(t *Test) bool {
	own := t.Writes()
	rewritten := func(rel string) bool { return own != nil && slices.Contains(own.Rebuilds, rel) }
	if w.All {
		return true
	}
	words := wordRE.FindAllString(strings.ToLower(t.SQL+" "+t.Pgbench+" "+t.Sysbench), -1)
	for _, rel := range w.Relations {
		if slices.Contains(words, rel) && !rewritten(rel) {
			return true
		}
	}
	return false
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
	for i := range s.Tests {
		t := &s.Tests[i]
		for j := i - 1; j >= 0; j-- {
			if w := s.Tests[j].Writes(); w != nil && w.Reaches(t) {
				out = append(out, fmt.Sprintf("test %s runs after %s in every round, which writes (%s): %s's runs read what that write left "+
					"(dirty pages, hint bits, a checkpoint); put reading tests before writing ones, or give the writing test a study of its own",
					t.Name, s.Tests[j].Name, w.Why, t.Name))
				break
			}
		}
	}
	return out
}
