package collect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Study removes the secrets of a study file's text where they stand, and
// keeps every other byte: each scalar that holds one (a DSN, a command, the
// value of a secret-named key such as PGPASSWORD, a DSN where a mapping
// was expected) is written again, as a double-quoted scalar with the
// secret masked, in the place of its source; a comment that holds one (a
// DSN commented out) is masked where it stands. The secret is found in the
// scalar's value as YAML decodes it, so an escaped password (a doubled quote in single quotes) is
// found as the server would see it. Study fails, rather than return a text
// that still holds a secret, when the result does not read back clean.
func (r *Redactor) Study(text string) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return "", fmt.Errorf("the study copy: %w", err)
	}
	src := newSource(text)
	var edits []edit
	var problem error
	walkScalars(&doc, "", false, func(n *yaml.Node, key string, flow bool) {
		want := r.Structural(n.Value)
		if isSecretName(key) && n.Value != "" {
			want = mask
		}
		if want == n.Value || problem != nil {
			return
		}
		start, end, err := src.scalarSpan(n, flow)
		if err != nil {
			problem = err
			return
		}
		q, _ := json.Marshal(want) // a JSON string is a YAML double-quoted scalar
		edits = append(edits, edit{start, end, string(q)})
	})
	if problem != nil {
		return "", problem
	}
	for _, c := range comments(&doc) {
		if masked := r.Structural(c); masked != c {
			for at := 0; ; {
				i := strings.Index(text[at:], c)
				if i < 0 {
					break
				}
				edits = append(edits, edit{at + i, at + i + len(c), masked})
				at += i + len(c)
			}
		}
	}
	out := applyEdits(text, edits)
	if err := r.clean(out); err != nil {
		return "", err
	}
	return out, nil
}

// clean checks that a redacted study reads back with no secret left.
func (r *Redactor) clean(text string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return fmt.Errorf("the study copy, once its secrets were removed, is not valid YAML (%v); pgstudy stores no copy that could hold a secret", err)
	}
	var left *yaml.Node
	walkScalars(&doc, "", false, func(n *yaml.Node, key string, flow bool) {
		if left == nil && (r.Structural(n.Value) != n.Value || isSecretName(key) && n.Value != "" && n.Value != mask) {
			left = n
		}
	})
	if left != nil {
		return fmt.Errorf("the study's line %d holds a secret pgstudy could not remove; it stores no copy of a study that holds one", left.Line)
	}
	for _, c := range comments(&doc) {
		if r.Structural(c) != c {
			return fmt.Errorf("a comment of the study holds a secret pgstudy could not remove; it stores no copy of a study that holds one")
		}
	}
	return nil
}

// studySecrets is every secret the study's text holds, found by structure
// in its scalars and comments.
func studySecrets(text []byte) []string {
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) != nil {
		return nil
	}
	var out []string
	walkScalars(&doc, "", false, func(n *yaml.Node, key string, flow bool) {
		if isSecretName(key) {
			out = append(out, n.Value)
		}
		for _, sp := range findSecrets(n.Value, textRules) {
			out = append(out, unquote(n.Value[sp[0]:sp[1]]))
		}
	})
	for _, c := range comments(&doc) {
		for _, sp := range findSecrets(c, textRules) {
			out = append(out, unquote(c[sp[0]:sp[1]]))
		}
	}
	return out
}

// walkScalars calls f for every scalar under n with the key it is the
// value of ("" for keys, list items and the top) and whether it is in a
// flow collection.
func walkScalars(n *yaml.Node, key string, flow bool, f func(n *yaml.Node, key string, flow bool)) {
	switch n.Kind {
	case yaml.ScalarNode:
		f(n, key, flow)
	case yaml.MappingNode:
		inFlow := flow || n.Style&yaml.FlowStyle != 0
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkScalars(n.Content[i], "", inFlow, f)
			walkScalars(n.Content[i+1], n.Content[i].Value, inFlow, f)
		}
	case yaml.DocumentNode, yaml.SequenceNode:
		inFlow := flow || n.Style&yaml.FlowStyle != 0
		for _, c := range n.Content {
			walkScalars(c, "", inFlow, f)
		}
	}
}

// comments lists every comment of the document, as YAML keeps them.
func comments(n *yaml.Node) []string {
	var out []string
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, line := range strings.Split(c, "\n") {
				if line = strings.TrimSpace(line); line != "" && !slices.Contains(out, line) {
					out = append(out, line)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// edit replaces text[start:end].
type edit struct {
	start, end int
	with       string
}

func applyEdits(text string, edits []edit) string {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.start < at {
			continue
		}
		b.WriteString(text[at:e.start])
		b.WriteString(e.with)
		at = e.end
	}
	b.WriteString(text[at:])
	return b.String()
}

// source is a text with its line starts, for YAML's line and column.
type source struct {
	text  string
	lines []int // byte offset of each line's start
}

func newSource(text string) *source {
	s := &source{text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	return s
}

// offset is the byte offset of YAML's line and column (1-based, the column
// counted in characters).
func (s *source) offset(line, col int) (int, bool) {
	if line < 1 || line > len(s.lines) {
		return 0, false
	}
	at := s.lines[line-1]
	for c := 1; c < col; c++ {
		if at >= len(s.text) || s.text[at] == '\n' {
			return 0, false
		}
		_, n := utf8.DecodeRuneInString(s.text[at:])
		at += n
	}
	return at, true
}

// scalarSpan is where scalar n's source is: from its first character to
// just after its last (its closing quote, the end of a plain scalar's
// text, the last line of a block scalar).
func (s *source) scalarSpan(n *yaml.Node, flow bool) (int, int, error) {
	fail := fmt.Errorf("the study's line %d holds a secret in a form pgstudy cannot remove where it stands (write it on one line); it stores no copy of a study that holds one", n.Line)
	start, ok := s.offset(n.Line, n.Column)
	if !ok {
		return 0, 0, fail
	}
	t := s.text
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := start + 1; i < len(t); i++ {
			switch t[i] {
			case '\\':
				i++
			case '"':
				return start, i + 1, nil
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := start + 1; i < len(t); i++ {
			if t[i] == '\'' {
				if i+1 < len(t) && t[i+1] == '\'' {
					i++
					continue
				}
				return start, i + 1, nil
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		// The indicator's line, then every line more indented than the
		// line the indicator is on, or blank.
		indent := s.indentOf(n.Line)
		end := s.lineEnd(n.Line)
		for l := n.Line + 1; l <= len(s.lines); l++ {
			body := s.lineText(l)
			if strings.TrimSpace(body) != "" && s.indentOf(l) <= indent {
				break
			}
			end = s.lineEnd(l)
		}
		return start, end, nil
	default:
		end := s.lineEnd(n.Line)
		line := t[start:end]
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if flow {
			if i := strings.IndexAny(line, ",]}"); i >= 0 {
				line = line[:i]
			}
		}
		line = strings.TrimRight(line, " \t\r")
		if line != n.Value {
			return 0, 0, fail // a plain scalar over several lines
		}
		return start, start + len(line), nil
	}
	return 0, 0, fail
}

func (s *source) lineText(line int) string {
	return s.text[s.lines[line-1]:s.lineEnd(line)]
}

func (s *source) lineEnd(line int) int {
	if line < len(s.lines) {
		return s.lines[line] - 1
	}
	return len(s.text)
}

func (s *source) indentOf(line int) int {
	body := s.lineText(line)
	return len(body) - len(strings.TrimLeft(body, " "))
}
