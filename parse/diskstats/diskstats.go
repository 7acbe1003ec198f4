package diskstats

import (
	"fmt"
	"io"
	"math"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// SectorBytes is the unit of the sector counters in /proc/diskstats.
// The kernel counts in 512-byte sectors whatever the device's logical or
// physical block size (a 4096-byte-sector NVMe drive still reports
// 512-byte units), so bytes = sectors × SectorBytes, always.
const SectorBytes = 512

// Snapshot is one reading of /proc/diskstats: a line per block
// device, in the kernel's order.
//
// The counters are as the kernel printed them. They are unsigned longs: on a
// 64-bit kernel they wrap at 2^64, on a 32-bit kernel at 2^32, so the
// difference between two snapshots must allow for a wrap (the analysis
// does). They also restart from zero when a device is removed and added
// again.
//
// Whether a device is a whole disk or a partition cannot be told from
// /proc/diskstats alone (names and minor numbers do not say it reliably:
// nvme0n1 is a disk, nvme0n1p1 a partition, dm-0 and md0 are neither), so
// Snapshot does not guess; callers that need it read
// /sys/class/block/NAME/partition.
type Snapshot struct {
	Devices []Counters `json:"devices"`
}

// Device returns the counters of the device called name (such as "nvme0n1"
// or "sda1") and whether the snapshot has it. If a name appears more than
// once (the kernel never prints that), the first line wins.
func (s Snapshot) Device(name string) (Counters, bool) {
	for _, d := range s.Devices {
		if d.Name == name {
			return d, true
		}
	}
	return Counters{}, false
}

// Counters is one line of /proc/diskstats: a block device and its
// counters (see the kernel's Documentation/admin-guide/iostats.rst).
// Times are in milliseconds; sectors are SectorBytes each.
//
// Fields says how many fields the line had, which tells which counters the
// kernel prints: 14 before Linux 4.18, 18 from 4.18 (discards), 20 from 5.5
// (flushes). Counters a kernel does not print are absent: Discards is nil
// for 14 fields, Flushes is nil for 14 and 18; in JSON the "discards" and
// "flushes" objects are left out.
type Counters struct {
	Major  uint32 `json:"major"`
	Minor  uint32 `json:"minor"`
	Name   string `json:"name"`
	Fields int    `json:"fields"` // 14, 18 or 20

	ReadsCompleted  uint64 `json:"reads_completed"`
	ReadsMerged     uint64 `json:"reads_merged"`
	ReadSectors     uint64 `json:"read_sectors"`
	ReadTimeMs      uint64 `json:"read_time_ms"`
	WritesCompleted uint64 `json:"writes_completed"`
	WritesMerged    uint64 `json:"writes_merged"`
	WriteSectors    uint64 `json:"write_sectors"`
	WriteTimeMs     uint64 `json:"write_time_ms"`
	// InFlight is the number of I/Os in progress when the line was
	// printed: a gauge, not a counter.
	InFlight uint64 `json:"in_flight"`
	// IOTimeMs is the time the device had I/O in flight ("ms doing I/O";
	// iostat's %util is its rate).
	IOTimeMs uint64 `json:"io_time_ms"`
	// WeightedIOTimeMs is the time spent doing I/O weighted by the number
	// of I/Os in flight (iostat's aqu-sz is its rate).
	WeightedIOTimeMs uint64 `json:"weighted_io_time_ms"`

	Discards *Discards `json:"discards,omitempty"` // Linux 4.18+ (18 or 20 fields)
	Flushes  *Flushes  `json:"flushes,omitempty"`  // Linux 5.5+ (20 fields)
}

// ReadBytes is ReadSectors in bytes.
func (d Counters) ReadBytes() uint64 { return d.ReadSectors * SectorBytes }

// WriteBytes is WriteSectors in bytes.
func (d Counters) WriteBytes() uint64 { return d.WriteSectors * SectorBytes }

// Discards are the discard counters, printed from Linux 4.18 on.
type Discards struct {
	Completed uint64 `json:"completed"`
	Merged    uint64 `json:"merged"`
	Sectors   uint64 `json:"sectors"`
	TimeMs    uint64 `json:"time_ms"`
}

// Bytes is Sectors in bytes.
func (d Discards) Bytes() uint64 { return d.Sectors * SectorBytes }

// Flushes are the flush counters, printed from Linux 5.5 on.
type Flushes struct {
	Completed uint64 `json:"completed"`
	TimeMs    uint64 `json:"time_ms"`
}

// counterNames names the counters by position (field 4 on), for
// messages.
var counterNames = [17]string{
	"reads_completed", "reads_merged", "read_sectors", "read_time_ms",
	"writes_completed", "writes_merged", "write_sectors", "write_time_ms",
	"in_flight", "io_time_ms", "weighted_io_time_ms",
	"discards.completed", "discards.merged", "discards.sectors", "discards.time_ms",
	"flushes.completed", "flushes.time_ms",
}

// extraFields holds a line's optional counter groups; they are allocated in
// batches so that a 20-field line costs no allocation of its own.
type extraFields struct {
	d Discards
	f Flushes
}

// maxLines bounds the device lines read: a record takes about 20
// times its line, and a host's /proc/diskstats has hundreds of lines, a
// concatenation of its snapshots some thousands.
const maxLines = 500_000

// Parse parses one snapshot of /proc/diskstats read from r; source
// names it in errors and warnings.
//
// Every line is "major minor name" and 11, 15 or 17 unsigned counters,
// separated by spaces. A line with another number of fields or a field that
// is not a number is returned as a parse.Warning and left out. Blank lines are
// skipped. Input that holds no diskstats line at all (empty input, binary
// data, another file such as /proc/stat) is a *parse.SyntaxError.
//
// A concatenation of snapshots parses as one snapshot whose devices repeat;
// split snapshots before parsing them.
func Parse(r io.Reader, source string) (Snapshot, []parse.Warning, error) {
	var (
		warns    []parse.Warning
		nonBlank int
		extras   extraPool
		cur      []Counters   // the chunk being filled
		full     [][]Counters // the chunks before it
		total    int
		// names interns device names: a concatenation of snapshots
		// repeats them, and one string per name spares the allocations.
		names = map[string]string{}
	)
	l := parse.NewLines(r, source)
	for l.Next() {
		b := l.Bytes()
		var ln deviceLine
		ln.scan(b)
		if ln.n == 0 {
			continue
		}
		if nonBlank++; nonBlank > maxLines {
			return Snapshot{}, nil, parse.Errorf(source, l.Line(), "more than %d device lines; a /proc/diskstats has hundreds (is this the file you meant?)", maxLines)
		}
		if msg := ln.problem(); msg != "" {
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: string(b), Msg: msg})
			continue
		}
		// The devices are gathered in chunks, so that a long input is
		// copied once (by join) rather than at every growth of one slice.
		if len(cur) == cap(cur) {
			if cur != nil {
				full = append(full, cur)
			}
			cur = make([]Counters, 0, 16<<min(len(full), 6))
		}
		cur = cur[:len(cur)+1]
		ln.fill(&cur[len(cur)-1], intern(names, ln.name), &extras) // in place: a Counters is large
		total++
	}
	snap := Snapshot{Devices: join(full, cur, total)}
	if err := l.Err(); err != nil {
		return Snapshot{}, warns, err
	}
	if len(snap.Devices) == 0 {
		if nonBlank == 0 {
			return Snapshot{}, nil, parse.Errorf(source, 0, "empty input; expected /proc/diskstats")
		}
		w := warns[0]
		return Snapshot{}, warns, parse.Errorf(source, w.Line, "not /proc/diskstats (no line of it is a diskstats line): %s: %s", w.Msg, num.Quote(w.Text))
	}
	return snap, warns, nil
}

