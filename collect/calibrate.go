package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// The calibration (protocol: calibrate) measures the read ceiling of the
// device under each data directory, so that the analysis can say which
// runs the device bounded without a declared limit. For each device:
//
//  1. The file is made next to the data directory (its parent, or the
//     data directory itself when the parent is another file system, or
//     calibrate.dir): .pgstudy-calibrate-CAPTURE-sSESSION-PHASE, created
//     exclusively (never a file that exists), refused when the file
//     system would keep less than 5% free. It is written with O_DIRECT
//     and synced (row "write").
//  2. It is read with O_DIRECT for the set time, sequentially in 1 MiB
//     requests, then at random in 4 KiB ones, depth requests in flight
//     (rows "sequential", "random"), /proc/diskstats read around each.
//  3. It is removed. A collector killed in between leaves it; the next
//     calibration of the capture removes files of its name (the capture's
//     random id is in it), and nothing else.
//
// It runs at the start of every session with runs to do (a resume
// measures again: the device may have changed while it was stopped) and
// after the last run of the schedule; a session interrupted before the end
// has none after. The servers are left as they are: running, if they were.

const (
	calSeqBlock    = 1 << 20
	calRandomBlock = 4 << 10
	// calKeepFree is the share of its file system the calibration file
	// must leave free.
	calKeepFree = 0.05
)

// calTarget is a device to calibrate, where its file goes, and the
// configurations whose data it holds.
type calTarget struct {
	device, dir string
	configs     []string
}

// calibrate measures the devices when the study asks and when is true.
// At the start, a device that cannot be measured stops the collect before
// the first run (the rows say why): the study asked for a ceiling it would
// not get. At the end a failure is only said.
func (c *collector) calibrate(ctx context.Context, phase string, when bool) error {
	cal := c.study.Protocol.Calibrate
	if cal == nil || !when {
		return nil
	}
	targets, err := c.calibrationTargets(ctx)
	if err == nil && !directIO {
		err = errors.New("calibration reads with O_DIRECT, which this build of pgstudy does only on Linux")
	}
	var errs []error
	if err != nil {
		errs = append(errs, err)
		row := samples.Calibration{Phase: phase, Pattern: "none", StartedAt: time.Now(), Error: err.Error()}
		errs = append(errs, c.writeCalibrations([]samples.Calibration{row}))
	}
	for _, t := range targets {
		if err != nil || ctx.Err() != nil {
			break
		}
		rows, terr := c.calibrateDevice(ctx, t, phase)
		if terr != nil {
			errs = append(errs, fmt.Errorf("device %s: %w", t.device, terr))
		}
		errs = append(errs, c.writeCalibrations(rows))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stopped during the calibration (%s): %w", phase, ErrInterrupted)
	}
	if err := errors.Join(errs...); err != nil {
		if phase == "start" {
			return fmt.Errorf("protocol: calibrate: %w; fix it, or remove calibrate from the study, then carry on with --resume", err)
		}
		c.progress.Logf("warning: protocol: calibrate after the last run: %v", err)
	}
	return nil
}

func (c *collector) writeCalibrations(rows []samples.Calibration) error {
	if err := c.w.WriteCalibrations(rows); err != nil {
		return fmt.Errorf("record the calibration: %w", err)
	}
	return nil
}

// calibrationTargets finds each device to measure: that of calibrate.dir,
// or of each configuration's data directory, asked of its server when the
// study does not give it and the server is up.
func (c *collector) calibrationTargets(ctx context.Context) ([]calTarget, error) {
	cal := c.study.Protocol.Calibrate
	var targets []calTarget
	for i := range c.study.Configs {
		cfg := &c.study.Configs[i]
		dir := cal.Dir
		if dir == "" {
			if c.dataDir[cfg.Name] == "" && reachable(ctx, cfg.DSN) {
				if s, err := connect(ctx, cfg.DSN, nil); err == nil {
					c.learnDataDir(ctx, s, cfg)
					s.Close()
				}
			}
			if dir = c.dataDir[cfg.Name]; dir == "" {
				return nil, fmt.Errorf("the data directory of configuration %s is not known on this machine before its first run "+
					"(its server is not up, or keeps its data elsewhere, as in a container): give it as data_dir:, or the folder to measure as calibrate: {dir: ...}", cfg.Name)
			}
		}
		dev, _, err := deviceOf(dir)
		if err != nil {
			return nil, err
		}
		if dev == "" {
			return nil, fmt.Errorf("%s (configuration %s) is on no block device (a tmpfs or an overlay?): there is no device ceiling to measure", dir, cfg.Name)
		}
		if j := slices.IndexFunc(targets, func(t calTarget) bool { return t.device == dev }); j >= 0 {
			targets[j].configs = append(targets[j].configs, cfg.Name)
			continue
		}
		loc := dir
		if parent := filepath.Dir(dir); cal.Dir == "" && sameDevice(parent, dir) {
			loc = parent
		}
		targets = append(targets, calTarget{device: dev, dir: loc, configs: []string{cfg.Name}})
	}
	return targets, nil
}

