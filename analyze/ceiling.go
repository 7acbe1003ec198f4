package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// Ceiling is a device's read ceiling as pgstudy measured it (protocol:
// calibrate): O_DIRECT reads of a file of its own on the device, at the
// start of a session or after the schedule's last run. A figure that was
// not measured (the pattern failed) is nil.
type Ceiling struct {
	Host, Device, Configs string
	Session               int
	Phase                 string // "start", "end"
	At                    time.Time
	Depth                 int
	Seconds               float64 // the sequential pattern's
	FileMiB               float64
	// SeqMiBs is the sequential 1 MiB reads' throughput, RandomIOPS and
	// RandomMiBs the random 4 KiB reads', WriteMiBs the file's making.
	SeqMiBs, RandomIOPS, RandomMiBs, WriteMiBs *float64
	// DeviceSeqMiBs is what /proc/diskstats says the whole device read
	// per second during the sequential pattern: above SeqMiBs when
	// something else read the device meanwhile.
	DeviceSeqMiBs *float64
	Error         string
}

// ceilingFall is the share by which a device's ceiling must fall between
// its first and last calibration to be a finding; ceilingDisagree the
// share by which a measured ceiling must differ from the declared limit.
const (
	ceilingFall     = 0.2
	ceilingDisagree = 0.2
)

// addCeilings makes a capture's calibration rows into one Ceiling per
// device and calibration, in time order.
func (a *Analysis) addCeilings(host string, rows []samples.Calibration) {
	type at struct {
		session int32
		phase   string
		device  string
	}
	byAt := map[at]*Ceiling{}
	var order []at
	for _, row := range rows {
		k := at{row.Session, row.Phase, row.Device}
		c := byAt[k]
		if c == nil {
			c = &Ceiling{Host: host, Device: row.Device, Configs: row.Configs, Session: int(row.Session), Phase: row.Phase,
				At: row.StartedAt, FileMiB: float64(row.FileSize) / mib}
			byAt[k] = c
			order = append(order, k)
		}
		if row.Error != "" {
			if c.Error != "" {
				c.Error += "; "
			}
			c.Error += row.Pattern + ": " + row.Error
			continue
		}
		if row.Bytes == nil || row.Requests == nil || row.ElapsedNs <= 0 {
			continue
		}
		secs := float64(row.ElapsedNs) / 1e9
		rate := float64(*row.Bytes) / mib / secs
		switch row.Pattern {
		case "write":
			c.WriteMiBs = &rate
		case "sequential":
			c.SeqMiBs, c.Seconds, c.Depth = &rate, secs, int(row.Depth)
			c.DeviceSeqMiBs = deviceRate(row)
		case "random":
			iops := float64(*row.Requests) / secs
			c.RandomIOPS, c.RandomMiBs, c.Depth = &iops, &rate, int(row.Depth)
		}
	}
	for _, k := range order {
		a.Ceilings = append(a.Ceilings, *byAt[k])
	}
	slices.SortStableFunc(a.Ceilings, func(x, y Ceiling) int {
		return cmp.Or(cmp.Compare(x.Host, y.Host), cmp.Compare(x.Device, y.Device), x.At.Compare(y.At))
	})
}

// deviceRate is the device's read throughput between a calibration row's
// diskstats snapshots; nil when they cannot be read.
func deviceRate(row samples.Calibration) *float64 {
	b, _, err1 := diskstats.Parse(strings.NewReader(row.DiskstatsBefore), "calibration diskstats before")
	e, _, err2 := diskstats.Parse(strings.NewReader(row.DiskstatsAfter), "calibration diskstats after")
	if err1 != nil || err2 != nil || row.ElapsedNs <= 0 {
		return nil
	}
	st := iostat.Between(b, e, float64(row.ElapsedNs)/1e9, []string{row.Device})
	if len(st) != 1 {
		return nil
	}
	v := st[0].ReadBytes / mib / (float64(row.ElapsedNs) / 1e9)
	return &v
}

// measured are the host's calibrations of device that measured a
// ceiling, in time order.
func (a *Analysis) measured(host, device string) []Ceiling {
	var out []Ceiling
	for _, c := range a.Ceilings {
		if c.Host == host && c.Device == device && (c.SeqMiBs != nil || c.RandomIOPS != nil) {
			out = append(out, c)
		}
	}
	return out
}

