package parse

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The parsers read PostgreSQL's and psql's English messages: the message
// texts are what they match, and a server with lc_messages in another
// language, or psql run in another locale, prints text they cannot read. So
// that such output is refused, naming the setting to change, rather than
// read as nothing (no records, no timings) or as "not psql output", the
// translations that PostgreSQL's catalogues ship for the messages the
// parsers read are in foreignCatalog (generated), and lines a parser does
// not understand are looked up there.

// foreignMessage is one translation of a message a parser reads.
type foreignMessage struct {
	lang  string // the catalogue's language, e.g. "fr"
	kind  string // "label" (a severity or field label), "server", "psql"
	msgid string // the English message, as the catalogue spells it
	// msgstr is the translation.
	msgstr string
}

// foreignIndex is foreignCatalog prepared for matching.
type foreignIndex struct {
	timeUnits map[string]bool            // the unit of psql's Time: line: "ms", "мс", "ミリ秒"
	labels    map[string]*foreignMessage // "FEHLER", "ASTUCE": labels before ":  "
	server    []foreignText              // the longest literal part of each server message
	psql      []foreignText
}

type foreignText struct {
	text string
	m    *foreignMessage
}

// printfVerb matches a C format directive of the catalogues' messages.
var printfVerb = regexp.MustCompile(`%(\d+\$)?[-+ #0]*(\d+|\*)?(\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGcsp%]|\n`)

var foreign = sync.OnceValue(func() *foreignIndex {
	ix := &foreignIndex{labels: map[string]*foreignMessage{}, timeUnits: map[string]bool{"ms": true}}
	for i := range foreignCatalog {
		m := &foreignCatalog[i]
		switch m.kind {
		case "label":
			label := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m.msgstr), ":"))
			ix.labels[label] = m
		case "server", "psql":
			if strings.HasPrefix(m.msgid, "Time: %.3f ms") {
				// The word after the number: "%.3f мс\n".
				if _, after, ok := strings.Cut(m.msgstr, "%.3f"); ok {
					if f := strings.Fields(after); len(f) > 0 {
						ix.timeUnits[f[0]] = true
					}
				}
			}
			longest := ""
			for _, part := range printfVerb.Split(m.msgstr, -1) {
				if part = strings.TrimSpace(part); len(part) > len(longest) {
					longest = part
				}
			}
			// A fragment as short as "%s: %d" would match ordinary text.
			if len(longest) < 6 {
				continue
			}
			if m.kind == "server" {
				ix.server = append(ix.server, foreignText{longest, m})
			} else {
				ix.psql = append(ix.psql, foreignText{longest, m})
			}
		}
	}
	return ix
})

// foreignLabel finds a translated severity or field label ("ERREUR:  ",
// "ASTUCE :  ", Korean's "쿼리:") in a line of server output: one or two
// words before one of the line's first colons, starting the line or
// following a log line prefix.
func foreignLabel(s string) (*foreignMessage, bool) {
	labels := foreign().labels
	for i, k := 0, 0; k < 8 && i < len(s) && i < 256; k++ {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			return nil, false
		}
		head := strings.TrimRight(s[:i+j], " ")
		for words := 0; words < 2 && head != ""; words++ {
			w := strings.LastIndexAny(head, " \t]")
			if m, ok := labels[s[w+1:len(strings.TrimRight(s[:i+j], " "))]]; ok {
				return m, true
			}
			head = strings.TrimRight(head[:max(w, 0)], " ")
		}
		i += j + 1
	}
	return nil, false
}

// foreignServerLine reports the translated message or label line s holds.
func foreignServerLine(s string) (*foreignMessage, bool) {
	if m, ok := foreignLabel(s); ok {
		return m, true
	}
	return foreignServerText(s)
}

// foreignServerText reports the translated server message s holds.
func foreignServerText(s string) (*foreignMessage, bool) {
	for _, f := range foreign().server {
		if strings.Contains(s, f.text) {
			return f.m, true
		}
	}
	return nil, false
}

// psqlTimeShape is psql's Time: line in any language: a label, a colon,
// a number with three decimals (a decimal comma in many locales) and a unit.
var psqlTimeShape = regexp.MustCompile(`^([^\s:]{1,24}) ?: ?[0-9]+[.,][0-9]{3} (\S{1,12})( \(.*\))?$`)

// psqlFooterShape is psql's row count footer in any language: "(1 row)",
// "(3 filas)", "(1 行)", "(1개 행)"; psqlEnglishFooter is the English one.
var (
	psqlFooterShape   = regexp.MustCompile(`^\([0-9]+ ?[^\s()0-9][^()]{0,30}\)$`)
	psqlEnglishFooter = regexp.MustCompile(`^\([0-9]+ rows?\)$`)
)

