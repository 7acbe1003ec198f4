// Package infile opens the files pgstudy reads (study files, manifests,
// raw outputs, capture parts) so that a wrong one is an error, never a hang
// or an unbounded read: only a regular file is read, a FIFO is opened
// without blocking and refused, and a whole-file read stops at a size
// limit that names the file. A server log may be read compressed
// (Decompressed: gzip, bzip2 or zstd, told by its first bytes, streamed,
// and bounded in what it decompresses to).
package infile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Kind names what a file that is not a regular file is, for an error
// message: "a FIFO", "a folder", "a device".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// NotRegular is the error for an input that is not a regular file.
type NotRegular struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegular) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: pgstudy reads inputs from regular files (or - for standard input)", e.Path, Kind(e.Mode))
}

// check refuses a file that is not a regular file.
func check(path string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return &NotRegular{Path: path, Mode: info.Mode()}
	}
	return nil
}

// Open opens path for reading if it is a regular file (after symbolic
// links). A FIFO is opened without blocking, so that one with no writer
// cannot hang pgstudy, and then refused like a device or a folder.
func Open(path string) (*os.File, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := check(path, st); err != nil {
		f.Close()
		return nil, err
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenStream opens path for reading as Open does, and also a FIFO, which
// it reports: opened once, without blocking, then waited on until it has
// data or its writer has gone. (Opened a second time, blocking, a FIFO
// whose writer had written and gone in between lost what it wrote, and
// the open waited for ever.)
func OpenStream(path string) (f *os.File, fifo bool, err error) {
	f, err = openNonblocking(path)
	if err != nil {
		return nil, false, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	fifo = st.Mode()&fs.ModeNamedPipe != 0
	if !fifo {
		err = check(path, st)
	} else {
		err = waitReadable(f)
	}
	if err == nil {
		err = setBlocking(f)
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, fifo, nil
}

// TooLarge is the error for an input larger than what pgstudy reads whole.
type TooLarge struct {
	Path  string
	Limit int64
	What  string
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most pgstudy reads of %s", e.Path, bytesText(e.Limit), e.What)
}

// ReadFile reads a regular file whole, refusing one larger than limit
// bytes; what names the kind of file in that error ("a study file").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit, what)
}

// ReadAll reads r whole, refusing more than limit bytes.
func ReadAll(r io.Reader, path string, limit int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLarge{Path: path, Limit: limit, What: what}
	}
	return b, nil
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// LineTooLong is the error of a lines reader: line Line passed Max bytes.
type LineTooLong struct{ Line, Max int }

func (e *LineTooLong) Error() string {
	return fmt.Sprintf("line %d is longer than %s", e.Line, bytesText(int64(e.Max)))
}

// lines wraps r so that reading fails with a *LineTooLong once a line
// passes max bytes: a reader that does not bound its lines itself
// (encoding/csv) would hold a line of a gigabyte whole, several times.
func lines(r io.Reader, max int) io.Reader { return &lineLimit{r: r, max: max, line: 1} }

// CSVRecords is Lines for CSV, where a quoted field may hold newlines: a
// record, whatever its lines, is bounded by max, and named by the line it
// starts on.
func CSVRecords(r io.Reader, max int) io.Reader {
	return &lineLimit{r: r, max: max, line: 1, start: 1, csv: true}
}

type lineLimit struct {
	r        io.Reader
	max, run int
	line     int  // the line being read
	start    int  // the line the record being read starts on (csv)
	csv      bool // quoted newlines do not end a record
	quoted   bool
	err      error
}

func (l *lineLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	start := 0 // where the line (record) being read starts in p
	for i, c := range p[:n] {
		if c == '"' && l.csv {
			l.quoted = !l.quoted // "" inside a quoted field toggles twice
		}
		if c == '\n' {
			l.line++
			if !l.quoted {
				l.run, start, l.start = 0, i+1, l.line
				continue
			}
		}
		if l.run++; l.run > l.max {
			// The lines before it are handed on; the error comes next.
			at := l.line
			if l.csv {
				at = l.start
			}
			l.err = &LineTooLong{Line: at, Max: l.max}
			return start, nil
		}
	}
	return n, err
}

// ReadIn reads the file name inside root whole, with Open's refusals (a
// FIFO, a device or a folder put in its place, perhaps after it was
// checked, is refused without blocking) and ReadAll's limit.
func ReadIn(root *os.Root, name string, limit int64, what string) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(name, st); err != nil {
		return nil, err
	}
	if err := setBlocking(f); err != nil {
		return nil, err
	}
	return ReadAll(f, name, limit, what)
}
