package jsonw

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
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
// Only the kinds pgstudy's records use are known (string, bool, int,
// int64, uint32, uint64, float64, *int, *int64, *float64, *bool,
// []string, [][]string, structs of these, embedded or pointed to, slices
// of them or of pointers to them, map[string]string, map[string]any of
// what a JSON decoder gives, parse.Opt groups and parse.Opt[float64],
// [int64] and [bool]); a struct may contain itself through a pointer or a slice (a
// plan's tree of nodes). NewStruct refuses any other kind, a type with its
// own MarshalJSON or MarshalText but parse.Opt, two fields of one name
// (embedded ones included: encoding/json's rules for them are not
// followed), and any tag option but omitempty (and omitzero on a
// parse.Opt), rather than guess how encoding/json writes it.
type Struct[T any] struct {
	p   *plan
	err error // For's: why there is no plan
}

// NewStruct makes the plan of T; an error names a field it cannot write
// as encoding/json does.
func NewStruct[T any]() (*Struct[T], error) {
	t := reflect.TypeFor[T]()
	p, err := newPlanner().of(t, false)
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

// skip is how a field's value is known to be left out, from the word or
// the bool at its zero offset.
type skip uint8

const (
	skipNone skip = iota
	skipWord      // the word at zero is 0
	skipBool      // the bool at zero is false
)

// skipIf is skipWord where omit, else skipNone.
func skipIf(omit bool) skip {
	if omit {
		return skipWord
	}
	return skipNone
}

const (
	kString kind = iota
	kBool
	kInt
	kInt64
	kUint32
	kUint64
	kIntPtr    // *int64
	kFloatPtr  // *float64
	kBoolPtr   // *bool
	kIntP      // *int
	kFloat     // float64
	kSlice     // []S of a struct S, written by elem
	kStruct    // a struct, written by elem
	kOpt       // a parse.Opt[S] of a struct S: S written by elem, or null
	kPtr       // *S of a struct S, written by elem, or null
	kPtrSlice  // []*S of a struct S, written by elem
	kOptFloat  // a parse.Opt[float64]: the value or null
	kOptInt64  // a parse.Opt[int64]
	kOptBool   // a parse.Opt[bool]
	kStrings   // []string
	kStrings2  // [][]string
	kMapString // map[string]string, its keys sorted as encoding/json sorts them
	kMapAny    // map[string]any
)

// field is one field's plan, kept small (32 bytes): write reads one for
// each field of every record.
type field struct {
	key string // `,"name":`
	off uint32 // the field's offset in the struct
	// zero is the offset of the word that is 0 when the value is empty:
	// the value's own, or a string's or a slice's length; an Opt's Valid.
	zero uint32
	kind kind
	omit bool // omitempty: a zero value, nil or empty is left out
	// skip: how write tells, before anything else, a value left out:
	// omit, and the word at zero is 0 (an empty value's: not for a bool,
	// a uint32, nor an int64 wider than the word), or the bool there is
	// false (an Opt's Valid, with omitzero); none for the others.
	skip skip
	elem uint8 // a slice's element type or a struct's, in the plan's elems
}

// planner makes the plans of a type and of the types in it, once each:
// a type met again while its plan is being made (a node's children) gets
// that plan, finished by the time it is used.
type planner struct {
	plans map[planKey]*plan
}

// planKey is a type, and whether it is written inside a parse.Opt.
type planKey struct {
	t     reflect.Type
	inOpt bool
}

func newPlanner() *planner { return &planner{plans: map[planKey]*plan{}} }

// of reads the fields of struct type t. inOpt: t is written by
// parse.Opt's MarshalJSON, through json.Marshal, which escapes HTML in
// strings where the Encoder of pgstudy parse does not: a string there is
// refused rather than escaped.
func (pl *planner) of(t reflect.Type, inOpt bool) (*plan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("not a struct")
	}
	if err := ownJSON(t); err != nil {
		return nil, err
	}
	key := planKey{t, inOpt}
	if p := pl.plans[key]; p != nil {
		return p, nil
	}
	p := &plan{}
	pl.plans[key] = p
	if err := pl.fields(p, t, 0, inOpt, map[string]bool{}); err != nil {
		delete(pl.plans, key)
		return nil, err
	}
	return p, nil
}

