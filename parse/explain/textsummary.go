package explain

import (
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// summary reads the lines after the tree: times, settings, triggers, JIT.
// A line at column 0 starts an entry; an indented one continues the
// block of the entry before it.
func (t *textParser) summary(col int, s string) error {
	if col > 0 {
		t.blockLine(s)
		return nil
	}
	p := t.plan
	t.section = ""
	t.stack = t.stack[:1]
	label, value, found := cut(s, ": ")
	if !found {
		label = strings.TrimSuffix(s, ":")
	}
	switch label {
	case "Planning Time", "Execution Time":
		f, ok := parseMs(value)
		if !ok {
			t.warn("time not understood")
			return nil
		}
		if label == "Planning Time" {
			p.PlanningTimeMs = parse.Some(f)
		} else {
			p.ExecutionTimeMs = parse.Some(f)
		}
	case "Planning", "JIT":
		if found {
			t.warn("not understood")
			return nil
		}
		t.section = label
		if label == "JIT" {
			p.JIT = &JIT{}
		}
	case "Settings":
		if p.Settings, found = parseSettings(value); !found {
			t.warn("settings not understood")
		}
	case "Serialization":
		t.section = label
		p.Serialization = &Serialization{}
		t.serialization(value)
	case "Query Identifier", "Query Text":
		put(&p.Extra, label, value)
	default:
		if strings.HasPrefix(s, "Trigger ") || strings.HasPrefix(s, "Trigger:") {
			t.trigger(s)
			return nil
		}
		if n, _ := t.nodeLine(s, true); n != nil {
			t.warn("the plan of a further statement; not parsed")
			t.done = true
			return nil
		}
		t.warn("not understood")
	}
	return nil
}

// blockLine reads an indented line of the summary's block being read
// (t.section).
func (t *textParser) blockLine(s string) {
	switch t.section {
	case "Planning":
		t.planningLine(s)
	case "JIT":
		t.jitLine(s)
	case "Serialization":
		label, value, _ := cut(s, ": ")
		if label == "Buffers" || label == "I/O Timings" {
			t.buffersLine(&t.plan.Serialization.Buffers, label, value)
		} else {
			t.warn("unknown serialization line")
		}
	default:
		t.warn("not understood")
	}
}

// planningLine reads a line of the "Planning:" block: its buffers, I/O
// timings and memory.
func (t *textParser) planningLine(s string) {
	p := t.plan
	if p.PlanningBuffers == nil {
		p.PlanningBuffers = t.planning
	}
	label, value, _ := cut(s, ": ")
	switch label {
	case "Buffers", "I/O Timings":
		t.buffersLine(p.PlanningBuffers, label, value)
	case "Memory":
		for _, kv := range strings.Fields(value) {
			k, v, _ := strings.Cut(kv, "=")
			i, ok := atoi(strings.TrimSuffix(v, "kB"))
			switch {
			case !ok:
				t.warn("planning memory not understood")
			case k == "used":
				p.PlanningMemoryUsedKB = parse.Some(i)
			case k == "allocated":
				p.PlanningMemoryAllocatedKB = parse.Some(i)
			default:
				t.warn("planning memory not understood")
			}
		}
	default:
		t.warn("unknown planning line")
	}
	if *p.PlanningBuffers == (Buffers{}) {
		p.PlanningBuffers = nil
	}
}

func (t *textParser) serialization(value string) {
	s := t.plan.Serialization
	for _, kv := range strings.Fields(value) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "time":
			if f, err := num.ParseFloat(v); err == nil {
				s.TimeMs = parse.Some(f)
				continue
			}
		case "ms":
			continue
		case "output":
			if i, ok := atoi(strings.TrimSuffix(v, "kB")); ok {
				s.OutputKB = parse.Some(i)
				continue
			}
		case "format":
			s.Format = v
			continue
		}
		t.warn("serialization not understood")
		return
	}
}

// trigger reads "Trigger name[ for constraint c][ on rel]: time=ms calls=n".
func (t *textParser) trigger(s string) {
	i := strings.LastIndex(s, ": ")
	if i < 0 {
		t.warn("trigger not understood")
		return
	}
	var tr Trigger
	head, stats := strings.TrimPrefix(s[:i], "Trigger"), s[i+2:]
	if j := strings.LastIndex(head, " on "); j >= 0 {
		head, tr.Relation = head[:j], head[j+4:]
	}
	if j := strings.Index(head, " for constraint "); j >= 0 {
		head, tr.ConstraintName = head[:j], head[j+len(" for constraint "):]
	}
	tr.Name = strings.TrimPrefix(head, " ")
	for _, kv := range strings.Fields(stats) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "time":
			if f, err := num.ParseFloat(v); err == nil {
				tr.TimeMs = parse.Some(f)
				continue
			}
		case "calls":
			if n, ok := atoi(v); ok {
				tr.Calls = parse.Some(n)
				continue
			}
		}
		t.warn("trigger not understood")
		return
	}
	t.plan.Triggers = append(t.plan.Triggers, tr)
}

