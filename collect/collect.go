package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pgstudy/pgstudy/samples/study"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/outdir"
)

// Options are what a collect needs besides the study.
type Options struct {
	Out         string // the capture folder
	Resume      bool   // append to the capture in Out
	ToolVersion string
	Command     string          // the command line, for the record
	Progress    Progress        // nil: silent
	Stop        <-chan struct{} // closed: finish the current run, then stop
	// LeaveRunning keeps up the servers collect started; without it, a
	// server that was down before the first run is stopped at the end.
	LeaveRunning bool
	// NoCompact leaves the capture's parts as they were written, one per
	// run and table; without it a study that finished is compacted.
	NoCompact bool
}

// Summary says how a collect ended.
type Summary struct {
	Dir         string
	Scheduled   int // runs in the schedule
	Done        int // runs in the capture, from earlier sessions and this one
	Ran         int // runs this session
	Failed      int // runs of this session that failed
	Interrupted bool
}

// ErrInterrupted is returned when a signal stopped a collect between runs;
// the capture is valid and can be resumed.
var ErrInterrupted = errors.New("interrupted")

// ErrRunsFailed is returned when the study finished but some runs failed.
var ErrRunsFailed = errors.New("some runs failed")

// errTimeout marks a run stopped by its statement timeout; it adds nothing
// to the message.
var errTimeout = silentError{errors.New("timeout")}

type silentError struct{ error }

func (silentError) Error() string { return "" }

// collector holds what lasts across runs.
type collector struct {
	study    *study.Study
	opt      Options
	w        *samples.Writer
	red      *Redactor
	progress Progress

	dataDir  map[string]string        // configuration -> data directory, once learned
	version  map[string]int32         // configuration -> server_version_num
	facts    map[string]bool          // "config/round" whose server facts are recorded in this session
	autoConf map[string]*autoConf     // DSN -> its postgresql.auto.conf as found, for the settings pgstudy manages
	started  map[string]*study.Config // DSN -> the configuration whose start: collect ran first
	foundUp  map[string]bool          // DSN -> up before the first run (servers with a start: command)
	sessions map[string][]string
	cgroups  map[string]string // configuration -> the cgroup pgstudy made for its start step
}

// Collect runs a study and records it in opt.Out. It returns when the
// schedule is done, a run failed with on_failure: stop, or opt.Stop was
// closed; the capture is valid in every case.
func Collect(ctx context.Context, s *study.Study, opt Options) (*Summary, error) {
	red := NewRedactor(s)
	c := &collector{study: s, opt: opt, red: red, progress: opt.Progress,
		dataDir: map[string]string{}, version: map[string]int32{}, facts: map[string]bool{},
		autoConf: map[string]*autoConf{}, started: map[string]*study.Config{}, foundUp: map[string]bool{},
		sessions: map[string][]string{}, cgroups: map[string]string{}}
	if c.progress == nil {
		c.progress = nopProgress{}
	}
	if err := needLinux(); err != nil {
		return nil, err
	}
	// Where the capture goes is checked before anything runs.
	if err := outdir.CheckCapturePlace(opt.Out, opt.Resume, "carry it on with --resume"); err != nil {
		return nil, err
	}
	if err := c.preflight(); err != nil {
		return nil, err
	}
	for _, cfg := range s.Configs {
		if cfg.DataDir != "" {
			c.dataDir[cfg.Name] = cfg.DataDir
		}
	}
	for _, w := range designWarnings(s, Schedule(s)) {
		c.progress.Logf("warning: %s", red.Text(w))
	}
	if n := red.Ambiguous(); n > 0 {
		c.progress.Logf("warning: %d secret(s) of the study are short, ordinary words (such as postgres) or also written elsewhere in the study "+
			"(a test's SQL): they are removed where they stand as secrets (DSNs, password keys, commands), but not searched for in recorded output "+
			"or the rest of the study, where masking them would change ordinary text; a step or a server that prints one has it stored", n)
	}

	items := Schedule(s)
	done, err := c.open(len(items))
	if err != nil {
		return nil, err
	}
	defer c.w.Close()
	defer c.dropCgroups()
	if opt.Resume {
		if err := c.loadFound(items); err != nil {
			return nil, fmt.Errorf("resume %s: read what earlier sessions found of the servers' settings: %w", opt.Out, err)
		}
	}
	c.noteRunning(ctx)
	if err := c.calibrate(ctx, "start", len(done) < len(items)); err != nil {
		return &Summary{Dir: opt.Out, Scheduled: len(items), Done: len(done)}, err
	}
	sum, err := c.runAll(ctx, items, done)
	finished := sum.Done == sum.Scheduled && !sum.Interrupted && ctx.Err() == nil
	c.calibrate(ctx, "end", sum.Ran > 0 && finished)
	if finished && !opt.NoCompact && (err == nil || errors.Is(err, ErrRunsFailed)) {
		c.compact()
	}
	if ferr := c.finish(ctx); ferr != nil {
		c.progress.Logf("warning: the servers are not all as collect found them: %v", ferr)
		err = errors.Join(err, fmt.Errorf("put the servers back as found: %w", ferr))
	}
	return sum, err
}

// compact merges the finished study's parts, under the writer's lock. A
// failure leaves the capture as it was written, whole: a warning.
func (c *collector) compact() {
	sum, err := c.w.Compact(samples.CompactOptions{})
	switch {
	case err != nil:
		c.progress.Logf("warning: the capture is whole, but it could not be compacted (%v): run pgstudy compact %s", err, c.opt.Out)
	case sum.Groups > 0:
		c.progress.Logf("compacted the capture: %d files into %d", sum.FilesBefore, sum.FilesAfter)
	}
}

