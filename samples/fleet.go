package samples

// The fleet layout: the captures of many hosts kept together, one
// Hive-style partition per host and study under each table's folder,
//
//	FLEET/<table>/host=<host>/study=<study>/<part>.parquet
//
// so that read_parquet('FLEET/runs/**/*.parquet', hive_partitioning =
// true) in DuckDB, spark.read.parquet("FLEET/runs") in Spark, a Trino Hive
// table with external_location FLEET/runs, and ClickHouse's file() with
// use_hive_partitioning read every host's runs with host and study columns.
// The table is the top folder because an engine reads one table from one
// folder. A partition holds the committed parts of one capture; pgstudy
// reads it back as that capture (OpenPartition).

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// fleetName is what a host or study name may be in a fleet: a letter
// first, so that no engine takes it for a number or a date (DuckDB and
// Spark infer the type of a partition's values), and nothing a path or a
// Hive partition would escape.
var fleetName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]{0,63}$`)

// CheckFleetName checks a host's or study's name for the fleet layout.
func CheckFleetName(name string) error {
	if !fleetName.MatchString(name) {
		return fmt.Errorf("%q cannot name a fleet partition: use a letter, then letters, digits, '.', '_' or '-' (at most 64), "+
			"so that every engine reads it as the same text", name)
	}
	return nil
}

// stagingDir is where Publish builds a partition before renaming it into
// place: outside every table's folder, and hidden, so that no glob over a
// table sees a partition half built.
const stagingDir = ".staging"

// Published is where Publish put a capture.
type Published struct {
	Dir   string // the fleet's folder, as given
	Host  string
	Study string
	Files int
	// Replaced counts the files of the partition published before, which
	// this publish replaced (a capture published again, or another under
	// the same host and study names).
	Replaced int
}

// Publish puts the committed parts of the capture in dir into the fleet,
// as partition host=HOST/study=STUDY of each table (host: the hostname
// the capture recorded when empty; study: its study file's name), linked
// where the fleet is on the same file system and copied where not. Each
// table's partition is built apart, synced and renamed into place, runs
// last, replacing what an earlier publish of that host and study put
// there. It holds the capture's lock and the fleet's.
func Publish(dir, fleet, host, study string) (*Published, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if host, study, err = partitionNames(r, host, study); err != nil {
		return nil, err
	}
	if err := apart(dir, fleet); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := os.MkdirAll(fleet, 0o755); err != nil {
		return nil, fmt.Errorf("samples: fleet: %w", err)
	}
	flock, err := lockDir(fleet)
	if err != nil {
		return nil, err
	}
	defer flock.Close()
	// What a publish killed part way left (under the fleet's lock, no
	// publish is under way).
	if err := removeStaged(fleet); err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(fleet, stagingDir), 0o755); err != nil {
		return nil, fmt.Errorf("samples: fleet: %w", err)
	}
	p := &Published{Dir: fleet, Host: host, Study: study}
	part := path.Join("host="+host, "study="+study)
	// Every table's parts are staged first, and only then put in place:
	// a publish that fails for room (the copies) leaves the partition as
	// it was, where a table at a time left some tables published and not
	// the runs, which an analysis read as a host of no runs.
	staged := make([]string, len(Tables))
	for i, t := range Tables {
		parts, err := r.Parts(t.Name)
		if err != nil {
			return nil, errors.Join(err, removeStaged(fleet))
		}
		if staged[i], err = stageTable(dir, fleet, t.Name, parts); err != nil {
			return nil, errors.Join(err, removeStaged(fleet))
		}
		p.Files += len(parts)
	}
	for i, t := range Tables { // runs last
		replaced, err := swapTable(fleet, t.Name, part, staged[i])
		if err != nil {
			return nil, err
		}
		p.Replaced += replaced
	}
	// Empty now: the fleet holds only its tables.
	if err := os.Remove(filepath.Join(fleet, stagingDir)); err != nil {
		return nil, fmt.Errorf("samples: fleet: %w", err)
	}
	return p, syncDir(fleet)
}

// CheckPublish refuses what Publish would refuse of the capture in dir
// and the fleet, before anything is done: compact checks it before it
// compacts (a fleet inside the capture was refused after the capture was
// compacted).
func CheckPublish(dir, fleet, host, study string) error {
	r, err := Open(dir)
	if err != nil {
		return err
	}
	if _, _, err := partitionNames(r, host, study); err != nil {
		return err
	}
	return apart(dir, fleet)
}

// partitionNames are the host's and study's names of the capture r reads
// in a fleet: those given, or the hostname and the study file's name.
func partitionNames(r *Reader, host, study string) (string, string, error) {
	if host == "" {
		hosts, err := Read[Host](r)
		if err != nil {
			return "", "", err
		}
		for _, h := range hosts {
			if h.Name == "hostname" && host == "" {
				host = strings.TrimSpace(h.Value)
			}
		}
		if err := CheckFleetName(host); err != nil {
			return "", "", fmt.Errorf("samples: %s: the hostname it recorded, %w; name the host with --host", r.Dir(), err)
		}
	}
	if study == "" {
		caps := r.Captures()
		file := filepath.Base(caps[len(caps)-1].StudyFile)
		study = strings.TrimSuffix(file, filepath.Ext(file))
		if err := CheckFleetName(study); err != nil {
			return "", "", fmt.Errorf("samples: %s: its study file's name, %w; name the study with --study", r.Dir(), err)
		}
	}
	return host, study, nil
}

// apart refuses a fleet inside the capture or a capture inside the fleet.
func apart(dir, fleet string) error {
	a, err1 := resolved(dir)
	b, err2 := resolved(fleet)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	within := func(x, y string) bool { return x == y || strings.HasPrefix(x, y+string(filepath.Separator)) }
	if within(a, b) || within(b, a) {
		return fmt.Errorf("samples: the fleet %s and the capture %s are inside one another: keep them apart", fleet, dir)
	}
	return nil
}

// resolved is path made absolute, its symbolic links followed as far as
// it exists (a fleet not made yet, or a link to the capture's folder,
// is compared where it really is).
func resolved(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if filepath.Dir(dir) == dir {
			return abs, nil
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

// stageTable links or copies a table's parts into the fleet's staging
// folder; it returns the folder staged, or "" for a table without parts.
func stageTable(dir, fleet, table string, parts []string) (string, error) {
	if len(parts) == 0 {
		return "", nil
	}
	var b [8]byte
	rand.Read(b[:])
	stage := filepath.Join(fleet, stagingDir, table+"-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(stage, 0o755); err != nil {
		return "", fmt.Errorf("samples: fleet: %w", err)
	}
	for _, name := range parts {
		if err := linkOrCopy(filepath.Join(dir, table, name), filepath.Join(stage, name)); err != nil {
			return "", fmt.Errorf("samples: fleet: %w", err)
		}
	}
	return stage, syncDir(stage)
}

// swapTable puts a table's staged parts (none when stage is "") in
// place of its partition; it returns how many files of the partition it
// replaced.
func swapTable(fleet, table, part, stage string) (replaced int, err error) {
	final := filepath.Join(fleet, table, filepath.FromSlash(part))
	if stage != "" {
		if err := mkdirSynced(filepath.Dir(final)); err != nil {
			return 0, err
		}
	}
	var b [8]byte
	rand.Read(b[:])
	old := filepath.Join(fleet, stagingDir, table+"-"+hex.EncodeToString(b[:])+".old")
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("samples: fleet: %w", err)
	}
	if stage != "" {
		if err := os.Rename(stage, final); err != nil {
			return 0, fmt.Errorf("samples: fleet: %w", err)
		}
		if err := syncDir(filepath.Dir(final)); err != nil {
			return 0, err
		}
	}
	if entries, err := os.ReadDir(old); err == nil {
		replaced = len(entries)
	}
	if err := os.RemoveAll(old); err != nil {
		return 0, fmt.Errorf("samples: fleet: %w", err)
	}
	return replaced, syncDir(filepath.Join(fleet, stagingDir))
}

// removeStaged removes the fleet's staging folder, and what a publish
// killed part way left in it.
func removeStaged(fleet string) error {
	if err := os.RemoveAll(filepath.Join(fleet, stagingDir)); err != nil {
		return fmt.Errorf("samples: fleet: %w", err)
	}
	return nil
}

// mkdirSynced makes a folder and its parents, each durable.
func mkdirSynced(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := mkdirSynced(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("samples: fleet: %w", err)
	}
	return syncDir(filepath.Dir(dir))
}

// linkOrCopy links src to dst, or copies it (synced) where it cannot be
// linked. A link is safe: pgstudy never changes a part in place, it
// writes a new file and renames it.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Partition is one capture of a fleet.
type Partition struct{ Host, Study string }

// FleetArg tells whether arg names a fleet, or a part of one: FLEET,
// FLEET/study=NAME, FLEET/host=NAME or FLEET/host=NAME/study=NAME (as a
// Hive path names them, though the fleet's folders are by table first).
// It returns the fleet's folder and the partitions named.
func FleetArg(arg string) (fleet string, parts []Partition, ok bool, err error) {
	filter := map[string]string{}
	fleet = filepath.Clean(arg)
	for !isFleet(fleet) {
		k, v, found := strings.Cut(filepath.Base(fleet), "=")
		if !found || (k != "host" && k != "study") || filter[k] != "" || fleet == filepath.Dir(fleet) {
			return "", nil, false, nil
		}
		filter[k] = v
		fleet = filepath.Dir(fleet)
	}
	all, err := fleetPartitions(fleet)
	if err != nil {
		return "", nil, true, err
	}
	for _, p := range all {
		if (filter["host"] == "" || filter["host"] == p.Host) && (filter["study"] == "" || filter["study"] == p.Study) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "", nil, true, fmt.Errorf("samples: fleet %s has no capture of %s (it has %d)", fleet, arg, len(all))
	}
	return fleet, parts, true, nil
}

// isFleet reports whether dir is a fleet: its capture/ folder holds host=
// partitions, where a capture's holds parts.
func isFleet(dir string) bool {
	entries, err := os.ReadDir(filepath.Join(dir, "capture"))
	return err == nil && slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
		return e.IsDir() && strings.HasPrefix(e.Name(), "host=")
	})
}

// fleetPartitions lists a fleet's captures: the partitions of its capture
// table.
func fleetPartitions(fleet string) ([]Partition, error) {
	var parts []Partition
	hosts, err := os.ReadDir(filepath.Join(fleet, "capture"))
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	for _, h := range hosts {
		host, ok := strings.CutPrefix(h.Name(), "host=")
		if !ok || !h.IsDir() {
			continue
		}
		studies, err := os.ReadDir(filepath.Join(fleet, "capture", h.Name()))
		if err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		for _, s := range studies {
			if study, ok := strings.CutPrefix(s.Name(), "study="); ok && s.IsDir() {
				parts = append(parts, Partition{Host: host, Study: study})
			}
		}
	}
	return parts, nil
}

// OpenPartition opens one capture of a fleet for reading. It waits for a
// publish under way to end, and holds the fleet's read lock until
// ReleaseReadLocks (or the process's end), so that the partition is not
// published again while it is read (that publish is refused).
func OpenPartition(fleet string, p Partition) (*Reader, error) {
	if err := readLock(fleet); err != nil {
		return nil, err
	}
	sub := path.Join("host="+p.Host, "study="+p.Study)
	name := filepath.Join(fleet, "host="+p.Host, "study="+p.Study)
	// Messages name a part where it is: FLEET/<table>/host=/study=/part.
	join := func(elem ...string) string {
		if len(elem) > 1 && elem[0] == name {
			return filepath.Join(append([]string{fleet, elem[1], filepath.FromSlash(sub)}, elem[2:]...)...)
		}
		return filepath.Join(elem...)
	}
	return open(partitionFS{base: os.DirFS(fleet), sub: sub}, ".", name, join)
}

// partitionFS shows one partition of a fleet as a capture's folders:
// <table>/<part> is the fleet's <table>/<sub>/<part>.
type partitionFS struct {
	base fs.FS
	sub  string
}

func (p partitionFS) Open(name string) (fs.File, error) {
	if name == "." {
		return p.base.Open(".")
	}
	table, rest, _ := strings.Cut(name, "/")
	return p.base.Open(path.Join(table, p.sub, rest))
}