// fields adds the fields of struct type t, at offset base in the struct
// p is the plan of, to p: an embedded struct's in its place, as
// encoding/json writes them. names are the keys so far.
func (pl *planner) fields(p *plan, t reflect.Type, base uintptr, inOpt bool, names map[string]bool) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if sf.Anonymous {
			if tag != "" || sf.Type.Kind() != reflect.Struct {
				return fmt.Errorf("field %s: only an embedded struct without a tag is supported", sf.Name)
			}
			if err := ownJSON(sf.Type); err != nil {
				return fmt.Errorf("field %s: %w", sf.Name, err)
			}
			if err := pl.fields(p, sf.Type, base+sf.Offset, inOpt, names); err != nil {
				return fmt.Errorf("field %s: %w", sf.Name, err)
			}
			continue
		}
		if !sf.IsExported() || tag == "-" {
			continue
		}
		sf.Offset += base
		f, el, err := pl.fieldOf(sf, tag, inOpt)
		if err != nil {
			return fmt.Errorf("field %s: %w", sf.Name, err)
		}
		if el.p != nil {
			if len(p.elems) > math.MaxUint8 {
				return fmt.Errorf("field %s: more than %d slices", sf.Name, math.MaxUint8+1)
			}
			f.elem = uint8(len(p.elems))
			p.elems = append(p.elems, el)
		}
		if names[f.key] {
			return fmt.Errorf("field %s: a second field named %s", sf.Name, f.key[1:len(f.key)-1])
		}
		names[f.key] = true
		p.fields = append(p.fields, f)
	}
	return nil
}

// fieldOf is the plan of one exported field whose json tag is tag, with
// that of its elements for a slice, or of its fields for a struct.
func (pl *planner) fieldOf(sf reflect.StructField, tag string, inOpt bool) (field, elem, error) {
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
	f := field{key: keyOf(name), off: uint32(sf.Offset), zero: uint32(sf.Offset)}
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
		return pl.optOf(f, t, omitzero)
	}
	if omitzero {
		return field{}, elem{}, fmt.Errorf("omitzero is supported on a parse.Opt only")
	}
	if err := ownJSON(t); err != nil {
		return field{}, elem{}, err
	}
	f.omit = omitempty
	if inOpt && (t.Kind() == reflect.String || t.Kind() == reflect.Map) {
		return field{}, elem{}, fmt.Errorf("a string in a parse.Opt is written HTML-escaped, which is not supported")
	}
	return pl.kindOf(f, t, inOpt)
}

// word is the size of a pointer, a length or an int.
const word = uint32(unsafe.Sizeof(uintptr(0)))

// kindOf completes f, a field of type t, with its kind, and the plan of
// its elements for a slice, of its fields for a struct.
func (pl *planner) kindOf(f field, t reflect.Type, inOpt bool) (field, elem, error) {
	switch k := t.Kind(); {
	case k == reflect.String:
		f.kind, f.zero = kString, f.off+word // its length
	case k == reflect.Bool:
		f.kind = kBool
	case k == reflect.Int:
		f.kind = kInt
	case k == reflect.Int64:
		f.kind = kInt64
	case k == reflect.Uint32:
		f.kind = kUint32
	case k == reflect.Uint64:
		f.kind = kUint64
	case k == reflect.Float64:
		f.kind = kFloat
	case k == reflect.Pointer && t.Elem().Kind() == reflect.Int64:
		f.kind = kIntPtr
	case k == reflect.Pointer && t.Elem().Kind() == reflect.Float64:
		f.kind = kFloatPtr
	case k == reflect.Pointer && t.Elem().Kind() == reflect.Bool:
		f.kind = kBoolPtr
	case k == reflect.Pointer && t.Elem().Kind() == reflect.Int:
		f.kind = kIntP
	case k == reflect.Map && t.Key() == reflect.TypeFor[string]() && t.Elem() == reflect.TypeFor[string]():
		f.kind = kMapString
	case k == reflect.Map && t.Key() == reflect.TypeFor[string]() && t.Elem() == reflect.TypeFor[any]():
		f.kind = kMapAny
	case k == reflect.Slice && t.Elem().Kind() != reflect.Struct && t.Elem().Kind() != reflect.Pointer:
		return stringsOf(f, t, inOpt)
	case k == reflect.Pointer || k == reflect.Slice || k == reflect.Struct:
		return pl.composite(f, t, inOpt)
	default:
		return field{}, elem{}, fmt.Errorf("type %s is not supported", t)
	}
	switch f.kind {
	case kString, kInt, kIntPtr, kFloatPtr, kBoolPtr, kIntP, kMapString, kMapAny:
		f.skip = skipIf(f.omit)
	case kInt64, kUint64:
		f.skip = skipIf(f.omit && word == 8)
	}
	return f, elem{}, nil
}

