package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/pgstudy/pgstudy/parse"
)

// parseOutput writes what parse read: with --format json one document, an
// array of each file's result (parsed), indented as it is written; with
// jsonl a line per record. Warnings go to standard error as they come.
type parseOutput struct {
	out   *recordOut
	ind   *indenter     // json: the document
	enc   *json.Encoder // compact JSON, into ind (json) or out (jsonl)
	jsonl bool
	std   streams
	files int // results written (json)
	warns fileWarnings
	buf   []byte // a record written by its appendJSON, reused
	// jsonl: the start of a line of the file being read, `{"file":"name","record":`.
	lineFile  string
	lineStart []byte
	// encodingJSON: every record is written by encoding/json (the tests
	// compare the two ways).
	encodingJSON bool
}

// maxWarnings is how many warnings of a file are printed and kept in the
// document; the others are counted. A file of nothing but lines not
// understood (a log of another program) gives one a line: all of them
// would be as large as the file on standard error, and several times its
// size in memory until the document is written.
const maxWarnings = 1000

// fileWarnings are the warnings of the file being read: the first
// maxWarnings, printed and kept for the document, and the number of the
// others.
type fileWarnings struct {
	kept    []parse.Warning
	omitted int
}

// appendJSON is a record that writes itself as encoding/json would, with
// SetEscapeHTML(false) and without the newline, several times faster (a
// streamed kind's records come by the million); an error means
// encoding/json must write it (and fail as it fails).
type appendJSON interface {
	AppendJSON(b []byte) ([]byte, error)
}

// newParseOutput writes to std.out, holding gate (nil: none) during each
// write.
func newParseOutput(std streams, format string, gate *sync.Mutex) *parseOutput {
	jsonl := format == "jsonl"
	o := &parseOutput{out: &recordOut{w: std.out, gate: gate, anywhere: !jsonl}, jsonl: jsonl, std: std}
	if o.jsonl {
		o.enc = json.NewEncoder(o.out)
	} else {
		o.ind = &indenter{w: o.out, depth: 1}
		o.enc = json.NewEncoder(o.ind)
		o.out.WriteString("[")
	}
	o.enc.SetEscapeHTML(false)
	return o
}

// jsonlRecord is a line of --format jsonl.
type jsonlRecord struct {
	File   string `json:"file"`
	Record any    `json:"record"`
}

// warn prints a warning on standard error, and keeps it for the
// document: the first maxWarnings of a file; the others are counted.
func (o *parseOutput) warn(w parse.Warning) {
	if len(o.warns.kept) >= maxWarnings {
		o.warns.omitted++
		return
	}
	fmt.Fprintf(o.std.err, "warning: %s\n", oneLine(w.String()))
	o.warns.kept = append(o.warns.kept, w)
}

// oneLine is terminalSafe(s) on one line: a warning is a line of standard
// error, whose file name may hold a newline.
func oneLine(s string) string {
	return strings.ReplaceAll(terminalSafe(s), "\n", `\n`)
}

// endWarnings says how many warnings of source were not printed.
func (o *parseOutput) endWarnings(source string) {
	if o.warns.omitted > 0 {
		fmt.Fprintf(o.std.err, "warning: %s: %d more warnings not shown (the first %d are)\n",
			oneLine(source), o.warns.omitted, maxWarnings)
	}
}

// whole writes the result of a file read at once, and returns the file's
// error and the output's; in json, one that failed has its warnings and
// its error, and no records.
func (o *parseOutput) whole(source string, v any, warnings []parse.Warning, err error) (readErr, writeErr error) {
	o.warns = fileWarnings{}
	for _, w := range warnings {
		o.warn(w)
	}
	o.endWarnings(source)
	if err != nil && err != errInterrupted {
		return err, o.failed(source, err)
	}
	var recs []any
	if o.jsonl {
		recs = records(v)
		for i, rec := range recs {
			recs[i] = jsonlRecord{source, rec}
		}
	} else {
		res := parsed{File: source, Records: v, Warnings: o.warns.kept, WarningsOmitted: o.warns.omitted}
		if err != nil {
			res.Error = err.Error()
		}
		recs = []any{res}
	}
	for i, rec := range recs {
		o.buf = o.buf[:0]
		b, jerr := appendEncoded(o.buf, rec)
		if uerr := unwritable(source, i, len(recs), jerr); uerr != nil {
			return uerr, o.failed(source, uerr)
		}
		o.buf = b
		if o.jsonl {
			_, writeErr = o.out.Write(b)
		} else {
			o.next()
			_, writeErr = o.ind.Write(b)
		}
		if writeErr == nil {
			writeErr = o.out.end()
		}
		if writeErr != nil {
			return err, writeErr
		}
	}
	return err, nil
}

