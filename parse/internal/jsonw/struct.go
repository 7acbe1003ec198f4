package jsonw

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pgstudy/pgstudy/parse"
)

// Struct writes values of the struct type T as encoding/json writes them.
// NewStruct reads T's fields and json tags once, by reflection, into a
// plan: each field's key, offset and kind. Append then walks the plan and
// reads each field at its offset, without reflection, so that writing a
// record costs about what writing its bytes does, and the struct's tags
// stay the one place its JSON is defined: a field added to T is written
// without anyone writing it.
//
// Only the kinds pgstudy's streamed records use are known (string, bool,
// int, int64, uint32, uint64, float64, *int, *int64, *float64, []string,
// [][]string, map[string]string, structs of these, pointers to them and
// slices of them, parse.Opt groups and parse.Opt[float64] and [int64]);
// NewStruct refuses any other, a
// type with its own MarshalJSON or MarshalText but parse.Opt, and any tag
// option but omitempty (and omitzero on a parse.Opt), rather than guess
// how encoding/json writes it.
type Struct[T any] struct {
	p   *plan
	err error // For's: why there is no plan
}

// NewStruct makes the plan of T; an error names a field it cannot write
// as encoding/json does.
func NewStruct[T any]() (*Struct[T], error) {
	t := reflect.TypeFor[T]()
	p, err := planOf(t, map[reflect.Type]bool{}, false)
	if err != nil {
		return nil, fmt.Errorf("jsonw: %s: %w", t, err)
	}
	return &Struct[T]{p: p}, nil
}

// For is NewStruct's plan of T, or, when it cannot be made, a Struct
// whose Append returns why: for a package variable of a record with
// several parts, each written by its Struct, where the caller lets
// encoding/json write a record whose AppendJSON fails.
func For[T any]() *Struct[T] {
	s, err := NewStruct[T]()
	if err != nil {
		return &Struct[T]{err: err}
	}
	return s
}

// Append appends v as an object. It fails with ErrUnsupported where
// encoding/json fails (a NaN or infinite float), for the caller to let
// encoding/json write v and report its error.
func (s *Struct[T]) Append(b []byte, v *T) ([]byte, error) {
	if s.err != nil {
		return b, s.err
	}
	e := enc{b: b}
	s.p.write(&e, unsafe.Pointer(v))
	return e.b, e.err
}

// plan is how the fields of one struct type are written, in their order.
type plan struct {
	fields []field
	elems  []elem // the element types of its slices, and its structs
}

// elem is how a slice's elements, or a struct field, are written.
type elem struct {
	p    *plan
	size uintptr
}

type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kInt64
	kUint32
	kUint64
	kIntPtr   // *int64
	kFloatPtr // *float64
	kSlice    // []S of a struct S, written by elem
	kStruct   // a struct, written by elem
	kOpt      // a parse.Opt[S] of a struct S: S written by elem, or null
	kPtr      // *S of a struct S, written by elem, or null
	kIntP     // *int
	kFloat    // float64
	kOptFloat // a parse.Opt[float64]: the value or null
	kOptInt64 // a parse.Opt[int64]
	kStrings  // []string
	kStrings2 // [][]string
	kStrMap   // map[string]string, its keys sorted as encoding/json sorts them
)

// field is one field's plan, kept small (32 bytes): write reads one for
// each field of every record.
type field struct {
	key string // `"name":`
	off uint32 // the field's offset in the struct
	// zero is the offset of the word that is 0 when the value is empty:
	// the value's own, or a string's or a slice's length; an Opt's Valid.
	zero uint32
	kind kind
	omit bool // omitempty: a zero value, nil or empty is left out
	// skip: omit, and the word at zero tells an empty value (not for a
	// bool, a uint32, an Opt, nor an int64 wider than the word).
	skip bool
	elem uint8 // a slice's element type or a struct's, in the plan's elems
}

// planOf reads the fields of struct type t; seen holds the types being
// read, to refuse a type that contains itself. inOpt: t is written by
// parse.Opt's MarshalJSON, through json.Marshal, which escapes HTML in
// strings where the Encoder of pgstudy parse does not: a string there is
// refused rather than escaped.
func planOf(t reflect.Type, seen map[reflect.Type]bool, inOpt bool) (*plan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("not a struct")
	}
	if err := ownJSON(t); err != nil {
		return nil, err
	}
	if seen[t] {
		return nil, fmt.Errorf("%s contains itself", t)
	}
	seen[t] = true
	defer delete(seen, t)
	p := &plan{}
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil, fmt.Errorf("field %s: embedded fields are not supported", sf.Name)
		}
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" {
			continue
		}
		f, el, err := fieldOf(sf, tag, seen, inOpt)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", sf.Name, err)
		}
		if el.p != nil {
			if len(p.elems) > math.MaxUint8 {
				return nil, fmt.Errorf("field %s: more than %d slices", sf.Name, math.MaxUint8+1)
			}
			f.elem = uint8(len(p.elems))
			p.elems = append(p.elems, el)
		}
		if names[f.key] {
			return nil, fmt.Errorf("field %s: a second field named %s", sf.Name, f.key[:len(f.key)-1])
		}
		names[f.key] = true
		p.fields = append(p.fields, f)
	}
	return p, nil
}

