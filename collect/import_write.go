package collect

import (
	"fmt"
	"github.com/pgstudy/pgstudy/analyze/facts"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/infile"
	"github.com/pgstudy/pgstudy/samples/outdir"
)

// An import reads and writes its runs a chunk at a time: the runs of a
// chunk are read, then written with one CommitMany (a part per table, made
// durable together), then let go. What an import holds is bounded by the
// chunk and the manifest, not by the size of the files it imports:
//
//   - importChunkBytes bounds what a chunk's runs hold: the text of their
//     files and the rows parsed from their settings files. A chunk stops
//     before the run that would take it over the bound, so only a run
//     larger than the bound on its own makes a larger chunk, as it must: a
//     run is never split. 16 MiB keeps a part of the tables that are not
//     raw text (diskstats, settings) far below the 64 MiB a reader accepts
//     of one of them. While a chunk is written it takes about 7 times the
//     bound (the rows gathered per table, the Arrow record, the Parquet
//     encoder, the garbage collector's headroom): 190 MiB of peak RSS for
//     10,000 runs with a pg_settings dump each, where 32 and 64 MiB took
//     300 and 520 MiB in no less time, and 8 MiB 130 MiB with twice the
//     files (docs/PERFORMANCE.md section 8).
//   - importChunkRuns bounds the runs of a part when they are small: 1,000,
//     as in the largest generated captures the analysis was measured on
//     (section 4). A part per run (Commit) made up to 7 files a run, each
//     fsync'd.
const (
	importChunkRuns  = 1000
	importChunkBytes = 16 << 20
)

// settingSize is what a settings row holds besides its text.
var settingSize = int(reflect.TypeFor[samples.Setting]().Size())