// runLimit is the limit a run's throughput is held against: the study's
// declared limit of its device when there is one, else the ceiling
// measured nearest the run in time. what says which, in words.
func (a *Analysis) runLimit(r *Run) (l Limit, what string, ok bool) {
	if l, ok := a.Limit(r.Host, r.Device); ok {
		return l, "the limit the study gives", true
	}
	cs := a.measured(r.Host, r.Device)
	if len(cs) == 0 {
		return Limit{}, "", false
	}
	near := slices.MinFunc(cs, func(x, y Ceiling) int {
		return cmp.Compare(absDuration(r.Started.Sub(x.At)), absDuration(r.Started.Sub(y.At)))
	})
	return near.limit(), "the ceiling measured " + near.when(), true
}

// hasLimit says whether the host's device has a declared limit or a
// measured ceiling.
func (a *Analysis) hasLimit(host, device string) bool {
	_, ok := a.Limit(host, device)
	return ok || len(a.measured(host, device)) > 0
}

// limit is the ceiling as a Limit: sequential MiB/s read, random IOPS.
func (c Ceiling) limit() Limit {
	var l Limit
	if c.SeqMiBs != nil {
		l.ReadMiBs = *c.SeqMiBs
	}
	if c.RandomIOPS != nil {
		l.IOPS = *c.RandomIOPS
	}
	return l
}