// problem says why the line is not a device line, as a warning's message,
// or returns "" for a good one.
func (ln *deviceLine) problem() string {
	switch {
	case ln.n != 14 && ln.n != 18 && ln.n != 20:
		return fmt.Sprintf("%d fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters)", ln.n)
	case ln.bad == 0 || ln.v[0] > math.MaxUint32:
		return fmt.Sprintf("major number %s is not an unsigned 32-bit number", num.Quote(ln.major))
	case ln.bad == 1 || ln.v[1] > math.MaxUint32:
		return fmt.Sprintf("minor number %s is not an unsigned 32-bit number", num.Quote(ln.minor))
	case ln.bad > 0:
		return fmt.Sprintf("field %d (%s) is not an unsigned number: %s", ln.bad+1, counterNames[ln.bad-3], num.Quote(ln.badText))
	}
	return ""
}

// intern returns the string of name held in names, adding it if it is new.
func intern(names map[string]string, name []byte) string {
	s, ok := names[string(name)] // no allocation for the lookup
	if !ok {
		s = string(name)
		names[s] = s
	}
	return s
}

// fill sets d to the counters of a good device line, taking the optional
// groups of an 18- or 20-field line from extras.
func (ln *deviceLine) fill(d *Counters, name string, extras *extraPool) {
	v := ln.v[2:]
	d.Major, d.Minor, d.Name, d.Fields = uint32(ln.v[0]), uint32(ln.v[1]), name, ln.n
	d.ReadsCompleted, d.ReadsMerged, d.ReadSectors, d.ReadTimeMs = v[0], v[1], v[2], v[3]
	d.WritesCompleted, d.WritesMerged, d.WriteSectors, d.WriteTimeMs = v[4], v[5], v[6], v[7]
	d.InFlight, d.IOTimeMs, d.WeightedIOTimeMs = v[8], v[9], v[10]
	if ln.n < 18 {
		return
	}
	e := extras.next()
	e.d = Discards{Completed: v[11], Merged: v[12], Sectors: v[13], TimeMs: v[14]}
	d.Discards = &e.d
	if ln.n == 20 {
		e.f = Flushes{Completed: v[15], TimeMs: v[16]}
		d.Flushes = &e.f
	}
}