// foreignPsqlLine reports whether s is one of psql's own lines in another
// language: its Time: line, "Timing is on.", or a server message label.
func foreignPsqlLine(s string) (string, bool) {
	// "Time: 2,052 ms" is English with a decimal comma (LC_NUMERIC), and
	// any label with a decimal comma and the unit of psql's Time: line in
	// some language is that line in a locale that has one. Other lines of
	// that shape are a user's -At output ("Latency: 12.346 ms", "Total:
	// 12,345 rows"), and translations with a decimal point are found in
	// the catalogue below.
	if m := psqlTimeShape.FindStringSubmatch(s); m != nil && strings.Contains(s, ",") &&
		(m[1] == "Time" || foreign().timeUnits[m[2]]) {
		return "", true
	}
	for _, f := range foreign().psql {
		if strings.Contains(s, f.text) {
			return f.m.lang, true
		}
	}
	if m, ok := foreignLabel(s); ok {
		return m.lang, true
	}
	return "", false
}

// foreignServerError is the refusal of server output in another language.
func foreignServerError(source string, line int, lang, text string) error {
	return errorf(source, line, "server messages in another language%s: %s; pgstudy reads PostgreSQL's messages in English: set lc_messages = 'C' (postgresql.conf, or SET in the session for VACUUM VERBOSE) and capture again",
		foreignLang(lang), quoteVac(text))
}

// foreignPsqlError is the refusal of psql output in another language.
func foreignPsqlError(source string, line int, lang, text string) error {
	return errorf(source, line, "psql output in another language%s: %s; pgstudy reads psql's messages in English with \".\" as the decimal point: run psql with LC_ALL=C (or LC_MESSAGES=C and LC_NUMERIC=C), and the server with lc_messages = 'C'",
		foreignLang(lang), quoteVac(text))
}

func foreignLang(lang string) string {
	if lang == "" {
		return ""
	}
	return fmt.Sprintf(" (%s)", lang)
}

// clipText shortens s to about n bytes, at a character boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}

// psqlEnglishTime reports whether l is psql's English Time: line with a
// decimal point, the evidence that psql itself printed in English.
func psqlEnglishTime(l string) bool {
	_, ok := psqlTime(l)
	return ok && !strings.Contains(l, ",")
}

// lookForeign notes line i as the first in another language if it is
// psql's or the server's in another language (see foreign.go).
func (p *psqlParser) lookForeign(i int) {
	if p.foreign != nil {
		return
	}
	l := p.lines[i]
	if m, ok := foreignLabel(l); ok {
		p.foreign = &Warning{Source: p.source, Line: i + 1, Text: l, Msg: m.lang}
		p.foreignServer = true
	} else if lang, ok := foreignPsqlLine(l); ok {
		p.foreign = &Warning{Source: p.source, Line: i + 1, Text: l, Msg: lang}
	}
}

// foreignError is the refusal of psql output in another language: its
// Time: lines would be lost, its messages unread. A line only shaped like
// psql's in another language ("Durée : 21,820 ms", "(2 Zeilen)") is a
// user's value when psql's own lines are English ("Timing is on.", an
// English Time: line or row count): then it is read as the value it is.
// A server's label in another language ("ERREUR:  ") is refused whatever
// psql's language.
func (p *psqlParser) foreignError() error {
	if f := p.foreign; f != nil && (p.foreignServer || !p.english) {
		return foreignPsqlError(f.Source, f.Line, f.Msg, f.Text)
	}
	return nil
}

// mayBeForeign is a cheap test of a line taken as output: whether it could
// be a Time: line or a message label in another language ("Temps : 2,052
// ms", "ERREUR:  ..."), so that only those are looked up.
func mayBeForeign(l string) bool {
	i := strings.IndexByte(l, ':')
	if i <= 0 || i > 40 || i+2 >= len(l) {
		return false
	}
	next := l[i+1]
	if next == ' ' {
		next = l[i+2]
	}
	return next >= '0' && next <= '9' || strings.HasPrefix(l[i:], ":  ")
}

// lookForeign notes line as the first in another language if it is one: a
// line the parser did not understand, or a message it skips.
func (s *vacSink) lookForeign(line int, text string) {
	if s.foreign != nil {
		return
	}
	if m, ok := foreignServerLine(text); ok {
		s.foreign = &Warning{Source: s.source, Line: line, Text: strings.Clone(text), Msg: "server " + m.lang}
	} else if lang, ok := foreignPsqlLine(text); ok {
		s.foreign = &Warning{Source: s.source, Line: line, Text: strings.Clone(text), Msg: "psql " + lang}
	}
}

// foreignError is the refusal of the input when a line of it was in
// another language: its records would be missing, not wrong, and nothing
// else would say so.
func (s *vacSink) foreignError() error {
	if f := s.foreign; f != nil {
		if lang, ok := strings.CutPrefix(f.Msg, "psql "); ok {
			return foreignPsqlError(s.source, f.Line, lang, f.Text)
		}
		return foreignServerError(s.source, f.Line, strings.TrimPrefix(f.Msg, "server "), f.Text)
	}
	return nil
}
