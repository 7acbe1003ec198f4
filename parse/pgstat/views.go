package pgstat

// IO is a row of pg_stat_io: a backend type, object and context, and what
// it counted.
type IO struct {
	BackendType, Object, Context string

	Reads, Writes, Extends, Hits, Evictions Num
	ReadBytes, WriteBytes                   Num // 18
	OpBytes                                 Num // up to 17
}

// ParseIO reads a pg_stat_io row.
func ParseIO(row, source string) (IO, error) {
	var r IO
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "backend_type":
			r.BackendType = v.Text()
		case "object":
			r.Object = v.Text()
		case "context":
			r.Context = v.Text()
		case "reads":
			r.Reads = v.Num()
		case "writes":
			r.Writes = v.Num()
		case "extends":
			r.Extends = v.Num()
		case "hits":
			r.Hits = v.Num()
		case "evictions":
			r.Evictions = v.Num()
		case "read_bytes":
			r.ReadBytes = v.Num()
		case "write_bytes":
			r.WriteBytes = v.Num()
		case "op_bytes":
			r.OpBytes = v.Num()
		}
	})
	return r, err
}

// WAL is a row of pg_stat_wal: the records, full page images and bytes
// the server wrote since its statistics were reset.
type WAL struct {
	Records, FPI, Bytes Num
}

// ParseWAL reads a pg_stat_wal row.
func ParseWAL(row, source string) (WAL, error) {
	var r WAL
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "wal_records":
			r.Records = v.Num()
		case "wal_fpi":
			r.FPI = v.Num()
		case "wal_bytes":
			r.Bytes = v.Num()
		}
	})
	return r, err
}

// AIO is a sample of pg_aios (18) as the collector counts it: at a time,
// how many I/O handles were in a state. A sample that found none is one
// row with state null (State "") and n 0; EveryMs is the interval the
// collector sampled at, which captures made before it recorded empty
// samples lack.
type AIO struct {
	At, State string
	N         Num
	EveryMs   Num
}

// ParseAIO reads a pg_aios sample row.
func ParseAIO(row, source string) (AIO, error) {
	var r AIO
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "at":
			r.At = v.Text()
		case "state":
			if !v.Null() {
				r.State = v.Text()
			}
		case "n":
			r.N = v.Num()
		case "every_ms":
			r.EveryMs = v.Num()
		}
	})
	return r, err
}

// VacuumCounts is the collector's row of a table's autovacuum and
// autoanalyze counts (pg_stat_all_tables).
type VacuumCounts struct {
	Autovacuums, Autoanalyzes Num
}

// ParseVacuumCounts reads a vacuum_counts row.
func ParseVacuumCounts(row, source string) (VacuumCounts, error) {
	var r VacuumCounts
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "autovacuum_count":
			r.Autovacuums = v.Num()
		case "autoanalyze_count":
			r.Autoanalyzes = v.Num()
		}
	})
	return r, err
}

// Activity is a row of pg_stat_activity: another session at work.
type Activity struct {
	PID                       int64
	BackendType, State, Query string
}

// ParseActivity reads a pg_stat_activity row.
func ParseActivity(row, source string) (Activity, error) {
	var r Activity
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "pid":
			r.PID = int64(v.Num().V)
		case "backend_type":
			r.BackendType = v.Text()
		case "state":
			r.State = v.Text()
		case "query":
			r.Query = v.Text()
		}
	})
	return r, err
}

// Setting is a row of pg_settings as the collector reads it back before a
// run: a setting's value in its unit ("" for none, or null), and where the
// value came from.
type Setting struct {
	Name, Setting, Unit, Source string
	PendingRestart              bool
}

// ParseSetting reads a pg_settings row.
func ParseSetting(row, source string) (Setting, error) {
	var r Setting
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "name":
			r.Name = v.Text()
		case "setting":
			r.Setting = v.Text()
		case "unit":
			if !v.Null() {
				r.Unit = v.Text()
			}
		case "source":
			r.Source = v.Text()
		case "pending_restart":
			r.PendingRestart = v.Text() == "true"
		}
	})
	return r, err
}
