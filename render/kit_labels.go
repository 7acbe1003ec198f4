// Labels of configurations in figures: matrix names made short enough for a legend or an axis.

package render

import (
	"slices"
	"strings"
)

// configLabels are the names figures draw for configurations, and the
// setting names they abbreviate. A matrix configuration's name repeats
// its settings ("pg18.io_method-worker.effective_io_concurrency-1"); in a
// figure it reads "pg18 io_method=worker eic=1": each setting and its
// value as key=value, a setting name longer than 10 letters by the
// initials of its words. Only settings are rewritten (names the analysis
// knows as settings: io_uring is a value), names without one are kept as
// they are, and so are all when the short ones would collide.
type configLabels struct {
	short  map[string]string
	abbrev [][2]string // (abbreviation, setting), in order of first use
}

func newConfigLabels(configs []string, settings []string) configLabels {
	l := configLabels{short: map[string]string{}}
	seen := map[string]bool{}
	for _, c := range configs {
		s, abbrevs := shortLabel(c, settings)
		if seen[s] {
			return configLabels{short: map[string]string{}}
		}
		seen[s] = true
		l.short[c] = s
		for _, a := range abbrevs {
			if !slices.Contains(l.abbrev, a) {
				l.abbrev = append(l.abbrev, a)
			}
		}
	}
	return l
}

// label is config's name as figures draw it.
func (l configLabels) label(config string) string {
	if s, ok := l.short[config]; ok {
		return s
	}
	return config
}

// note says what the abbreviations stand for, for a caption: " In the
// names, eic is effective_io_concurrency." or "".
func (l configLabels) note() string {
	if len(l.abbrev) == 0 {
		return ""
	}
	var parts []string
	for _, a := range l.abbrev {
		parts = append(parts, a[0]+" is "+a[1])
	}
	return " In the configurations' names, " + strings.Join(parts, ", ") + "."
}

// shortLabel is name with each "setting-value" part (after a '.' or a
// '-') written "setting=value", and the abbreviations it used; settings
// are the names of settings.
func shortLabel(name string, settings []string) (string, [][2]string) {
	tokens := strings.FieldsFunc(name, func(r rune) bool { return r == '.' || r == '-' })
	settingName := func(tok string) bool { return slices.Contains(settings, tok) }
	if !slices.ContainsFunc(tokens, settingName) {
		return name, nil
	}
	var out []string
	var abbrevs [][2]string
	for i := 0; i < len(tokens); i++ {
		tok := tokens[i]
		if !settingName(tok) || i+1 == len(tokens) {
			out = append(out, tok)
			continue
		}
		key := tok
		if len(key) > 10 {
			key = initials(tok)
			abbrevs = append(abbrevs, [2]string{key, tok})
		}
		out = append(out, key+"="+tokens[i+1])
		i++
	}
	return strings.Join(out, " "), abbrevs
}

// initials are the first letters of tok's words: "eic" for
// effective_io_concurrency.
func initials(tok string) string {
	var b strings.Builder
	for _, w := range strings.Split(tok, "_") {
		if w != "" {
			b.WriteByte(w[0])
		}
	}
	return b.String()
}