// fieldOf is the plan of one exported field whose json tag is tag, with
// that of its elements for a slice, or of its fields for a struct.
func fieldOf(sf reflect.StructField, tag string, seen map[reflect.Type]bool, inOpt bool) (field, elem, error) {
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	if !plainKey(name) {
		return field{}, elem{}, fmt.Errorf("name %q is not letters, digits and _", name)
	}
	if sf.Offset > math.MaxUint32-8 {
		return field{}, elem{}, fmt.Errorf("offset %d is too large", sf.Offset)
	}
	f := field{key: `"` + name + `":`, off: uint32(sf.Offset), zero: uint32(sf.Offset)}
	var omitempty, omitzero bool
	for opt := range strings.SplitSeq(opts, ",") {
		switch opt {
		case "omitempty":
			omitempty = true
		case "omitzero":
			omitzero = true
		case "":
		default:
			return field{}, elem{}, fmt.Errorf("tag option %q is not supported", opt)
		}
	}
	t := sf.Type
	if isOpt(t) {
		// encoding/json leaves out an Opt that IsZero (not Valid) only
		// for omitzero; omitempty never leaves out a struct.
		return optOf(f, t, seen, omitzero)
	}
	if omitzero {
		return field{}, elem{}, fmt.Errorf("omitzero is supported on a parse.Opt only")
	}
	if err := ownJSON(t); err != nil {
		return field{}, elem{}, err
	}
	f.omit = omitempty
	const word = uint32(unsafe.Sizeof(uintptr(0)))
	switch {
	case t.Kind() == reflect.String && inOpt:
		return field{}, elem{}, fmt.Errorf("a string in a parse.Opt is written HTML-escaped, which is not supported")
	case t.Kind() == reflect.String:
		f.kind, f.zero = kString, f.off+word // its length
	case t.Kind() == reflect.Bool:
		f.kind = kBool
	case t.Kind() == reflect.Int:
		f.kind = kInt
	case t.Kind() == reflect.Int64:
		f.kind = kInt64
	case t.Kind() == reflect.Uint32:
		f.kind = kUint32
	case t.Kind() == reflect.Uint64:
		f.kind = kUint64
	case t.Kind() == reflect.Float64:
		f.kind = kFloat
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Int64:
		f.kind = kIntPtr
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Float64:
		f.kind = kFloatPtr
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Int:
		f.kind = kIntP
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Struct ||
		t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		return compositeOf(f, t, seen, inOpt)
	default:
		return field{}, elem{}, fmt.Errorf("type %s is not supported", t)
	}
	f.skip = f.omit && (f.kind == kString || f.kind == kInt || f.kind == kIntPtr || f.kind == kFloatPtr || f.kind == kIntP ||
		(f.kind == kInt64 || f.kind == kUint64) && word == 8)
	return f, elem{}, nil
}

// compositeOf is the plan of a field f of type t, a struct, a pointer to
// one, a slice or a map, with that of its elements or its fields.
func compositeOf(f field, t reflect.Type, seen map[reflect.Type]bool, inOpt bool) (field, elem, error) {
	const word = uint32(unsafe.Sizeof(uintptr(0)))
	switch {
	case t.Kind() == reflect.Pointer:
		p, err := planOf(t.Elem(), seen, inOpt)
		if err != nil {
			return field{}, elem{}, err
		}
		f.kind, f.skip = kPtr, f.omit // nil: its word is 0
		return f, elem{p: p}, nil
	case t.Kind() == reflect.Struct:
		p, err := planOf(t, seen, inOpt)
		if err != nil {
			return field{}, elem{}, err
		}
		f.kind, f.omit = kStruct, false // omitempty never leaves out a struct
		return f, elem{p: p}, nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		p, err := planOf(t.Elem(), seen, inOpt)
		if err != nil {
			return field{}, elem{}, fmt.Errorf("element: %w", err)
		}
		f.kind, f.zero, f.skip = kSlice, f.off+word, f.omit // its length
		return f, elem{p, t.Elem().Size()}, nil
	}
	return stringsOf(f, t, inOpt)
}

