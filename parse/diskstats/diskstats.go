package diskstats

import (
	"io"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
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
// (flushes). Counters a kernel does not print are absent, not zero:
// Discards.Valid is false for 14 fields, Flushes.Valid for 14 and 18; in
// JSON the "discards" and "flushes" objects are left out. The groups are
// parse.Opt values rather than pointers, so that a Counters holds no
// pointer but its name: a snapshot's slice grows by a plain copy, and a
// device line costs no allocation of its own.
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

	Discards parse.Opt[Discards] `json:"discards,omitzero"` // Linux 4.18+ (18 or 20 fields)
	Flushes  parse.Opt[Flushes]  `json:"flushes,omitzero"`  // Linux 5.5+ (20 fields)
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

// maxLines bounds the device lines Parse reads: a record takes about 20
// times its line, and a host's /proc/diskstats has hundreds of lines, a
// concatenation of its snapshots some thousands. ParseSeq, which holds
// one line, has no bound.
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
// split snapshots before parsing them, or read them a line at a time with
// ParseSeq.
func Parse(r io.Reader, source string) (Snapshot, []parse.Warning, error) {
	var (
		warns []parse.Warning
		devs  batch.Rows[Counters]
	)
	size := parse.Size(r)
	var rd reader
	rd.init(r, source)
	for rd.step() {
		if rd.lines > maxLines {
			return Snapshot{}, nil, parse.Errorf(source, rd.l.Line(), "more than %d device lines; a /proc/diskstats has hundreds (is this the file you meant?)", maxLines)
		}
		if w := rd.Warning(); w != nil {
			warns = append(warns, *w)
			continue
		}
		rd.ln.fill(devs.Next(), rd.intern(rd.ln.name))
		if devs.Len() == expectAfter {
			// The lines so far tell how many are left in an input of known
			// size: room for them spares growing and joining chunks of
			// records with pointers, whose copies the write barrier slows.
			off := rd.l.Offset()
			devs.Expect(size-off, int(off/expectAfter))
		}
	}
	if err := rd.err; err != nil {
		return Snapshot{}, warns, err
	}
	return Snapshot{Devices: devs.All()}, warns, nil
}

// expectAfter is how many device lines Parse reads before it sizes its
// records from their length: a snapshot's first lines (loop devices,
// whole disks) are as long as its others, give or take.
const expectAfter = 16
