package study

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/pgstudy/pgstudy/samples/infile"
)

// maxBytes bounds a study file: a study is a page or two of YAML.
const maxBytes = 4 << 20

// Options are what a reader of the schema adds to it.
type Options struct {
	// Redact removes secrets from an error's text where they stand: the
	// messages quote what the study says.
	Redact func(string) string
	// Rules are a reader's own checks, run after the schema's and
	// reported in the same list (the collector's: each DSN parses, each
	// before statement renders).
	Rules []Rule
}

// Rule is a check of a decoded study; it reports each problem at the
// place it was written.
type Rule func(s *Study, report func(p Pos, format string, args ...any))

// Load reads and checks a study file. Every problem found is reported,
// each as file:line:col: what was expected.
func Load(path string, opt Options) (*Study, error) {
	text, err := infile.ReadFile(path, maxBytes, "a study file")
	if err != nil {
		return nil, fmt.Errorf("read study: %w", err)
	}
	text, err = DecodeText(path, text)
	if err != nil {
		return nil, err
	}
	return Parse(path, text, opt)
}

// Parse checks a study given as text; file names it in errors.
func Parse(file string, text []byte, opt Options) (*Study, error) {
	return parse(&decoder{file: file, opt: opt}, text)
}

// Stored decodes the study a capture recorded, for the analysis. Every
// value is decoded with its bounds, as Parse does, with two differences:
// a key this version does not know (the study was written for another
// pgstudy) is not an error but listed in the study's Ignored; and names
// are not held to the characters a study file allows, since they are
// data to the analysis, whatever they hold. An empty text (an import's
// capture has no study) is an empty study.
func Stored(file string, text []byte) (*Study, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return &Study{File: file}, nil
	}
	return parse(&decoder{file: file, stored: true}, text)
}

func parse(d *decoder, text []byte) (*Study, error) {
	file := d.file
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, ErrorList{{File: file, Msg: "the study file is empty; `pgstudy init` writes an example"}}
		}
		if e := controlChar(file, text); e != nil {
			return nil, ErrorList{e}
		}
		return nil, ErrorList{yamlSyntaxError(file, err)}
	}
	if len(doc.Content) == 0 {
		return nil, ErrorList{{File: file, Msg: "the study file is empty; `pgstudy init` writes an example"}}
	}
	root := doc.Content[0]
	s := &Study{File: file, Text: text}
	if root.Kind != yaml.MappingNode {
		d.errorf(root, "expected a mapping with configs:, tests:, protocol:, disk: and probes:, found %s", kindName(root))
		return nil, d.errs
	}
	d.decodeStruct(root, reflectValue(s))
	s.check(d)
	for _, rule := range d.opt.Rules {
		rule(s, d.errorAt)
	}
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *Error) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		})
		return nil, d.errs
	}
	s.Ignored = d.ignored
	return s, nil
}