// open creates the capture, or reopens it to resume, and writes the
// session: the study (its secrets removed) and the host's facts. It
// returns the runs already in the capture.
func (c *collector) open(scheduled int) (map[int64]bool, error) {
	s, opt, red := c.study, c.opt, c.red
	studyText, err := red.Study(string(s.Text))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(studyText))
	wopt := samples.Options{Redact: red.String, Note: func(s string) { c.progress.Logf("warning: %s", s) }}
	done := map[int64]bool{}
	if opt.Resume {
		var st *samples.State
		c.w, st, err = samples.Resume(opt.Out, wopt)
		if err != nil {
			return nil, fmt.Errorf("resume %s: %w", opt.Out, err)
		}
		if st.Last.StudySHA256 != hex.EncodeToString(sum[:]) {
			c.w.Close()
			return nil, fmt.Errorf("resume %s: the study file %s is not the one this capture was started with; "+
				"resume with the same study, or start a new capture", opt.Out, s.File)
		}
		done = st.Done
	} else if c.w, err = samples.Create(opt.Out, wopt); err != nil {
		return nil, fmt.Errorf("create capture: %w", err)
	}
	devices := s.Disk.Devices
	if len(devices) == 0 {
		devices = wholeDisks()
	}
	capRow := samples.Capture{ToolVersion: opt.ToolVersion, StartedAt: time.Now(), Command: opt.Command,
		StudyFile: s.File, StudyYAML: studyText, StudySHA256: hex.EncodeToString(sum[:]), ScheduledRuns: int64(scheduled)}
	if err := c.w.WriteSession(capRow, hostFacts(devices)); err != nil {
		c.w.Close()
		return nil, fmt.Errorf("write capture: %w", err)
	}
	return done, nil
}

// runAll makes each run of the schedule not yet done, committing each
// before the next starts.
func (c *collector) runAll(ctx context.Context, items []Item, done map[int64]bool) (*Summary, error) {
	s, opt, red := c.study, c.opt, c.red
	sumry := &Summary{Dir: opt.Out, Scheduled: len(items), Done: len(done)}
	c.progress.Begin(len(items), len(done))
	defer c.progress.End()
	for _, it := range items {
		if done[it.RunID] {
			continue
		}
		if stopped(opt.Stop) || ctx.Err() != nil {
			sumry.Interrupted = true
			break
		}
		c.progress.RunStart(it)
		rec := c.runOne(ctx, it)
		b := rec.b
		if ctx.Err() != nil {
			// A hard stop in the middle of the run: it is not recorded,
			// and resume runs it again.
			rec.discard()
			sumry.Interrupted = true
			break
		}
		if err := rec.commit(c.w); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return sumry, fmt.Errorf("the capture's disk is full: %w; the %d runs before this one are in the capture: "+
					"make room, then carry on with --resume", err, sumry.Done)
			}
			return sumry, fmt.Errorf("record %w", err)
		}
		sumry.Ran++
		sumry.Done++
		elapsed := time.Duration(b.Run.ElapsedNs)
		c.progress.RunEnd(it, b.Run.Status, elapsed, red.Text(b.Run.Error))
		if b.Run.Status != "ok" {
			sumry.Failed++
			if s.Protocol.OnFailure == "stop" {
				return sumry, fmt.Errorf("run %d (%s on %s, round %d) failed, and on_failure is stop: %s: %w",
					it.RunID, it.Test.Name, it.Config.Name, it.Round, red.Text(b.Run.Error), ErrRunsFailed)
			}
		}
	}
	if sumry.Interrupted {
		return sumry, ErrInterrupted
	}
	if sumry.Failed > 0 {
		return sumry, fmt.Errorf("%d of %d runs failed: %w", sumry.Failed, sumry.Ran, ErrRunsFailed)
	}
	return sumry, nil
}

func stopped(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// preflight finds what would fail in every run before the first one
// starts, so that a study does not stop in its fourth hour for a reason
// known at its start.
func (c *collector) preflight() error {
	var errs []error
	for _, st := range c.study.Protocol.Cold {
		switch st.Kind {
		case "drop-caches":
			if err := CanDropCaches(); err != nil {
				errs = append(errs, err)
			}
		case "evict":
			for _, p := range st.Paths {
				if _, err := os.Stat(p); err != nil {
					errs = append(errs, fmt.Errorf("cold step %q: %w", st.String(), err))
				}
			}
		}
	}
	errs = append(errs, c.cgroupPreflight()...)
	for _, cfg := range c.study.Configs {
		if cfg.Client == "psql" {
			word := strings.Fields(cfg.Psql)[0]
			if _, err := exec.LookPath(word); err != nil {
				// The word may be an assignment carrying a secret
				// (PGPASSWORD=...): the message is masked as the log is.
				shown := c.red.Text(c.red.Structural(word))
				reason := strings.ReplaceAll(err.Error(), word, shown)
				errs = append(errs, fmt.Errorf("configuration %s: the psql client command %q cannot run: %s", cfg.Name, shown, reason))
			}
		}
	}
	return errors.Join(errs...)
}

// runOne makes one timed run and returns its recorder, which holds its
// rows. A failure is recorded in the run, not returned: a failed run is a
// result too.
func (c *collector) runOne(ctx context.Context, it Item) *recorder {
	rec := newRecorder(it)
	run := &rec.b.Run
	run.Status = "ok"
	err := c.timedRun(ctx, it, rec)
	if err != nil {
		run.Status = "failed"
		if errors.Is(err, errTimeout) || isSQLState(err, "57014") {
			run.Status = "timeout"
		}
		run.Error = err.Error()
	}
	return rec
}

// DefaultOut is where a capture goes when no folder is named.
func DefaultOut(study string) string {
	base := strings.TrimSuffix(filepath.Base(study), filepath.Ext(study))
	return base + "-" + time.Now().Format("20060102-150405")
}