// appendEncoded appends v as parse's encoder writes it (without HTML
// escaping, with its newline).
func appendEncoded(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// unwritable is the error of a file whose record JSON cannot hold (a NaN
// or an infinity a parser let through): the file's, so that the other
// files are written; nil for any other error (a failed write stops
// parse). i is the record's index among n.
func unwritable(source string, i, n int, err error) error {
	if err == nil {
		// Before the variables errors.As is given, which escape: two
		// allocations a record, two fifths of pgstudy parse psql's.
		return nil
	}
	var uv *json.UnsupportedValueError
	var me *json.MarshalerError
	if !errors.As(err, &uv) && !errors.As(err, &me) {
		return nil
	}
	if uv != nil {
		// The value itself, also where a parse.Opt's MarshalJSON failed
		// on it: encoding/json names the Opt's type around it, which says
		// nothing to a user (a *float64 figure gave the value alone).
		err = uv
	}
	if n == 1 {
		return fmt.Errorf("%s: its result holds a value JSON cannot hold (%v); nothing of it is written", source, err)
	}
	return fmt.Errorf("%s: record %d holds a value JSON cannot hold (%v); the records before it are written", source, i+1, err)
}

// failed writes, in json, the result of a file that gave no record: its
// warnings and its error (it goes to standard error too). In jsonl, which
// has a line a record, nothing.
func (o *parseOutput) failed(source string, err error) error {
	if o.jsonl {
		return nil
	}
	o.next()
	if err := o.enc.Encode(parsed{File: source, Records: []struct{}{}, Warnings: o.warns.kept,
		WarningsOmitted: o.warns.omitted, Error: err.Error()}); err != nil {
		return err
	}
	return o.out.end()
}

// stream writes the records of a file as they are read, and returns the
// file's error and the output's. In json, the file's result opens with its
// first record, and is what the file read at once would give: a file that
// fails has its error in "error", after the records read before it, if
// any. Writing stops at the output's first error, which stops the
// reading.
func (o *parseOutput) stream(source string, recs iter.Seq2[any, error]) (readErr, writeErr error) {
	o.warns = fileWarnings{kept: o.warns.kept[:0]}
	defer o.endWarnings(source)
	n := 0
	for rec, err := range recs {
		if err != nil {
			readErr = err // the last pair
			break
		}
		switch {
		case o.jsonl:
			writeErr = o.jsonlRecord(source, rec)
		case n == 0:
			o.open(source)
			writeErr = o.record(rec)
		default:
			o.ind.Write([]byte{','})
			writeErr = o.record(rec)
		}
		if writeErr == nil {
			writeErr = o.out.end()
		}
		if err := unwritable(source, n, 0, writeErr); err != nil {
			readErr, writeErr = err, nil
			break
		}
		if writeErr != nil {
			return readErr, writeErr
		}
		n++
	}
	if o.jsonl {
		return readErr, nil
	}
	if n == 0 {
		o.open(source)
	}
	return readErr, o.closeFile(readErr)
}

// closeFile writes the rest of a streamed file's result in the document,
// after its records, as the encoding of parsed writes it.
func (o *parseOutput) closeFile(readErr error) error {
	o.ind.Write([]byte{']'})
	var err error
	if len(o.warns.kept) > 0 {
		o.ind.Write([]byte(`,"warnings":`))
		err = o.enc.Encode(o.warns.kept)
	}
	if o.warns.omitted > 0 {
		fmt.Fprintf(o.ind, `,"warnings_omitted":%d`, o.warns.omitted)
	}
	if readErr != nil && err == nil {
		o.ind.Write([]byte(`,"error":`))
		err = o.enc.Encode(readErr.Error())
	}
	o.ind.Write([]byte{'}'})
	if err != nil {
		return err
	}
	return o.out.end()
}

// jsonlRecord writes a line of --format jsonl, as encoding/json writes
// jsonlRecord{source, rec}.
func (o *parseOutput) jsonlRecord(source string, rec any) error {
	a, ok := rec.(appendJSON)
	if !ok || o.encodingJSON {
		return o.enc.Encode(jsonlRecord{source, rec})
	}
	if o.lineStart == nil || source != o.lineFile {
		o.lineFile, o.lineStart = source, append(appendJSONString([]byte(`{"file":`), source), `,"record":`...)
	}
	mark := len(o.out.buf)
	b, err := a.AppendJSON(append(o.out.buf, o.lineStart...))
	if err != nil {
		o.out.buf = b[:mark]
		return o.enc.Encode(jsonlRecord{source, rec})
	}
	o.out.buf = append(b, '}', '\n')
	return nil
}

// record writes a record of --format json into the document, as
// encoding/json writes it.
func (o *parseOutput) record(rec any) error {
	a, ok := rec.(appendJSON)
	if !ok || o.encodingJSON {
		return o.enc.Encode(rec)
	}
	b, err := a.AppendJSON(o.buf[:0])
	if err != nil {
		return o.enc.Encode(rec)
	}
	o.buf = append(b, '\n')
	_, err = o.ind.Write(o.buf)
	return err
}

// appendJSONString appends s as encoding/json writes it without HTML
// escaping: a file's name, once a file.
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// open writes the start of a file's result, up to its first record.
func (o *parseOutput) open(source string) {
	o.next()
	o.ind.Write([]byte(`{"file":`))
	o.enc.Encode(source)
	o.ind.Write([]byte(`,"records":[`))
}

// next starts a file's result in the document.
func (o *parseOutput) next() {
	if o.files > 0 {
		o.out.WriteString(",")
	}
	o.out.WriteString("\n  ")
	o.files++
}

// close ends the document and writes what is buffered.
func (o *parseOutput) close() error {
	if !o.jsonl {
		if o.files > 0 {
			o.out.WriteString("\n")
		}
		o.out.WriteString("]\n")
	}
	return o.out.flush()
}
