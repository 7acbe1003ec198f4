package jsonw

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
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
// int, int64, *int64, *float64, and slices of such structs); NewStruct
// refuses any other, and any tag option but omitempty, rather than guess
// how encoding/json writes it.
type Struct[T any] struct{ p *plan }

// NewStruct makes the plan of T; an error names a field it cannot write
// as encoding/json does.
func NewStruct[T any]() (*Struct[T], error) {
	t := reflect.TypeFor[T]()
	p, err := planOf(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, fmt.Errorf("jsonw: %s: %w", t, err)
	}
	return &Struct[T]{p}, nil
}

// Append appends v as an object. It fails with ErrUnsupported where
// encoding/json fails (a NaN or infinite float), for the caller to let
// encoding/json write v and report its error.
func (s *Struct[T]) Append(b []byte, v *T) ([]byte, error) {
	e := enc{b: b}
	s.p.write(&e, unsafe.Pointer(v))
	return e.b, e.err
}

// plan is how the fields of one struct type are written, in their order.
type plan struct {
	fields []field
	elems  []elem // the element types of its slices
}

// elem is how a slice's elements are written.
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
	kIntPtr   // *int64
	kFloatPtr // *float64
	kSlice    // []S of a struct S, written by elem
)

// field is one field's plan, kept small (32 bytes): write reads one for
// each field of every record.
type field struct {
	key string // `"name":`
	off uint32 // the field's offset in the struct
	// zero is the offset of the word that is 0 when the value is empty:
	// the value's own, or a string's or a slice's length.
	zero uint32
	kind kind
	omit bool // omitempty: a zero value, nil or empty is left out
	// skip: omit, and the word at zero tells an empty value (not for a
	// bool, nor an int64 wider than the word).
	skip bool
	elem uint8 // a slice's element type, in the plan's elems
}

// planOf reads the fields of struct type t; seen holds the types being
// read, to refuse a type that contains itself.
func planOf(t reflect.Type, seen map[reflect.Type]bool) (*plan, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("not a struct")
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
		f, el, err := fieldOf(sf, tag, seen)
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
// that of its elements for a slice.
func fieldOf(sf reflect.StructField, tag string, seen map[reflect.Type]bool) (field, elem, error) {
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
	for opt := range strings.SplitSeq(opts, ",") {
		switch opt {
		case "omitempty":
			f.omit = true
		case "":
		default:
			return field{}, elem{}, fmt.Errorf("tag option %q is not supported", opt)
		}
	}
	t := sf.Type
	switch {
	case t.Kind() == reflect.String:
		f.kind, f.zero = kString, f.off+uint32(unsafe.Sizeof(uintptr(0))) // its length
	case t.Kind() == reflect.Bool:
		f.kind = kBool
	case t.Kind() == reflect.Int:
		f.kind = kInt
	case t.Kind() == reflect.Int64:
		f.kind = kInt64
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Int64:
		f.kind = kIntPtr
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Float64:
		f.kind = kFloatPtr
	case t.Kind() == reflect.Slice:
		p, err := planOf(t.Elem(), seen)
		if err != nil {
			return field{}, elem{}, fmt.Errorf("element: %w", err)
		}
		f.kind, f.zero = kSlice, f.off+uint32(unsafe.Sizeof(uintptr(0))) // its length
		f.skip = f.omit
		return f, elem{p, t.Elem().Size()}, nil
	default:
		return field{}, elem{}, fmt.Errorf("type %s is not supported", t)
	}
	f.skip = f.omit && f.kind != kBool && (f.kind != kInt64 || unsafe.Sizeof(uintptr(0)) == 8)
	return f, elem{}, nil
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
		}
	}
	e.close('}')
}

// null writes a nil pointer or slice (not omitempty).
func (f *field) null(e *enc) {
	e.key(f.key)
	e.b = append(e.b, "null"...)
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