// when says when and how a ceiling was measured.
func (c Ceiling) when() string {
	phase := "before the first run"
	if c.Phase == "end" {
		phase = "after the last run"
	}
	if c.Session > 1 && c.Phase == "start" {
		phase = fmt.Sprintf("at the start of session %d (a resume)", c.Session)
	}
	at := c.At.UTC().Format("2006-01-02 15:04:05")
	if c.Depth == 0 {
		return fmt.Sprintf("%s (%s UTC)", phase, at) // nothing was read
	}
	return fmt.Sprintf("%s (%s UTC; O_DIRECT reads, %d in flight, for %.1f s)", phase, at, c.Depth, c.Seconds)
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// guardCeilings: a ceiling that fell between a device's first and last
// calibration (a burst allowance used up, or another load on the device),
// and one that disagrees with the limit the study declares.
func (a *Analysis) guardCeilings() {
	type dev struct{ host, device string }
	var devs []dev
	for _, c := range a.Ceilings {
		if d := (dev{c.Host, c.Device}); !slices.Contains(devs, d) {
			devs = append(devs, d)
		}
		if c.Error != "" {
			what := "the calibration"
			if c.Device != "" {
				what += " of " + c.Device
			}
			a.add(Finding{Guard: "ceiling", Severity: Warning, Host: c.Host,
				Message: fmt.Sprintf("%s %s did not measure everything: %s", what, c.when(), c.Error)})
		}
	}
	for _, d := range devs {
		cs := a.measured(d.host, d.device)
		if len(cs) >= 2 {
			first, last := cs[0], cs[len(cs)-1]
			a.ceilingFell(d.host, d.device, first, last, "sequential read", "MiB/s", func(c Ceiling) *float64 { return c.SeqMiBs })
			a.ceilingFell(d.host, d.device, first, last, "random 4 KiB read", "IOPS", func(c Ceiling) *float64 { return c.RandomIOPS })
		}
		if l, ok := a.Limit(d.host, d.device); ok && len(cs) > 0 {
			a.ceilingDisagrees(d.host, d.device, l, cs)
		}
	}
}

func (a *Analysis) ceilingFell(host, device string, first, last Ceiling, what, unit string, get func(Ceiling) *float64) {
	f, l := get(first), get(last)
	if f == nil || l == nil || *f <= 0 || *l >= (1-ceilingFall)**f {
		return
	}
	a.add(Finding{Guard: "ceiling", Severity: Warning, Host: host,
		Message: fmt.Sprintf("the %s ceiling of %s fell by %.0f%%, from %.1f %s measured %s to %.1f %s measured %s: "+
			"a burst allowance used up, or another load on the device; runs are held against the ceiling measured nearest them",
			what, device, 100*(1 - *l / *f), *f, unit, first.when(), *l, unit, last.when())})
}

func (a *Analysis) ceilingDisagrees(host, device string, l Limit, cs []Ceiling) {
	var say []string
	for _, c := range cs {
		for _, p := range []struct {
			declared float64
			measured *float64
			unit     string
		}{{l.ReadMiBs, c.SeqMiBs, "MiB/s read"}, {l.IOPS, c.RandomIOPS, "IOPS"}} {
			if p.declared > 0 && p.measured != nil && math.Abs(*p.measured-p.declared) > ceilingDisagree*p.declared {
				say = append(say, fmt.Sprintf("%.1f %s measured %s against %g declared", *p.measured, p.unit, c.when(), p.declared))
			}
		}
	}
	if len(say) > 0 {
		a.add(Finding{Guard: "ceiling", Severity: Info, Host: host,
			Message: fmt.Sprintf("the ceiling measured on %s differs from the limit the study declares by more than %.0f%% (%s); the declared limit is the one runs are held against",
				device, 100*ceilingDisagree, strings.Join(say, "; "))})
	}
}

// optMiBs is a rate in MiB/s as bytes per second, or nil.
func optMiBs(p *float64) any {
	if p == nil {
		return nil
	}
	return *p * mib
}

// ceilingFields are the ceilings table's columns.
func (a *Analysis) ceilingFields() []table.Field[Ceiling] {
	declared := func(f func(Limit) float64) func(Ceiling) any {
		return func(c Ceiling) any {
			if l, ok := a.Limit(c.Host, c.Device); ok && f(l) > 0 {
				return f(l)
			}
			return nil
		}
	}
	return []table.Field[Ceiling]{
		table.On(table.Text("device", "device"), func(c Ceiling) any { return table.Maybe(c.Device) }),
		table.On(table.Column{Key: "configs", Title: "configs", Kind: table.Names}, func(c Ceiling) any {
			if c.Configs == "" {
				return nil
			}
			return strings.Split(c.Configs, ",")
		}),
		table.On(table.Text("measured", "measured"), func(c Ceiling) any { return c.when() }),
		table.On(table.Bytes("seq_read_bytes_per_s", "sequential read", "MiB/s"), func(c Ceiling) any { return optMiBs(c.SeqMiBs) }),
		table.On(table.Bytes("device_read_bytes_per_s", "device read (diskstats)", "MiB/s"), func(c Ceiling) any { return optMiBs(c.DeviceSeqMiBs) }),
		table.On(table.Num("random_iops", "random 4 KiB", "IOPS"), func(c Ceiling) any { return opt(c.RandomIOPS) }),
		table.On(table.Bytes("random_bytes_per_s", "random 4 KiB", "MiB/s"), func(c Ceiling) any { return optMiBs(c.RandomMiBs) }),
		table.On(table.Bytes("write_bytes_per_s", "file written", "MiB/s"), func(c Ceiling) any { return optMiBs(c.WriteMiBs) }),
		table.On(table.Bytes("file_bytes", "file", "MiB"), func(c Ceiling) any { return c.FileMiB * mib }),
		table.On(table.Bytes("declared_read_bytes_per_s", "declared read", "MiB/s"), declared(func(l Limit) float64 { return l.ReadMiBs * mib })),
		table.On(table.Num("declared_iops", "declared", "IOPS"), declared(func(l Limit) float64 { return l.IOPS })),
		table.On(table.Text("error", "error"), func(c Ceiling) any { return table.Maybe(c.Error) }),
	}
}

func (a *Analysis) ceilingsTable() table.Table {
	t := table.Table{Name: "ceilings", Title: "Device ceilings, measured",
		Note: "What each device read when pgstudy measured it (protocol: calibrate): O_DIRECT reads of a file it wrote on the device, " +
			"sequential 1 MiB and random 4 KiB requests; device read is what /proc/diskstats counted for the whole device meanwhile. " +
			"Runs are held against the study's declared limit where it gives one, else against the ceiling measured nearest them."}
	return build(a, t, func(c Ceiling) string { return c.Host }, a.ceilingFields(), a.Ceilings)
}
