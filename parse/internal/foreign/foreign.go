// Package foreign tells PostgreSQL's and psql's output in another language
// from English, so that the parsers refuse it, naming the setting to
// change, rather than read it as nothing (no records, no timings) or as
// "not psql output".
package foreign

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/pgstudy/pgstudy/parse"
)

// The parsers read PostgreSQL's and psql's English messages: the message
// texts are what they match, and a server with lc_messages in another
// language, or psql run in another locale, prints text they cannot read.
// The translations that PostgreSQL's catalogues ship for the messages the
// parsers read are in catalog (generated), and lines a parser does not
// understand are looked up there.

// message is one translation of a message a parser reads.
type message struct {
	lang  string // the catalogue's language, e.g. "fr"
	kind  string // "label" (a severity or field label), "server", "psql"
	msgid string // the English message, as the catalogue spells it
	// msgstr is the translation.
	msgstr string
}

// index is catalog prepared for matching.
type index struct {
	timeUnits map[string]bool     // the unit of psql's Time: line: "ms", "мс", "ミリ秒"
	labels    map[string]*message // "FEHLER", "ASTUCE": labels before ":  "
	server    []text              // the longest literal part of each server message
	psql      []text
}

type text struct {
	text  string
	m     *message
	bytes byteSet // the bytes text holds
}

// byteSet is a set of bytes: a line can hold a text only if it holds
// every byte of it, which rules out most texts without a search (a line of
// numbers holds no translation).
type byteSet [4]uint64

func bytesOf(s string) (b byteSet) {
	for i := 0; i < len(s); i++ {
		b[s[i]>>6] |= 1 << (s[i] & 63)
	}
	return b
}

// find is the first text of list that s holds, or nil.
func find(s string, list []text) *message {
	in := bytesOf(s)
	for i := range list {
		f := &list[i]
		if f.bytes[0]&^in[0]|f.bytes[1]&^in[1]|f.bytes[2]&^in[2]|f.bytes[3]&^in[3] == 0 && strings.Contains(s, f.text) {
			return f.m
		}
	}
	return nil
}

// printfVerb matches a C format directive of the catalogues' messages.
var printfVerb = regexp.MustCompile(`%(\d+\$)?[-+ #0]*(\d+|\*)?(\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGcsp%]|\n`)

var lookup = sync.OnceValue(func() *index {
	ix := &index{labels: map[string]*message{}, timeUnits: map[string]bool{"ms": true}}
	for i := range catalog {
		m := &catalog[i]
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
				ix.server = append(ix.server, text{longest, m, bytesOf(longest)})
			} else {
				ix.psql = append(ix.psql, text{longest, m, bytesOf(longest)})
			}
		}
	}
	return ix
})

// Label finds a translated severity or field label ("ERREUR:  ",
// "ASTUCE :  ", Korean's "쿼리:") in a line of server output: one or two
// words before one of the line's first colons, starting the line or
// following a log line prefix. lang is the catalogue's language.
func Label(s string) (lang string, ok bool) {
	if m, ok := label(s); ok {
		return m.lang, true
	}
	return "", false
}

func label(s string) (*message, bool) {
	labels := lookup().labels
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

// ServerLine reports the language of the translated message or label
// line s holds.
func ServerLine(s string) (lang string, ok bool) {
	if m, ok := label(s); ok {
		return m.lang, true
	}
	return ServerText(s)
}

// ServerText reports the language of the translated server message s
// holds.
func ServerText(s string) (lang string, ok bool) {
	if m := find(s, lookup().server); m != nil {
		return m.lang, true
	}
	return "", false
}

// psqlTimeShape is psql's Time: line in any language: a label, a colon,
// a number with three decimals (a decimal comma in many locales) and a unit.
var psqlTimeShape = regexp.MustCompile(`^([^\s:]{1,24}) ?: ?[0-9]+[.,][0-9]{3} (\S{1,12})( \(.*\))?$`)

// PsqlLine reports whether s is one of psql's own lines in another
// language (its Time: line, "Timing is on.", or a server message label),
// and which language when the catalogue says.
func PsqlLine(s string) (lang string, ok bool) {
	// "Time: 2,052 ms" is English with a decimal comma (LC_NUMERIC), and
	// any label with a decimal comma and the unit of psql's Time: line in
	// some language is that line in a locale that has one. Other lines of
	// that shape are a user's -At output ("Latency: 12.346 ms", "Total:
	// 12,345 rows"), and translations with a decimal point are found in
	// the catalogue below.
	if m := psqlTimeShape.FindStringSubmatch(s); m != nil && strings.Contains(s, ",") &&
		(m[1] == "Time" || lookup().timeUnits[m[2]]) {
		return "", true
	}
	if m := find(s, lookup().psql); m != nil {
		return m.lang, true
	}
	return Label(s)
}

// ServerError is the refusal of server output in another language.
func ServerError(source string, line int, lang, text string) error {
	return parse.Errorf(source, line, "server messages in another language%s: %s; pgstudy reads PostgreSQL's messages in English: set lc_messages = 'C' (postgresql.conf, or SET in the session for VACUUM VERBOSE) and capture again",
		langNote(lang), parse.Quote(text))
}

// PsqlError is the refusal of psql output in another language.
func PsqlError(source string, line int, lang, text string) error {
	return parse.Errorf(source, line, "psql output in another language%s: %s; pgstudy reads psql's messages in English with \".\" as the decimal point: run psql with LC_ALL=C (or LC_MESSAGES=C and LC_NUMERIC=C), and the server with lc_messages = 'C'",
		langNote(lang), parse.Quote(text))
}

func langNote(lang string) string {
	if lang == "" {
		return ""
	}
	return fmt.Sprintf(" (%s)", lang)
}
