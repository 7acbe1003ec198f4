package study

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The study file is decoded from yaml.Node by hand rather than with
// yaml.Unmarshal so that every mistake is reported as file:line:col with
// what was expected, and unknown keys are errors, not silently dropped.

// ErrorList is every problem found in a file (a study, an import's
// manifest), each one located.
type ErrorList []*Error

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Error is a problem at a place in a file.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

// Error is one line, whatever the names quoted in it hold.
func (e *Error) Error() string {
	msg := strings.ReplaceAll(e.Msg, "\n", `\n`)
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, msg)
	}
	if e.Col == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, msg)
}

// Pos is where a value was written, for errors found after decoding.
type Pos struct{ Line, Col int }

func posOf(n *yaml.Node) Pos { return Pos{n.Line, n.Column} }

type decoder struct {
	file    string
	opt     Options
	stored  bool      // a study a capture recorded: see Stored
	errs    ErrorList // what is wrong
	ignored ErrorList // a stored study's unknown keys
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	var p Pos
	if n != nil {
		p = posOf(n)
	}
	d.errorAt(p, format, args...)
}

// errorAt records an error at p. Its text quotes what the study says, so
// it goes through Options.Redact (a DSN given where a mapping was
// expected keeps no password).
// hasErrorAt says whether an error was recorded at p already (a value of
// the wrong type), so that a check of the same key does not say it twice.
func (d *decoder) hasErrorAt(p Pos) bool {
	for _, e := range d.errs {
		if e.Line == p.Line && e.Col == p.Col {
			return true
		}
	}
	return false
}

func (d *decoder) errorAt(p Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if d.opt.Redact != nil {
		msg = d.opt.Redact(msg)
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: p.Line, Col: p.Col, Msg: msg})
}

// nodeDecoder is implemented by types that read themselves from a node.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node)
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

// Duration is a time.Duration written as "1s", "2m30s" in the study file;
// Set says it was written.
type Duration struct {
	time.Duration
	Set bool
}

func (v *Duration) decodeNode(d *decoder, n *yaml.Node) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "expected a duration such as 500ms, 30s or 2m, found %s", kindName(n))
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil || dur <= 0 {
		d.errorf(n, "expected a positive duration such as 500ms, 30s or 2m, found %q", n.Value)
		return
	}
	v.Duration, v.Set = dur, true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

// decode fills what v points to from n. Struct fields are matched by their
// `yaml` tag; a field named Pos of type Pos receives the node's position.
func (d *decoder) decode(n *yaml.Node, v reflect.Value) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	// v points to the target; a target that is itself a pointer is
	// allocated and filled.
	v = v.Elem()
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v)
		return
	}
	if v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeNode(d, n)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "expected a list, found %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i).Addr())
		}
		v.Set(s)
	case reflect.Map:
		d.decodeMap(n, v)
	default:
		d.decodeScalar(n, v)
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "expected a mapping, found %s", kindName(n))
		return
	}
	m := reflect.MakeMap(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			d.errorf(k, "expected a name, found %s", kindName(k))
			continue
		}
		if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.errorf(k, "%q is given twice", k.Value)
			continue
		}
		ev := reflect.New(v.Type().Elem())
		d.decode(val, ev)
		m.SetMapIndex(reflect.ValueOf(k.Value), ev.Elem())
	}
	v.Set(m)
}

func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "expected text, found %s", kindName(n))
			return
		}
		if n.Tag == "!!null" && n.Style == 0 && n.Value != "" {
			// null or ~: what the key is left without is said where
			// it is needed (a name, a statement); nothing written is "".
			d.errorf(n, "expected text, found %s (YAML reads it as nothing; quote it for the text)", n.Value)
			return
		}
		v.SetString(n.Value)
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "expected a whole number, found %s", kindName(n))
			return
		}
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
		if err != nil {
			d.errorf(n, "expected a whole number, found %q", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.errorf(n, "expected a number, found %s", kindName(n))
			return
		}
		v.SetFloat(f)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			d.errorf(n, "expected true or false, found %s", kindName(n))
			return
		}
		v.SetBool(b)
	default:
		panic(fmt.Sprintf("study decoder: unsupported field type %s", v.Type()))
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value) {
	t := v.Type()
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "expected a mapping with %s, found %s", strings.Join(structKeys(t), ", "), kindName(n))
		return
	}
	if f, ok := t.FieldByName("Pos"); ok && f.Type == reflect.TypeFor[Pos]() {
		v.FieldByIndex(f.Index).Set(reflect.ValueOf(posOf(n)))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		idx := fieldByTag(t, k.Value)
		if idx < 0 {
			d.unknownKey(k, t)
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "%q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		d.decode(val, v.Field(idx).Addr())
		if pf, ok := t.FieldByName(t.Field(idx).Name + "Pos"); ok && pf.Type == reflect.TypeFor[Pos]() {
			v.FieldByIndex(pf.Index).Set(reflect.ValueOf(posOf(val)))
		}
	}
}

// unknownKey is an error, or in a stored study one more key ignored.
func (d *decoder) unknownKey(k *yaml.Node, t reflect.Type) {
	n := len(d.errs)
	d.errorf(k, "unknown key %q; expected one of: %s", k.Value, strings.Join(structKeys(t), ", "))
	if d.stored {
		d.ignored = append(d.ignored, d.errs[n:]...)
		d.errs = d.errs[:n]
	}
}

func fieldByTag(t reflect.Type, key string) int {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name == key && name != "" && name != "-" {
			return i
		}
	}
	return -1
}

func structKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

func reflectValue(ptr any) reflect.Value { return reflect.ValueOf(ptr).Elem() }