// stringsOf is the plan of a field f of type t, a slice or a map that is
// not of structs: []string, [][]string or map[string]string, of strings
// encoding/json writes as strings (not of a type with its own JSON).
func stringsOf(f field, t reflect.Type, inOpt bool) (field, elem, error) {
	const word = uint32(unsafe.Sizeof(uintptr(0)))
	str := func(t reflect.Type) bool { return t.Kind() == reflect.String && ownJSON(t) == nil }
	switch {
	case inOpt:
		return field{}, elem{}, fmt.Errorf("a string in a parse.Opt is written HTML-escaped, which is not supported")
	case t.Kind() == reflect.Slice && str(t.Elem()):
		f.kind, f.zero, f.skip = kStrings, f.off+word, f.omit // its length
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Slice && ownJSON(t.Elem()) == nil && str(t.Elem().Elem()):
		f.kind, f.zero, f.skip = kStrings2, f.off+word, f.omit
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Key().PkgPath() == "" && str(t.Elem()):
		f.kind = kStrMap // a map's emptiness is its length, not a word of it
	default:
		return field{}, elem{}, fmt.Errorf("type %s is not supported", t)
	}
	return f, elem{}, nil
}

// optType is a parse.Opt, for its package path.
var optType = reflect.TypeFor[parse.Opt[struct{}]]()

// isOpt reports whether t is a parse.Opt[S] of some S. Its MarshalJSON
// and IsZero are known: S's JSON, or null when not Valid, and IsZero is
// !Valid.
func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == optType.PkgPath() && strings.HasPrefix(t.Name(), "Opt[")
}

// optOf is the plan of a parse.Opt[S] field f of type t, S a struct:
// f.off is S's, f.zero Valid's.
func optOf(f field, t reflect.Type, seen map[reflect.Type]bool, omitzero bool) (field, elem, error) {
	v, ok1 := t.FieldByName("V")
	valid, ok2 := t.FieldByName("Valid")
	if !ok1 || !ok2 || valid.Type.Kind() != reflect.Bool {
		return field{}, elem{}, fmt.Errorf("%s has no V and Valid bool", t)
	}
	f.omit = omitzero
	f.zero = f.off + uint32(valid.Offset)
	f.off += uint32(v.Offset)
	// A number's MarshalJSON is json.Marshal of the number, which is what
	// an Encoder writes of it; a named type may have its own.
	switch v.Type {
	case reflect.TypeFor[float64]():
		f.kind = kOptFloat
		return f, elem{}, nil
	case reflect.TypeFor[int64]():
		f.kind = kOptInt64
		return f, elem{}, nil
	}
	if v.Type.Kind() != reflect.Struct {
		return field{}, elem{}, fmt.Errorf("%s: only an Opt of a struct, a float64 or an int64 is supported", t)
	}
	p, err := planOf(v.Type, seen, true)
	if err != nil {
		return field{}, elem{}, fmt.Errorf("%s: %w", t, err)
	}
	f.kind = kOpt
	return f, elem{p: p}, nil
}

var (
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// ownJSON refuses a type that encoding/json writes through its own
// MarshalJSON or MarshalText (by value or by pointer): a plan of its
// fields would not be what that method writes.
func ownJSON(t reflect.Type) error {
	for _, m := range []reflect.Type{marshaler, textMarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return fmt.Errorf("type %s has its own %s, which is not supported", t, m.Method(0).Name)
		}
	}
	return nil
}

// plainKey reports whether k needs no escaping in JSON and is a name
// encoding/json takes from a tag as it is.
func plainKey(k string) bool {
	for _, c := range []byte(k) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return k != ""
}

// write writes the struct at v as an object: each field read at its
// offset as the kind the plan was made from says.
func (p *plan) write(e *enc, v unsafe.Pointer) {
	e.open()
	fields := p.fields // held in a register: the appends below may not change it
	for i := range fields {
		f := &fields[i]
		at := unsafe.Add(v, f.off)
		if f.skip && *(*uintptr)(unsafe.Add(v, f.zero)) == 0 {
			continue // omitempty, and empty: most of a record's fields
		}
		switch f.kind {
		case kString:
			e.key(f.key)
			e.b = AppendString(e.b, *(*string)(at))
		case kBool:
			if x := *(*bool)(at); x || !f.omit {
				e.key(f.key)
				e.b = strconv.AppendBool(e.b, x)
			}
		case kInt:
			e.key(f.key)
			e.b = strconv.AppendInt(e.b, int64(*(*int)(at)), 10)
		case kInt64:
			if x := *(*int64)(at); x != 0 || !f.omit {
				e.key(f.key)
				e.b = strconv.AppendInt(e.b, x, 10)
			}
		case kUint32:
			if x := *(*uint32)(at); x != 0 || !f.omit {
				e.key(f.key)
				e.b = strconv.AppendUint(e.b, uint64(x), 10)
			}
		case kUint64:
			if x := *(*uint64)(at); x != 0 || !f.omit {
				e.key(f.key)
				e.b = strconv.AppendUint(e.b, x, 10)
			}
		case kFloat:
			if x := *(*float64)(at); x != 0 || !f.omit {
				e.key(f.key)
				e.float(x)
			}
		case kOptFloat, kOptInt64:
			f.optNumber(e, at, *(*bool)(unsafe.Add(v, f.zero)))
		case kIntPtr:
			if x := *(**int64)(at); x != nil {
				e.key(f.key)
				e.b = strconv.AppendInt(e.b, *x, 10)
			} else {
				f.null(e)
			}
		case kFloatPtr:
			if x := *(**float64)(at); x != nil {
				e.key(f.key)
				e.float(*x)
			} else {
				f.null(e)
			}
		case kSlice:
			f.slice(e, *(*[]byte)(at), p.elems[f.elem]) // any slice's header: its length in elements
		case kStruct:
			f.object(e, at, p.elems[f.elem].p)
		case kOpt:
			if *(*bool)(unsafe.Add(v, f.zero)) {
				f.object(e, at, p.elems[f.elem].p)
			} else if !f.omit {
				f.null(e)
			}
		default:
			f.pointed(e, at, p)
		}
	}
	e.close('}')
}