// writeImport writes the capture of the runs, which have been checked as
// far as they can be without reading them. The capture is written beside
// its place and renamed into it when whole: an import that fails (a file
// of a later chunk that cannot be read or parsed, a full disk, a kill)
// leaves no capture that quietly lacks runs, and removes what it wrote.
func writeImport(root *os.Root, src string, timed []*importRun, opt ImportOptions) (*ImportSummary, error) {
	if err := outdir.CheckCapturePlace(opt.Out, false, "an import writes its capture whole, never adding to one: remove it to import again"); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	notes := outdir.LeftoverNotes(opt.Out)
	tmp, err := outdir.TempBeside(opt.Out, "importing")
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	// What the writer says of text that is not UTF-8 goes in the notes.
	w, err := samples.Create(tmp, samples.Options{Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("import: %w", err)
	}
	done := false
	defer func() {
		w.Close()
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	// The manifest is the study of an import (a pattern import has none).
	capRow := samples.Capture{ToolVersion: opt.ToolVersion, StartedAt: time.Now(), Command: opt.Command,
		StudyFile: src, StudyYAML: opt.manifest, ScheduledRuns: int64(len(timed))}
	// No host facts: the machine importing is not the one that measured.
	if err := writeSession(w, capRow); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	opt.manifest, capRow = "", samples.Capture{} // written: a manifest of a million rows is 50 MB

	nfiles, err := importChunks(w, root, timed, opt.Stop)
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if err := outdir.Place(tmp, opt.Out); err != nil {
		done = true // a whole capture: kept where the error says
		return nil, fmt.Errorf("import: %w", err)
	}
	done = true
	return &ImportSummary{Dir: opt.Out, Runs: len(timed), Files: nfiles, Notes: notes}, nil
}

// writeSession writes the capture's row, which holds the manifest, with
// the garbage collector held back. Writing it takes five times the
// manifest's text (the Arrow record, the dictionary the Parquet writer
// gives up on, the plain page, its compression: 228 MB for the 46 MB of
// a million rows), all of it live until the write ends: a collection in
// the middle counted it as heap to keep and let the heap grow to twice
// that, and a million rows' import peaked at 735 to 930 MiB. Collected
// (and its free pages returned) before, not during, the write costs the
// heap the checks left and its buffers once, and the import peaks while
// its chunks are written: 550 to 610 MiB (docs/PERFORMANCE.md section 8).
func writeSession(w *samples.Writer, c samples.Capture) error {
	debug.FreeOSMemory() // the garbage of the checks, and its pages
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	return w.WriteSession(c, nil)
}

// importChunks reads the runs in order, run ids from 1, and commits them a
// chunk at a time. It returns the number of files read.
func importChunks(w *samples.Writer, root *os.Root, timed []*importRun, stop <-chan struct{}) (int, error) {
	var chunk []*samples.Batch
	size := 0
	commit := func() error {
		for _, b := range chunk {
			facts.AddTo(b)
		}
		err := w.CommitMany(chunk)
		clear(chunk) // let the chunk's text go
		chunk, size = chunk[:0], 0
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		return nil
	}
	nfiles := 0
	for i, r := range timed {
		select {
		case <-stop:
			return 0, fmt.Errorf("import: stopped by a signal before run %d of %d: %w", i+1, len(timed), ErrInterrupted)
		default:
		}
		b, n, err := importBatch(root, int64(i+1), r)
		if err != nil {
			return 0, err
		}
		if s := r.settings; s != nil && !s.recorded {
			m, err := importSettings(root, b, s.files[0])
			if err != nil {
				return 0, err
			}
			s.recorded = true
			nfiles++
			n += m
		}
		nfiles += len(r.files)
		if len(chunk) > 0 && (len(chunk) == importChunkRuns || size+n > importChunkBytes) {
			if err := commit(); err != nil {
				return 0, err
			}
		}
		chunk = append(chunk, b)
		size += n
	}
	if len(chunk) > 0 {
		if err := commit(); err != nil {
			return 0, err
		}
	}
	return nfiles, nil
}

// maxImportedFile bounds one imported file: a run's output, plan or
// settings, or an attachment. What a chunk holds while it is written is
// about ten times its files, so a file of a gigabyte would take ten.
const maxImportedFile = 64 << 20

// readImported reads a file of the import. It was checked to be a regular
// file before anything was read; it is opened without blocking and checked
// again, since it may have been replaced since (by a FIFO, a device).
func readImported(root *os.Root, f importFile) ([]byte, error) {
	data, err := infile.ReadIn(root, filepath.FromSlash(f.rel), maxImportedFile, "an imported file")
	if err != nil {
		if f.line > 0 {
			return nil, fmt.Errorf("import: manifest line %d: %w", f.line, err)
		}
		return nil, fmt.Errorf("import: %w", err)
	}
	return data, nil
}

// importBatch reads the files of run r. It returns the bytes read.
func importBatch(root *os.Root, id int64, r *importRun) (*samples.Batch, int, error) {
	b := &samples.Batch{Run: samples.Run{RunID: id, Round: int32(r.round()), Position: int32(r.position), Config: r.config(),
		Test: r.test(), Kind: "timed", Client: "psql", Status: "ok", Cold: "unknown (imported)"}}
	size := 0
	for _, f := range r.files {
		data, err := readImported(root, f)
		if err != nil {
			return nil, 0, err
		}
		text := string(data)
		size += len(text)
		if !f.started.IsZero() && (b.Run.StartedAt.IsZero() || f.started.Before(b.Run.StartedAt)) {
			b.Run.StartedAt = f.started
		}
		b.Steps = append(b.Steps, samples.Step{Seq: int32(len(b.Steps) + 1), Phase: "import", Name: f.kind, Detail: f.rel, StartedAt: f.started})
		switch f.kind {
		case "psql", "vacuum":
			seq := int32(len(b.Statements) + 1)
			b.Statements = append(b.Statements, samples.Statement{Seq: seq, Phase: "timed", StartedAt: f.started})
			b.Outputs = append(b.Outputs, samples.Output{Statement: seq, Seq: int32(len(b.Outputs) + 1), Stream: "stdout", Text: text})
		case "explain-json", "explain-text":
			b.Plans = append(b.Plans, samples.Plan{Kind: "explain", Format: strings.TrimPrefix(f.kind, "explain-"), Text: text})
		case "diskstats-before", "diskstats-after":
			b.Diskstats = append(b.Diskstats, samples.Diskstats{Seq: int32(len(b.Diskstats) + 1),
				Phase: strings.TrimPrefix(f.kind, "diskstats-"), TakenAt: f.started, Text: text})
		case "attachment":
			b.Attachments = append(b.Attachments, samples.Attachment{Name: f.rel, Text: text})
		}
	}
	// Before comes before after, whatever order the files were listed in.
	slices.SortStableFunc(b.Diskstats, func(x, y samples.Diskstats) int { return strings.Compare(y.Phase, x.Phase) })
	for i := range b.Diskstats {
		b.Diskstats[i].Seq = int32(i + 1)
	}
	return b, size, nil
}

// importSettings reads a dump of pg_settings: name, setting, unit, source
// separated by tabs or by psql's '|', with or without psql's header and
// row-count footer. The file is also kept verbatim. It returns what the
// file and its rows hold, in bytes.
func importSettings(root *os.Root, b *samples.Batch, f importFile) (int, error) {
	data, err := readImported(root, f)
	if err != nil {
		return 0, err
	}
	text := string(data) // the rows' values are substrings of the one copy
	b.Attachments = append(b.Attachments, samples.Attachment{Name: f.rel, Text: text})
	srv := samples.Server{Round: b.Run.Round, Config: b.Run.Config, ReadAt: f.started}
	b.Settings = slices.Grow(b.Settings, strings.Count(text, "\n")+1)
	rest := text
	for i := 0; rest != ""; i++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || footerRE.MatchString(line) || strings.HasPrefix(line, "-") {
			continue
		}
		sep := "\t"
		if !strings.Contains(line, "\t") {
			sep = "|"
		}
		// Up to four fields, without a slice per line.
		var fields [4]string
		n := strings.Count(line, sep) + 1
		for j, rest := 0, line; j < min(n, 4); j++ {
			var field string
			field, rest, _ = strings.Cut(rest, sep)
			fields[j] = strings.TrimSpace(field)
		}
		if i == 0 && fields[0] == "name" {
			continue
		}
		if n < 2 || n > 4 || fields[0] == "" {
			where := f.rel
			if f.line > 0 {
				where = fmt.Sprintf("%s (manifest line %d)", f.rel, f.line)
			}
			return 0, fmt.Errorf("import: %s:%d: expected name, setting, unit and source separated by tabs or |, found %q", where, i+1, line)
		}
		b.Settings = append(b.Settings, samples.Setting{Round: b.Run.Round, Config: b.Run.Config,
			Name: fields[0], Setting: fields[1], Unit: fields[2], Source: fields[3]})
		switch fields[0] {
		case "server_version":
			srv.ServerVersion = fields[1]
		case "server_version_num":
			n, _ := strconv.Atoi(fields[1])
			srv.ServerVersionNum = int32(n)
		case "data_checksums":
			srv.DataChecksums = fields[1]
		case "data_directory":
			srv.DataDirectory = fields[1]
		}
	}
	if len(b.Settings) == 0 {
		return 0, fmt.Errorf("import: %s: no setting in it", f.rel)
	}
	b.Servers = append(b.Servers, srv)
	return len(text) + len(b.Settings)*settingSize, nil
}

var footerRE = regexp.MustCompile(`^\(\d+ rows?\)$`)