// stringsOf is the plan of a field f of type t, a slice not of structs:
// []string or [][]string, of strings encoding/json writes as strings (not
// of a type with its own JSON).
func stringsOf(f field, t reflect.Type, inOpt bool) (field, elem, error) {
	str := func(t reflect.Type) bool { return t.Kind() == reflect.String && ownJSON(t) == nil }
	switch {
	case inOpt:
		return field{}, elem{}, fmt.Errorf("a string in a parse.Opt is written HTML-escaped, which is not supported")
	case str(t.Elem()):
		f.kind = kStrings
	case t.Elem().Kind() == reflect.Slice && ownJSON(t.Elem()) == nil && str(t.Elem().Elem()):
		f.kind = kStrings2
	default:
		return field{}, elem{}, fmt.Errorf("type %s is not supported", t)
	}
	f.zero, f.skip = f.off+word, skipIf(f.omit) // its length
	return f, elem{}, nil
}

// composite completes f, a field of type t, a struct, a pointer to one,
// or a slice of either, with its kind and the plan of the struct.
func (pl *planner) composite(f field, t reflect.Type, inOpt bool) (field, elem, error) {
	var err error
	var el elem
	switch {
	case t.Kind() == reflect.Struct:
		el.p, err = pl.of(t, inOpt)
		f.kind, f.omit = kStruct, false // omitempty never leaves out a struct
	case t.Kind() == reflect.Pointer:
		el.p, err = pl.of(t.Elem(), inOpt)
		f.kind, f.skip = kPtr, skipIf(f.omit)
	case t.Elem().Kind() == reflect.Pointer:
		if err = ownJSON(t.Elem()); err == nil {
			el.p, err = pl.of(t.Elem().Elem(), inOpt)
		}
		f.kind, f.zero, f.skip = kPtrSlice, f.off+word, skipIf(f.omit) // its length
	default:
		el = elem{size: t.Elem().Size()}
		el.p, err = pl.of(t.Elem(), inOpt)
		f.kind, f.zero, f.skip = kSlice, f.off+word, skipIf(f.omit) // its length
	}
	if err != nil {
		if t.Kind() != reflect.Struct {
			err = fmt.Errorf("element: %w", err)
		}
		return field{}, elem{}, err
	}
	return f, el, nil
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
func (pl *planner) optOf(f field, t reflect.Type, omitzero bool) (field, elem, error) {
	v, ok1 := t.FieldByName("V")
	valid, ok2 := t.FieldByName("Valid")
	if !ok1 || !ok2 || valid.Type.Kind() != reflect.Bool {
		return field{}, elem{}, fmt.Errorf("%s has no V and Valid bool", t)
	}
	f.omit = omitzero
	if omitzero {
		f.skip = skipBool
	}
	f.zero = f.off + uint32(valid.Offset)
	f.off += uint32(v.Offset)
	// A number's or a bool's MarshalJSON is json.Marshal of it, which is
	// what an Encoder writes of it; a named type may have its own.
	switch v.Type {
	case reflect.TypeFor[float64]():
		f.kind = kOptFloat
		return f, elem{}, nil
	case reflect.TypeFor[int64]():
		f.kind = kOptInt64
		return f, elem{}, nil
	case reflect.TypeFor[bool]():
		f.kind = kOptBool
		return f, elem{}, nil
	}
	if v.Type.Kind() != reflect.Struct {
		return field{}, elem{}, fmt.Errorf("%s: only an Opt of a struct, a float64, an int64 or a bool is supported", t)
	}
	p, err := pl.of(v.Type, true)
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

// keyOf is a field's key as enc.key writes it, `,"name":`, in memory
// that can be read keyWords bytes on from its second byte.
func keyOf(name string) string {
	k := `,"` + name + `":`
	b := make([]byte, len(k), len(k)+keyWords)
	copy(b, k)
	return unsafe.String(&b[0], len(k))
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
