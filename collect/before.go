package collect

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/pgstudy/pgstudy/samples/study"
)

// TemplateData is what a `before` statement can refer to. It is exported
// for its name: template errors quote it (in type collect.TemplateData).
type TemplateData struct {
	Round, Rounds int
	Test          string
	Config        string
	Slice         SliceRange
}

// SliceRange is a round's rows of a test's slice.
type SliceRange struct{ Lo, Hi, Size int64 }

func sliceFor(t *study.Test, round int) SliceRange {
	if t.Slice == nil || t.Slice.Size <= 0 {
		return SliceRange{} // reported by the checks
	}
	lo, hi := t.Slice.Rows(round)
	return SliceRange{Lo: lo, Hi: hi, Size: t.Slice.Size}
}

// compileBefore parses a test's before statement j and checks that it
// uses only what a statement needs (no loops, no templates of templates: a
// template that runs for ever or prints a gigabyte must not pass
// validation by running).
func compileBefore(t *study.Test, j int) (*template.Template, error) {
	tpl, err := template.New(fmt.Sprintf("%s.before[%d]", t.Name, j)).Option("missingkey=error").Parse(t.Before[j].Value)
	if err == nil {
		err = safeTemplate(tpl)
	}
	return tpl, err
}

// checkBefore compiles every before statement and runs it for every round
// of the first configuration and for every configuration in the first and
// last rounds, so that a mistake in one shows now, not in the fourth hour
// of a study.
func checkBefore(s *study.Study, report func(p study.Pos, format string, args ...any)) {
	for i := range s.Tests {
		t := &s.Tests[i]
		for j, text := range t.Before {
			tpl, err := compileBefore(t, j)
			if err != nil {
				report(text.Pos, "test %s: before statement %d: %v", t.Name, j+1, templateErr(err))
				continue
			}
			if err := tryTemplate(s, tpl, t); err != nil {
				report(text.Pos, "test %s: before statement %d, %v", t.Name, j+1, err)
			}
		}
		if t.Slice == nil && slices.ContainsFunc(t.Before, func(b study.PosString) bool { return strings.Contains(b.Value, ".Slice") }) {
			report(t.Before[0].Pos, "test %s: before refers to .Slice but the test has no slice: {first, size}", t.Name)
		}
	}
}

func templateErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); strings.HasPrefix(msg, "template: ") && i >= 0 {
		msg = strings.TrimPrefix(msg, "template: ")
	}
	return msg
}

// tryTemplate renders tpl for every round of the first configuration and
// every configuration of the first and last rounds.
func tryTemplate(s *study.Study, tpl *template.Template, t *study.Test) error {
	if len(s.Configs) == 0 {
		return nil
	}
	try := func(config string, round int) error {
		if _, err := render(s, tpl, t, config, round); err != nil {
			return fmt.Errorf("round %d: %s", round, templateErr(err))
		}
		return nil
	}
	for r := 1; r <= s.Protocol.Rounds; r++ {
		if err := try(s.Configs[0].Name, r); err != nil {
			return err
		}
	}
	for _, c := range s.Configs[1:] {
		for _, r := range []int{1, s.Protocol.Rounds} {
			if r >= 1 {
				if err := try(c.Name, r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// maxBeforeBytes bounds what one before statement may render to.
const maxBeforeBytes = 1 << 20

// errTooLong ends a render that goes past maxBeforeBytes.
var errTooLong = fmt.Errorf("renders to more than %d bytes; a before statement is a statement", maxBeforeBytes)

// boundedBuilder is a strings.Builder that refuses to grow past
// maxBeforeBytes.
type boundedBuilder struct{ strings.Builder }

func (b *boundedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxBeforeBytes {
		return 0, errTooLong
	}
	return b.Builder.Write(p)
}

func render(s *study.Study, tpl *template.Template, t *study.Test, config string, round int) (string, error) {
	var b boundedBuilder
	err := tpl.Execute(&b, TemplateData{Round: round, Rounds: s.Protocol.Rounds, Test: t.Name, Config: config, Slice: sliceFor(t, round)})
	if errors.Is(err, errTooLong) {
		err = errTooLong
	}
	return b.String(), err
}

// templateFuncs are the functions a before statement may call: tests,
// comparisons and formatting, none of which can loop.
var templateFuncs = []string{"and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "print", "printf", "println", "len"}

// wideVerb is a printf verb with a width or precision of 3 digits or more
// (or given by an argument): it could print a gigabyte from one value.
var wideVerb = regexp.MustCompile(`%[-+# 0]*(\*|\d{3,}|\d*\.(\*|\d{3,}))`)

// safeTemplate refuses what a before statement does not need and what
// could make rendering it loop or grow without bound: range, template and
// block, define, and functions beyond templateFuncs.
func safeTemplate(tpl *template.Template) error {
	if len(tpl.Templates()) > 1 {
		return errors.New("{{define}} and {{block}} are not allowed in a before statement")
	}
	var walk func(n parse.Node) error
	walk = func(n parse.Node) error {
		switch n := n.(type) {
		case nil:
			return nil
		case *parse.ListNode:
			if n == nil {
				return nil
			}
			for _, c := range n.Nodes {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *parse.RangeNode:
			return errors.New("{{range}} is not allowed in a before statement (it needs only {{.Round}}, {{.Config}}, {{.Slice.Lo}}, {{if}} and the like)")
		case *parse.TemplateNode:
			return errors.New("{{template}} is not allowed in a before statement")
		case *parse.IfNode:
			return walkAll(walk, n.Pipe, n.List, n.ElseList)
		case *parse.WithNode:
			return walkAll(walk, n.Pipe, n.List, n.ElseList)
		case *parse.ActionNode:
			return walk(n.Pipe)
		case *parse.PipeNode:
			if n == nil {
				return nil
			}
			for _, c := range n.Cmds {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *parse.CommandNode:
			if id, ok := n.Args[0].(*parse.IdentifierNode); ok {
				if !slices.Contains(templateFuncs, id.Ident) {
					return fmt.Errorf("the function %s is not allowed in a before statement (allowed: %s)", id.Ident, strings.Join(templateFuncs, ", "))
				}
				if id.Ident == "printf" && len(n.Args) > 1 {
					if f, ok := n.Args[1].(*parse.StringNode); !ok || wideVerb.MatchString(f.Text) {
						return errors.New("printf in a before statement needs a constant format without widths of 100 or more")
					}
				}
			}
			for _, a := range n.Args {
				if err := walk(a); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(tpl.Tree.Root)
}

func walkAll(walk func(parse.Node) error, pipe *parse.PipeNode, lists ...*parse.ListNode) error {
	if err := walk(pipe); err != nil {
		return err
	}
	for _, l := range lists {
		if l != nil {
			if err := walk(l); err != nil {
				return err
			}
		}
	}
	return nil
}

// beforeSQL is a test's before statements for a round and configuration.
// checkBefore has compiled and rendered each when the study was loaded.
func beforeSQL(s *study.Study, t *study.Test, config string, round int) ([]string, error) {
	var out []string
	for j := range t.Before {
		tpl, err := compileBefore(t, j)
		if err == nil {
			var sql string
			if sql, err = render(s, tpl, t, config, round); err == nil {
				out = append(out, sql)
				continue
			}
		}
		return nil, fmt.Errorf("test %s: before: %w", t.Name, err)
	}
	return out, nil
}