// extraPool hands out extraFields from batches that grow, 8 to 64.
type extraPool struct {
	free    []extraFields
	batches int
}

func (p *extraPool) next() *extraFields {
	if len(p.free) == 0 {
		p.free = make([]extraFields, 8<<min(p.batches, 3))
		p.batches++
	}
	e := &p.free[0]
	p.free = p.free[1:]
	return e
}

// join returns the chunks full and then cur, total devices in all, in one
// slice; nil if there are none.
func join(full [][]Counters, cur []Counters, total int) []Counters {
	if total == 0 {
		return nil
	}
	devs := make([]Counters, 0, total)
	for _, c := range full {
		devs = append(devs, c...)
	}
	return append(devs, cur...)
}

// deviceLine is one line split into fields, its numbers parsed in the
// same pass.
type deviceLine struct {
	n            int // the number of fields
	major, minor []byte
	name         []byte
	// v holds the numbers: major, minor, then the counters.
	v [19]uint64
	// bad is the index of the first field (other than the name) that is
	// not an unsigned number, or -1; badText is that field.
	bad     int
	badText []byte
}

// scan splits b at runs of spaces and tabs. Fields past the 20th are
// counted, not parsed.
func (ln *deviceLine) scan(b []byte) {
	ln.bad = -1
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			return
		}
		start := i
		if ln.n == 2 {
			for i < len(b) && b[i] != ' ' && b[i] != '\t' {
				i++
			}
			ln.name = b[start:i]
			ln.n++
			continue
		}
		var x uint64
		ok := true
		for i < len(b) && b[i] != ' ' && b[i] != '\t' {
			d := uint64(b[i]) - '0'
			if d > 9 {
				ok = false
			}
			x = x*10 + d
			i++
		}
		if i-start > 19 && ok { // may overflow: take the careful way
			x, ok = num.Uint(b[start:i])
		}
		switch {
		case ln.n >= len(ln.v)+1:
			// past the last counter: counted only
		case !ok:
			if ln.bad < 0 {
				ln.bad, ln.badText = ln.n, b[start:i]
			}
		case ln.n < 2:
			ln.v[ln.n] = x
		default:
			ln.v[ln.n-1] = x
		}
		switch ln.n {
		case 0:
			ln.major = b[start:i]
		case 1:
			ln.minor = b[start:i]
		}
		ln.n++
	}
}