// jitLine reads a line of the JIT block.
func (t *textParser) jitLine(s string) {
	j := t.plan.JIT
	label, value, _ := cut(s, ": ")
	switch label {
	case "Functions":
		if n, ok := atoi(value); ok {
			j.Functions = parse.Some(n)
			return
		}
	case "Options":
		if j.options(value) {
			return
		}
	case "Timing":
		if j.timing(value) {
			return
		}
	}
	t.warn("JIT line not understood")
}

// options reads "Inlining false, Optimization false, Expressions true,
// Deforming true", setting what it understands; false if any part is not.
func (j *JIT) options(value string) bool {
	ok := true
	for _, opt := range strings.Split(value, ", ") {
		name, v, _ := strings.Cut(opt, " ")
		b, err := strconv.ParseBool(v)
		if err != nil {
			ok = false
			continue
		}
		switch name {
		case "Inlining":
			j.Inlining = parse.Some(b)
		case "Optimization":
			j.Optimization = parse.Some(b)
		case "Expressions":
			j.Expressions = parse.Some(b)
		case "Deforming":
			j.Deforming = parse.Some(b)
		default:
			ok = false
		}
	}
	return ok
}

// timing reads "Generation 1.2 ms (Deform 0.3 ms), Inlining 0.0 ms, ...,
// Total 5.9 ms", setting what it understands; false if any part is not.
func (j *JIT) timing(value string) bool {
	ok := true
	for _, part := range strings.Split(value, ", ") {
		var deform string
		if i := strings.Index(part, " ("); i >= 0 && strings.HasSuffix(part, ")") {
			part, deform = part[:i], part[i+2:len(part)-1]
		}
		name, v, _ := strings.Cut(part, " ")
		f, good := parseMs(v)
		if !good {
			ok = false
			continue
		}
		switch name {
		case "Generation":
			j.GenerationMs = parse.Some(f)
		case "Inlining":
			j.InliningMs = parse.Some(f)
		case "Optimization":
			j.OptimizationMs = parse.Some(f)
		case "Emission":
			j.EmissionMs = parse.Some(f)
		case "Total":
			j.TotalMs = parse.Some(f)
		default:
			ok = false
		}
		if deform != "" {
			name, v, _ := strings.Cut(deform, " ")
			if f, good := parseMs(v); good && name == "Deform" {
				j.DeformMs = parse.Some(f)
			} else {
				ok = false
			}
		}
	}
	return ok
}

// parseMs parses "1.234 ms" or "1.234".
func parseMs(s string) (float64, bool) {
	f, err := num.ParseFloat(strings.TrimSuffix(s, " ms"))
	return f, err == nil
}

// parseSettings parses "name = 'value', name2 = 'value2'". Values are printed
// without escaping, so a value ends at the quote followed by ", name = " or
// by the end.
func parseSettings(s string) (map[string]string, bool) {
	m := make(map[string]string, strings.Count(s, " = ")) // one allocation for the settings a plan prints
	for s != "" {
		name, rest, ok := cut(s, " = ")
		if !ok || !settingName(name) {
			return m, false
		}
		if r, ok := strings.CutPrefix(rest, "NULL"); ok && (r == "" || strings.HasPrefix(r, ", ")) {
			m[name] = ""
			s = strings.TrimPrefix(r, ", ")
			continue
		}
		rest, ok = strings.CutPrefix(rest, "'")
		if !ok {
			return m, false
		}
		end := -1
		for i := 0; i < len(rest); i++ {
			if rest[i] != '\'' {
				continue
			}
			if i == len(rest)-1 {
				end = i
				break
			}
			if after, ok := strings.CutPrefix(rest[i+1:], ", "); ok {
				if n, _, ok := cut(after, " = "); ok && settingName(n) {
					end = i
					break
				}
			}
		}
		if end < 0 {
			return m, false
		}
		m[name] = rest[:end]
		s = strings.TrimPrefix(rest[end+1:], ", ")
	}
	return m, true
}

// settingName reports whether s may be a setting's name: not empty, and
// without a space or a quote (strings.ContainsAny built its set of bytes
// at every call).
func settingName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\'' {
			return false
		}
	}
	return s != ""
}
