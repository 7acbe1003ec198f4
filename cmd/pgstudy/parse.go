package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/cgroupio"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/parse/explain"
	"github.com/pgstudy/pgstudy/parse/pgbench"
	"github.com/pgstudy/pgstudy/parse/psql"
	"github.com/pgstudy/pgstudy/parse/sysbench"
	"github.com/pgstudy/pgstudy/parse/vacuum"
	"github.com/pgstudy/pgstudy/samples/infile"
)

// parser reads one kind of raw output: at once (run), or a record at a
// time (stream), which parse then writes as it reads.
type parser struct {
	help   string
	run    func(r io.Reader, source string) (any, []parse.Warning, error)
	stream func(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[any, error]
	// compressed: the input may be gzip, bzip2 or zstd, told by its first
	// bytes (a rotated server log is).
	compressed bool
}

// wrap adapts a parser's typed result.
func wrap[T any](f func(io.Reader, string) (T, []parse.Warning, error)) func(io.Reader, string) (any, []parse.Warning, error) {
	return func(r io.Reader, source string) (any, []parse.Warning, error) {
		v, w, err := f(r, source)
		return v, w, err
	}
}

// wrapSeq adapts a parser's typed records. Each record is handed out in
// the same variable, valid until the next: a record written as it is read
// is not kept, and a copy of each on the heap cost a tenth of writing a
// server log's.
func wrapSeq[T any](f func(io.Reader, string, func(parse.Warning)) iter.Seq2[T, error]) func(io.Reader, string, func(parse.Warning)) iter.Seq2[any, error] {
	return func(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[any, error] {
		return func(yield func(any, error) bool) {
			cur := new(T)
			for v, err := range f(r, source, warn) {
				*cur = v
				if !yield(cur, err) {
					return
				}
			}
		}
	}
}

var parsers = map[string]parser{
	"psql":           {help: "psql output: a record a statement (echo, result tables, Time: line, messages), meta-command, message or marker; written as read", stream: wrapSeq(psql.ParseSeq)},
	"vacuum":         {help: "VACUUM (VERBOSE) output as psql prints it, 13 to 18; written as read", stream: wrapSeq(vacuum.ParseSeq)},
	"vacuum-notices": {help: "VACUUM (VERBOSE) notices as JSON lines (severity, message, detail, ...); written as read", stream: wrapSeq(vacuum.NoticesSeq)},
	"autovacuum-log": {help: "automatic vacuum entries of a server log: stderr (any log_line_prefix), csvlog, jsonlog, syslog or journald; gzip, bzip2 or zstd; written as read", stream: wrapSeq(vacuum.AutovacuumSeq), compressed: true},
	"explain":        {help: "EXPLAIN output, JSON or TEXT (told apart by its first character)", run: wrap(explainAny)},
	"diskstats":      {help: "copies of /proc/diskstats, a record a device line; written as read", stream: wrapSeq(diskstats.ParseSeq)},
	"cgroup-io.stat": {help: "a cgroup v2 io.stat", run: wrap(cgroupio.ParseIOStat)},
	"cgroup-blkio":   {help: "a cgroup v1 blkio file (blkio.throttle.io_service_bytes, io_serviced)", run: wrap(cgroupio.ParseRWStat)},
	"pgbench":        {help: "pgbench output: a record a -P progress line and message, then the summary; written as read", stream: wrapSeq(pgbench.ParseSeq)},
	"sysbench":       {help: "sysbench output: a record a --report-interval line and message, then the report; written as read", stream: wrapSeq(sysbench.ParseSeq)},
}

// explainAny reads EXPLAIN as JSON or TEXT, told apart by its first
// character (explain.Parse), into a record with the plan's shape and
// fingerprint.
func explainAny(r io.Reader, source string) (*explain.Record, []parse.Warning, error) {
	p, w, err := explain.Parse(r, source)
	if err != nil {
		return nil, w, err
	}
	return explain.NewRecord(p), w, nil
}

func parseKinds() string {
	var kinds []string
	for k := range parsers {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %-15s %s\n", k, parsers[k].help)
	}
	return b.String()
}

// parseOptions are the kind of output to parse and the files that hold it.
type parseOptions struct {
	kind   string
	files  []string // "-" is standard input
	format string   // json or jsonl
}

func newParseCmd(run runFunc[parseOptions]) *cobra.Command {
	if run == nil {
		run = parseRun
	}
	var o parseOptions
	cmd := &cobra.Command{
		Use:   "parse KIND FILE...",
		Short: "Print the typed records of raw outputs (psql, vacuum, explain, diskstats, ...)",
		Long: `Parse raw outputs and print their typed records, to look at them or to feed a
script. FILE - reads standard input. Lines a parser did not understand are
reported on standard error with their line numbers, the first 1,000 of a file
and then how many more (--format json lists the same in the file's "warnings"
and "warnings_omitted"); a file that is not of the kind named is an error.

A server log (autovacuum-log), VACUUM (VERBOSE) output (vacuum, and as notices,
vacuum-notices), psql output (a record a statement, with its result tables),
/proc/diskstats (a record a device line, however many snapshots the file
holds) and pgbench and sysbench output (a record a progress line, its "kind"
saying which) are written as they are read, a record at a time, in memory that
does not grow with the file but with its largest record (a psql statement's
result of 44 MB takes about 370 MB). A file found bad part-way keeps the
records read before the bad line: in --format jsonl as lines, in --format json
in the file's result, with the error in its "error"; the error, naming the file
and the line, is printed and the exit status is 1. In --format json every file
named has a result: one that could not be read or gave no record has an empty
"records" and its "error". The other kinds are read whole, then written.

Output is written a whole record at a time: stopped by a signal, parse exits
130 (SIGINT) or 143 (SIGTERM), with whole lines of jsonl, and a whole --format
json document whose last result says in "error" that the rest of its file was
not read (a kind read whole still being read 3 s after the signal leaves the
document cut); a write that fails (a full disk) stops it at once; records read from a pipe (tail -f FILE | pgstudy parse KIND -,
a FIFO or <(command) named as FILE) are written before parse waits for more,
each once its last line is read (an autovacuum entry's "system usage" line; the
text cannot tell the end of 13's and 14's VACUUM VERBOSE tables, which wait for
the next message). A signal to parse reading a pipe ends the input there: what
it held is written, then it exits 130 or 143. An input not of the kind named is
refused at its first lines (autovacuum-log: psql's output; vacuum: a server
log).

Kinds:
` + parseKinds(),
		Example: `  pgstudy parse vacuum vacuum.log
  pgstudy parse explain plan.json | jq '.shape'
  pgstudy parse diskstats --format jsonl before.txt after.txt
  cat /proc/diskstats | pgstudy parse diskstats -
  pgstudy parse psql --format jsonl <(ssh db cat run.out)`,
		RunE: runE(&o, run),
	}
	cmd.Flags().StringVar(&o.format, "format", "json", "json (one document) or jsonl (one record per line)")
	return cmd
}

// validate takes the arguments into o and checks them.
func (o *parseOptions) validate(args []string) error {
	if len(args) < 2 {
		return usagef("parse takes a kind and at least one file; kinds:\n%s", parseKinds())
	}
	if _, ok := parsers[args[0]]; !ok {
		return usagef("unknown kind %q; kinds:\n%s", args[0], parseKinds())
	}
	if o.format != "json" && o.format != "jsonl" {
		return usagef("--format must be json or jsonl, found %q", o.format)
	}
	o.kind, o.files = args[0], args[1:]
	return nil
}

// parsed is one file's result in --format json. Error is set for a file
// that failed: before any record (Records is then empty), or after some
// were written (a file read a record at a time), or that a signal
// stopped; every file named has its result, the document says of each
// what became of it.
type parsed struct {
	File     string          `json:"file"`
	Records  any             `json:"records"`
	Warnings []parse.Warning `json:"warnings,omitempty"`
	// WarningsOmitted counts the warnings after the first maxWarnings,
	// neither printed nor listed.
	WarningsOmitted int    `json:"warnings_omitted,omitempty"`
	Error           string `json:"error,omitempty"`
}

// parseRun parses each file and prints its records, and each warning on
// standard error. Each file's result is written when it is parsed, or as
// it is read, and not kept: the memory of parse is that of its largest
// file, or of a record for the kinds read a record at a time. A signal
// ends the input (see endable; a regular file's at the next record), and
// the file's result says so; the files after it are not read.
func parseRun(ctx context.Context, o *parseOptions, std streams) error {
	p := parsers[o.kind]
	var gate *sync.Mutex
	var ended <-chan struct{} // closed by a signal: the input ends there
	s, _ := ctx.Value(stopperKey{}).(*stopper)
	if s != nil {
		gate, ended = &s.gate, s.endInput()
	}
	out := newParseOutput(std, o.format, gate)
	out.out.floor = startHeapFloor()
	defer out.out.floor.stop()
	waiting := func(r io.Reader) io.Reader {
		if ended != nil {
			r = newEndable(r, ended)
		}
		return flushing{r, out.out}
	}
	stdin := input{r: std.in, waits: mayWait(std.in)}
	var errs []error
	for _, name := range o.files {
		if isClosed(ended) {
			break // the files after it are not read
		}
		in, source, done, err := openParsed(name, stdin, p.compressed, waiting)
		r, chk := checkUTF8(in.r)
		if err != nil {
			errs = append(errs, err)
			if werr := out.failed(displayName(name), err); werr != nil {
				return werr
			}
			continue
		}
		var werr error
		if p.stream != nil {
			err, werr = out.stream(source, thenWarn(untilEnded(p.stream(r, source, out.warn), ended, !in.waits), chk, source, out.warn, in.decomp))
		} else {
			v, warnings, perr := p.run(r, source)
			perr = damaged(perr, in.decomp)
			if w := chk.warning(source); w != nil {
				warnings = append(warnings, *w)
			}
			if perr == nil && isClosed(ended) {
				perr = errInterrupted
			}
			err, werr = out.whole(source, v, warnings, perr)
		}
		done()
		if werr != nil {
			return werr
		}
		if err != nil && err != errInterrupted {
			errs = append(errs, err)
		}
	}
	if err := out.close(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// errInterrupted is the error of a file a signal stopped, in its result
// (standard error has said so already, and the exit code says it).
var errInterrupted = errors.New("interrupted by a signal: the records are those read before it, the rest of the input was not read")

// untilEnded is recs up to a signal (ended closed): the records of an
// input that stops reading at the next record (a regular file, stops),
// all of them for one the signal ended where it was (a pipe, which ends
// at a line's end, see endable); then errInterrupted.
func untilEnded(recs iter.Seq2[any, error], ended <-chan struct{}, stops bool) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for rec, err := range recs {
			if err == nil && stops && isClosed(ended) {
				break
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
		if isClosed(ended) {
			yield(nil, errInterrupted)
		}
	}
}

// displayName is how a file named on the command line is named in the
// output: standard input as <stdin>.
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// isClosed reports whether ch, which may be nil, is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// openParsed opens a file to parse ("-" is standard input), decompressed
// when the kind may be compressed. done closes it. A named pipe (a FIFO,
// <(command), /dev/stdin on a pipe) is read as standard input is, its
// records written as they come (waiting: wraps it so): naming one to parse
// is asking to wait for its writer, which the other commands refuse. An
// input that waits is wrapped after its decompressor: waiting hands out
// whole lines, which a compressed stream's bytes are not (a gzip, bzip2
// or zstd stream on a pipe left open had its last bytes held back, and
// lost to a signal).
func openParsed(name string, stdin input, compressed bool, waiting func(io.Reader) io.Reader) (in input, source string, done func(), err error) {
	in = stdin
	source, done = "<stdin>", func() {}
	if name != "-" {
		f, fifo, err := infile.OpenStream(name)
		in.waits = fifo
		if err != nil {
			return input{}, "", nil, err
		}
		in.r, source, done = f, name, func() { f.Close() }
	}
	if compressed {
		d := infile.Decompressed(in.r, infile.MaxDecompressed)
		closeFile := done
		in.r, in.decomp, done = d, d, func() { d.Close(); closeFile() }
	}
	if in.waits {
		in.r = waiting(in.r)
	}
	return in, source, done, nil
}

// input is a reader to parse, and whether it may wait for more (a pipe,
// a terminal) rather than end (a regular file).
type input struct {
	r     io.Reader
	waits bool
	// decomp is the decompressing reader under r, of a kind read
	// compressed: a parser's refusal may be the damage it finds later.
	decomp io.Reader
}

// records splits a parser's result into records: a slice gives one per
// element, anything else is one record.
func records(v any) []any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return []any{v}
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}
