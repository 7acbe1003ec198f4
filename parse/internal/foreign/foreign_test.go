package foreign

import (
	"strings"
	"testing"
)

// TestCatalogue: every translated message of the catalogue, printed
// with values in its directives' places, is recognised, and none of the
// English messages is: the three languages of the fixtures are a sample of
// the thirteen the catalogue has.
func TestCatalogue(t *testing.T) {
	langs := map[string]bool{}
	for _, m := range catalog {
		langs[m.lang] = true
		value := "12"
		if m.kind == "psql" {
			value = "2,052"
		}
		printed := printfVerb.ReplaceAllString(strings.TrimSuffix(m.msgstr, "\n"), value)
		english := printfVerb.ReplaceAllString(strings.TrimSuffix(m.msgid, "\n"), strings.ReplaceAll(value, ",", "."))
		switch m.kind {
		case "label":
			label := m.msgstr
			if !strings.Contains(label, ":") {
				label += ":  "
			}
			line := "2026-12-01 18:40:47.236 UTC [6127] " + label + "message"
			if _, ok := ServerLine(line); !ok {
				t.Errorf("%s label %q not recognised in %q", m.lang, m.msgstr, line)
			}
			if _, ok := ServerLine("2026-12-01 18:40:47.236 UTC [6127] " + strings.TrimSuffix(strings.TrimSpace(m.msgid), ":") + ":  message"); ok {
				t.Errorf("English label %q taken as foreign", m.msgid)
			}
		case "server":
			if _, ok := ServerLine(printed); !ok && len(printed) > 20 {
				t.Errorf("%s: %q not recognised", m.lang, printed)
			}
			if lang, ok := ServerLine(english); ok {
				t.Errorf("English %q taken as %s", english, lang)
			}
		case "psql":
			if _, ok := PsqlLine(printed); !ok {
				t.Errorf("%s: psql %q not recognised", m.lang, printed)
			}
			if _, ok := PsqlLine(english); ok {
				t.Errorf("English psql %q taken as foreign", english)
			}
		}
	}
	if len(langs) < 10 {
		t.Errorf("catalogue of %d languages, want the 13 of PostgreSQL 15's", len(langs))
	}
	if _, ok := PsqlLine("Time: 2,052 ms"); !ok {
		t.Error("a Time: line with a decimal comma is read")
	}
}