// calibrateDevice makes the file, reads it in each pattern and removes it.
// The rows it returns say what was done, up to what failed.
func (c *collector) calibrateDevice(ctx context.Context, t calTarget, phase string) ([]samples.Calibration, error) {
	cal := c.study.Protocol.Calibrate
	size := cal.SizeMiB << 20
	prefix := ".pgstudy-calibrate-" + c.w.CaptureID() + "-"
	file := filepath.Join(t.dir, fmt.Sprintf("%ss%03d-%s", prefix, c.w.Session(), phase))
	base := samples.Calibration{Phase: phase, Device: t.device, Configs: strings.Join(t.configs, ","), File: file, FileSize: size}
	fail := func(err error) ([]samples.Calibration, error) {
		row := base
		row.Pattern, row.StartedAt, row.Error = "none", time.Now(), err.Error()
		return []samples.Calibration{row}, err
	}
	// What an earlier calibration of this capture left (a kill): by name.
	if old, _ := filepath.Glob(filepath.Join(globQuote(t.dir), globQuote(prefix)+"*")); len(old) > 0 {
		for _, f := range old {
			os.Remove(f)
		}
	}
	free, total, err := freeBytes(t.dir)
	if err != nil {
		return fail(err)
	}
	if keep := int64(calKeepFree * float64(total)); free-size < keep {
		return fail(fmt.Errorf("refused: %s has %d MiB free, and a calibration file of %d MiB would leave less than %.0f%% of its %d MiB; "+
			"make room, or make the file smaller (calibrate: {size_mib: ...})", t.dir, free>>20, size>>20, 100*calKeepFree, total>>20))
	}
	c.progress.Logf("calibrating %s (%s): writing %d MiB in %s, then reading it for %s sequentially and %s at random",
		t.device, base.Configs, size>>20, t.dir, cal.Duration.Duration, cal.Duration.Duration)
	defer os.Remove(file)
	var rows []samples.Calibration
	measure := func(pattern string, block int64, depth int, do func() (readResult, error)) error {
		row := base
		row.Pattern, row.BlockSize, row.Depth = pattern, block, int32(depth)
		before := readDiskstats()
		row.StartedAt = before.At
		res, err := do()
		after := readDiskstats()
		row.DiskstatsBefore, row.DiskstatsAfter = before.Text, after.Text
		row.ElapsedNs = res.Elapsed.Nanoseconds()
		if err != nil {
			row.Error = err.Error()
		} else {
			row.Bytes, row.Requests = &res.Bytes, &res.Requests
		}
		rows = append(rows, row)
		return err
	}
	err = measure("write", calSeqBlock, 1, func() (readResult, error) {
		start := time.Now()
		err := writeCalibrationFile(ctx, file, size)
		return readResult{Bytes: size, Requests: size / calSeqBlock, Elapsed: time.Since(start)}, err
	})
	if err != nil {
		return rows, err
	}
	for _, p := range []struct {
		name   string
		block  int64
		random bool
	}{{"sequential", calSeqBlock, false}, {"random", calRandomBlock, true}} {
		err := measure(p.name, p.block, cal.Depth, func() (readResult, error) {
			return directReads(ctx, file, size, p.block, p.random, cal.Depth, cal.Duration.Duration)
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// globQuote escapes what filepath.Glob would read as a pattern.
func globQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}

// printCalibration says, for --dry-run, what the calibration will do.
func printCalibration(w io.Writer, s *study.Study) error {
	cal := s.Protocol.Calibrate
	if cal == nil {
		return nil
	}
	where := "beside each configuration's data directory"
	if cal.Dir != "" {
		where = "in " + cal.Dir
	}
	_, err := fmt.Fprintf(w, "calibrate: before the first run and after the last, a %d MiB file %s, per device: written, read with O_DIRECT "+
		"for %s sequentially (1 MiB requests) and %s at random (4 KiB), %d in flight, removed\n",
		cal.SizeMiB, where, cal.Duration.Duration, cal.Duration.Duration, cal.Depth)
	return err
}
