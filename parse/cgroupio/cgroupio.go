package cgroupio

import (
	"bytes"
	"strconv"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// maxLines bounds the lines read: a cgroup file has a few lines per
// device the group has used.
const maxLines = 100_000

// IOStat is a cgroup v2 io.stat file: a line per device the group has
// done I/O on, in the kernel's order.
type IOStat struct {
	Devices []IOStatLine `json:"devices"`
}

// IOStatLine is one device's line of io.stat.
type IOStatLine struct {
	Major  uint32  `json:"major"`
	Minor  uint32  `json:"minor"`
	RBytes *uint64 `json:"rbytes,omitempty"`
	WBytes *uint64 `json:"wbytes,omitempty"`
	RIOs   *uint64 `json:"rios,omitempty"`
	WIOs   *uint64 `json:"wios,omitempty"`
	DBytes *uint64 `json:"dbytes,omitempty"`
	DIOs   *uint64 `json:"dios,omitempty"`
	// Other are the further keys other io policies add to the line
	// (io.cost's cost.usage, io.latency's avg_lat), as printed.
	Other []Pair `json:"other,omitempty"`
}

// Pair is a key and its value as io.stat printed them.
type Pair struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// RWStat is one of cgroup v1 blkio's per-operation files
// (blkio.throttle.io_service_bytes, blkio.throttle.io_serviced and their
// _recursive forms): a block of lines per device, then the group's total.
type RWStat struct {
	Devices []RWStatLine `json:"devices"`
	Total   *uint64      `json:"total,omitempty"`
}

// RWStatLine is one device's block of an RWStat file.
type RWStatLine struct {
	Major   uint32  `json:"major"`
	Minor   uint32  `json:"minor"`
	Read    *uint64 `json:"read,omitempty"`
	Write   *uint64 `json:"write,omitempty"`
	Sync    *uint64 `json:"sync,omitempty"`
	Async   *uint64 `json:"async,omitempty"`
	Discard *uint64 `json:"discard,omitempty"`
	Total   *uint64 `json:"total,omitempty"`
}

// Counters are a device's I/O as a cgroup counted it: bytes and I/Os
// read and written. A counter the file does not have is nil.
type Counters struct {
	ReadBytes  *uint64 `json:"read_bytes,omitempty"`
	WriteBytes *uint64 `json:"write_bytes,omitempty"`
	Reads      *uint64 `json:"reads,omitempty"`
	Writes     *uint64 `json:"writes,omitempty"`
}

// DevKey is how Counters are keyed: "MAJ:MIN", as cgroup files and
// /sys/block/NAME/dev write a device number.
func DevKey(major, minor uint32) string {
	return strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10)
}

// Counters is the file's counters by device number.
func (s IOStat) Counters() map[string]Counters {
	out := make(map[string]Counters, len(s.Devices))
	for _, d := range s.Devices {
		out[DevKey(d.Major, d.Minor)] = Counters{ReadBytes: d.RBytes, WriteBytes: d.WBytes, Reads: d.RIOs, Writes: d.WIOs}
	}
	return out
}

// V1Counters joins v1's bytes file (io_service_bytes) and I/Os file
// (io_serviced) of one group into counters by device number; either may
// be empty (RWStat{}) when it was not read.
func V1Counters(byteFile, ioFile RWStat) map[string]Counters {
	out := map[string]Counters{}
	for _, d := range byteFile.Devices {
		k := DevKey(d.Major, d.Minor)
		c := out[k]
		c.ReadBytes, c.WriteBytes = d.Read, d.Write
		out[k] = c
	}
	for _, d := range ioFile.Devices {
		k := DevKey(d.Major, d.Minor)
		c := out[k]
		c.Reads, c.Writes = d.Read, d.Write
		out[k] = c
	}
	return out
}

// devNum reads a device number "MAJ:MIN".
func devNum(b []byte) (maj, min uint32, ok bool) {
	a, c, found := bytes.Cut(b, []byte(":"))
	if !found {
		return 0, 0, false
	}
	x, ok1 := num.Uint(a)
	y, ok2 := num.Uint(c)
	if !ok1 || !ok2 || x > 1<<32-1 || y > 1<<32-1 {
		return 0, 0, false
	}
	return uint32(x), uint32(y), true
}