// pointed writes the field at at of the kinds that point to their
// values: *int, a pointer to a struct, strings in a slice or a map.
func (f *field) pointed(e *enc, at unsafe.Pointer, p *plan) {
	switch f.kind {
	case kIntP:
		if x := *(**int)(at); x != nil {
			e.key(f.key)
			e.b = strconv.AppendInt(e.b, int64(*x), 10)
		} else {
			f.null(e)
		}
	case kPtr:
		if x := *(*unsafe.Pointer)(at); x != nil {
			f.object(e, x, p.elems[f.elem].p)
		} else {
			f.null(e)
		}
	case kStrings:
		f.strings(e, *(*[]string)(at))
	case kStrings2:
		f.strings2(e, *(*[][]string)(at))
	case kStrMap:
		f.strMap(e, *(*map[string]string)(at))
	}
}

// optNumber writes the parse.Opt of a number whose value is at at: the
// number, or null when not valid (left out for omitzero).
func (f *field) optNumber(e *enc, at unsafe.Pointer, valid bool) {
	switch {
	case !valid:
		if !f.omit {
			f.null(e)
		}
	case f.kind == kOptFloat:
		e.key(f.key)
		e.float(*(*float64)(at))
	default:
		e.key(f.key)
		e.b = strconv.AppendInt(e.b, *(*int64)(at), 10)
	}
}

// null writes a nil pointer or slice (not omitempty).
func (f *field) null(e *enc) {
	e.key(f.key)
	e.b = append(e.b, "null"...)
}

// object writes the struct at v, a field's value, by its plan p.
func (f *field) object(e *enc, v unsafe.Pointer, p *plan) {
	e.key(f.key)
	e.comma = false
	p.write(e, v)
}

// slice writes a slice of structs, s its header as a []byte: its data
// and its length in elements.
func (f *field) slice(e *enc, s []byte, el elem) {
	if s == nil {
		f.null(e)
		return
	}
	e.key(f.key)
	e.b = append(e.b, '[')
	e.comma = false
	data := unsafe.Pointer(unsafe.SliceData(s))
	for i := range len(s) {
		el.p.write(e, unsafe.Add(data, uintptr(i)*el.size))
	}
	e.close(']')
}

// strings writes a []string (not omitempty, or not empty).
func (f *field) strings(e *enc, s []string) {
	if s == nil {
		f.null(e)
		return
	}
	e.key(f.key)
	e.b = appendStrings(e.b, s)
}

func appendStrings(b []byte, s []string) []byte {
	b = append(b, '[')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, x)
	}
	return append(b, ']')
}

// strings2 writes a [][]string: a table's rows.
func (f *field) strings2(e *enc, s [][]string) {
	if s == nil {
		f.null(e)
		return
	}
	e.key(f.key)
	e.b = append(e.b, '[')
	for i, x := range s {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if x == nil {
			e.b = append(e.b, "null"...)
		} else {
			e.b = appendStrings(e.b, x)
		}
	}
	e.b = append(e.b, ']')
}

// strMap writes a map[string]string, its keys in order, as encoding/json
// sorts them; nil is null, and omitempty leaves out an empty map too.
func (f *field) strMap(e *enc, m map[string]string) {
	switch {
	case f.omit && len(m) == 0:
		return
	case m == nil:
		f.null(e)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.key(f.key)
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(AppendString(e.b, k), ':')
		e.b = AppendString(e.b, m[k])
	}
	e.b = append(e.b, '}')
}
