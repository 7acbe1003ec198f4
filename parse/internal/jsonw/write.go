package jsonw

import (
	"strconv"
	"unsafe"
)

// The writing half of a Struct: a plan walked over a record's memory.

// write writes the struct at v as an object: each field read at its
// offset as the kind the plan was made from says.
func (p *plan) write(e *enc, v unsafe.Pointer) {
	if !e.enter() {
		return
	}
	e.room()
	e.open()
	fields := p.fields // held in a register: the appends below may not change it
	for i := range fields {
		f := &fields[i]
		if f.skip != skipNone && f.empty(v) {
			continue // omitempty (omitzero), and empty: most of a record's fields
		}
		at := unsafe.Add(v, f.off)
		if f.kind < kSlice {
			f.scalar(e, at)
		} else {
			f.composite(e, at, v, p)
		}
	}
	e.close('}')
	e.depth--
}

// empty reports whether the value of f, a field of the struct at v, is
// one its skip leaves out.
func (f *field) empty(v unsafe.Pointer) bool {
	if f.skip == skipWord {
		return *(*uintptr)(unsafe.Add(v, f.zero)) == 0
	}
	return !*(*bool)(unsafe.Add(v, f.zero))
}

// scalar writes a field of a kind without a plan of its own, at at.
func (f *field) scalar(e *enc, at unsafe.Pointer) {
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
		e.keyInt(f.key, int64(*(*int)(at)))
	case kInt64:
		if x := *(*int64)(at); x != 0 || !f.omit {
			e.keyInt(f.key, x)
		}
	case kUint32:
		if x := *(*uint32)(at); x != 0 || !f.omit {
			e.keyUint(f.key, uint64(x), false)
		}
	case kUint64:
		if x := *(*uint64)(at); x != 0 || !f.omit {
			e.keyUint(f.key, x, false)
		}
	case kFloat:
		if x := *(*float64)(at); x != 0 || !f.omit {
			e.key(f.key)
			e.float(x)
		}
	case kIntP:
		if x := *(**int)(at); x != nil {
			e.keyInt(f.key, int64(*x))
		} else {
			f.null(e)
		}
	case kIntPtr:
		if x := *(**int64)(at); x != nil {
			e.keyInt(f.key, *x)
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
	case kBoolPtr:
		if x := *(**bool)(at); x != nil {
			e.key(f.key)
			e.b = strconv.AppendBool(e.b, *x)
		} else {
			f.null(e)
		}
	}
}

// composite writes a field of the struct at v, at at, whose kind has a
// plan (p's elems) or is a map.
func (f *field) composite(e *enc, at, v unsafe.Pointer, p *plan) {
	switch f.kind {
	case kSlice:
		f.slice(e, *(*[]byte)(at), p.elems[f.elem], false) // any slice's header: its length in elements
	case kPtrSlice:
		f.slice(e, *(*[]byte)(at), p.elems[f.elem], true)
	case kStruct:
		f.object(e, at, p.elems[f.elem].p)
	case kPtr:
		if x := *(*unsafe.Pointer)(at); x != nil {
			f.object(e, x, p.elems[f.elem].p)
		} else {
			f.null(e)
		}
	case kOpt:
		if *(*bool)(unsafe.Add(v, f.zero)) {
			f.object(e, at, p.elems[f.elem].p)
		} else if !f.omit {
			f.null(e)
		}
	case kOptFloat, kOptInt64, kOptBool:
		f.optNumber(e, at, *(*bool)(unsafe.Add(v, f.zero)))
	default:
		f.pointed(e, at)
	}
}

// pointed writes the field at at of the kinds that point to their
// values without a plan: strings in a slice or a map, a map of values.
func (f *field) pointed(e *enc, at unsafe.Pointer) {
	switch f.kind {
	case kStrings:
		f.strings(e, *(*[]string)(at))
	case kStrings2:
		f.strings2(e, *(*[][]string)(at))
	case kMapString:
		if m := *(*map[string]string)(at); m == nil {
			f.null(e)
		} else if len(m) > 0 || !f.omit {
			e.key(f.key)
			e.mapString(m)
		}
	case kMapAny:
		if m := *(*map[string]any)(at); len(m) > 0 || !f.omit {
			e.key(f.key)
			e.mapAny(m)
		}
	}
}

// optNumber writes the parse.Opt of a number (or a bool) whose value is
// at at: the value, or null when not valid (left out for omitzero).
func (f *field) optNumber(e *enc, at unsafe.Pointer, valid bool) {
	switch {
	case !valid:
		if !f.omit {
			f.null(e)
		}
	case f.kind == kOptFloat:
		e.key(f.key)
		e.float(*(*float64)(at))
	case f.kind == kOptBool:
		e.key(f.key)
		e.b = strconv.AppendBool(e.b, *(*bool)(at))
	default:
		e.keyInt(f.key, *(*int64)(at))
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

// slice writes a slice of structs, or of pointers to structs (ptrs), s
// its header as a []byte: its data and its length in elements.
func (f *field) slice(e *enc, s []byte, el elem, ptrs bool) {
	if s == nil {
		f.null(e)
		return
	}
	e.key(f.key)
	e.b = append(e.b, '[')
	e.comma = false
	data := unsafe.Pointer(unsafe.SliceData(s))
	for i := range len(s) {
		if !ptrs {
			el.p.write(e, unsafe.Add(data, uintptr(i)*el.size))
			continue
		}
		if x := *(*unsafe.Pointer)(unsafe.Add(data, uintptr(i)*uintptr(word))); x != nil {
			el.p.write(e, x)
		} else {
			if e.comma {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, "null"...)
			e.comma = true
		}
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
