package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
	"github.com/spf13/cobra"
)

// Exit codes, in one place.
const (
	exitOK          = 0
	exitError       = 1   // something failed
	exitUsage       = 2   // the command line or the study file is wrong
	exitRunsFailed  = 3   // the study finished, but some runs failed
	exitInterrupted = 130 // stopped by SIGINT (128 + the signal: 143 for SIGTERM); the capture is valid
)

// usageError marks an error in how pgstudy was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var ue usageError
	var le study.ErrorList
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.As(err, &le):
		return exitUsage
	case errors.Is(err, collect.ErrInterrupted):
		return exitInterrupted
	case errors.Is(err, collect.ErrRunsFailed):
		return exitRunsFailed
	}
	return exitError
}

// version is set by the build (-ldflags "-X main.version=..."), else read
// from the module's build information.
var version = ""

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		if v != "" {
			return v
		}
	}
	return "(devel)"
}

// run is the whole program with its inputs and outputs, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signalContext(stderr)
	defer stop.release()
	defer samples.ReleaseReadLocks() // a fleet's, taken as it was read
	root := newRootCmd(stop)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	addCompletion(root)
	err := root.ExecuteContext(ctx)
	stopped := stop.first.Load() != 0 && errors.Is(err, context.Canceled) // and said so
	if err != nil && !errors.Is(err, collect.ErrInterrupted) && !stopped {
		fmt.Fprintf(stderr, "pgstudy: %s\n", terminalSafe(err.Error()))
	}
	if stop.first.Load() != 0 && (errors.Is(err, collect.ErrInterrupted) || !stop.armed.Load()) {
		return stop.exitCode()
	}
	return exitCode(err)
}

// terminalSafe escapes the control characters of a message that quotes
// what a user's files hold (a file name in a manifest, a line of output),
// so that none reaches the terminal as a command to it (ESC [2J clears
// the screen): they are written as Go writes them in strings, \x1b.
func terminalSafe(s string) string {
	if !strings.ContainsFunc(s, isTerminalControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isTerminalControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isTerminalControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0
}

// newRootCmd is pgstudy with every command, each running for real.
func newRootCmd(stop *stopper) *cobra.Command {
	root := newRoot()
	root.AddCommand(newInitCmd(nil), newCollectCmd(stop, nil), newImportCmd(stop, nil), newParseCmd(nil),
		newAnalyzeCmd(nil), newCheckCmd(nil), newReportCmd(nil), newPlotCmd(nil), newCompareCmd(nil), newSchemaCmd(nil),
		newCompactCmd(nil))
	return root
}

// addCompletion makes cobra's own completion command now, once the root
// writes where it should (cobra takes the writer when it makes it), so
// that its help has examples as every other command's does.
func addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = `  source <(pgstudy completion bash)                 # bash, this shell
  pgstudy completion zsh > "${fpath[1]}/_pgstudy"   # zsh, every shell
  pgstudy completion fish > ~/.config/fish/completions/pgstudy.fish`
		}
	}
}

// newRoot is the root command without its commands: what they share (a
// bad flag is a usage error; run prints errors, once).
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "pgstudy",
		Short: "Run PostgreSQL performance studies and report numbers a reader can trust",
		Long: `pgstudy runs performance studies of PostgreSQL configurations.

On the database host, ` + "`pgstudy collect`" + ` runs a study file: configurations take turns
within each round, the cache is made cold before every timed statement, and every
raw output (client output, server notices, plans, /proc/diskstats, settings) is
recorded to a capture folder of Parquet files.`,
		Example: `  pgstudy init study.yaml                 # write an example study to edit
  pgstudy collect study.yaml --dry-run     # print the schedule
  pgstudy collect study.yaml -o capture/   # run it`,
		Version:       toolVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return root
}

// streams are where a command reads and writes: its cobra command's, which
// run (and the tests) set.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

func streamsOf(cmd *cobra.Command) streams {
	return streams{in: cmd.InOrStdin(), out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}
}

// runFunc runs a command with its options once they are valid. Each
// newXCmd takes one, nil for the command's own (xRun): a test passes one
// that records the options, to test the flags without running anything.
type runFunc[O any] func(ctx context.Context, o *O, s streams) error

// options are a command's options: validate takes its arguments into them
// and checks them, without running anything.
type options[O any] interface {
	*O
	validate(args []string) error
}

// runE is a command's body: the options checked, then run.
func runE[O any, P options[O]](o P, run runFunc[O]) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.validate(args); err != nil {
			return err
		}
		return run(cmd.Context(), o, streamsOf(cmd))
	}
}

// usagef is a usage error with a message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// stopper turns the first SIGINT, SIGTERM or SIGHUP into a request to stop after
// the current run, and a second one into cancelling it, in a command that
// armed it (collect, import: they leave a valid capture). Any other
// command stops at once, as a kill would stop it: each of them leaves
// what it writes whole or not at all (output folders are swapped in,
// facts are renamed into place, a compaction is journaled). Each says so
// on stderr, so that a user (or a test) knows the signal was taken.
type stopper struct {
	soft    chan struct{}
	sigs    chan os.Signal
	cancel  context.CancelFunc
	release func()
	armed   atomic.Bool
	holding atomic.Bool  // storing: a signal cancels the context, the command ends once what it writes is whole
	first   atomic.Int32 // the first signal's number, for the exit code
	// gate is held while parse writes its output: a signal's exit waits
	// for the write in progress, so that no record is left cut.
	gate sync.Mutex
	// input is closed by the first signal when parse reads a pipe
	// (endsInput): it ends the input, not the process (see endable).
	input     chan struct{}
	endsInput atomic.Bool
}

// endInput makes the first signal end parse's input from a pipe rather
// than the process (see endable), and returns the channel it closes.
func (s *stopper) endInput() <-chan struct{} {
	s.endsInput.Store(true)
	return s.input
}

// inputGrace is how long parse has to end once a signal ended its input;
// past it (a write nobody reads), the process ends as for other commands.
const inputGrace = 3 * time.Second

// stopperKey is the context key of the command's stopper.
type stopperKey struct{}

// exitCode is the exit code of a command a signal stopped: 128 plus the
// signal's number, as a shell reports it (130 for SIGINT, 143 for SIGTERM).
func (s *stopper) exitCode() int { return 128 + int(s.first.Load()) }

// storeFacts stores the facts an analysis computed (Analysis.StoreFacts)
// with signals held: one that comes meanwhile stops the store between two
// parts, each whole, rather than the process in the middle of one, which
// would leave a temporary file in the capture; the command then ends
// with the signal's exit code.
func storeFacts(ctx context.Context, a *analyze.Analysis) bool {
	defer holdSignals(ctx)()
	return a.StoreFacts(ctx)
}

// holdSignals makes a signal cancel ctx, rather than end the process,
// until the function it returns is called: the command stops once what
// it writes is whole.
func holdSignals(ctx context.Context) (release func()) {
	s, ok := ctx.Value(stopperKey{}).(*stopper)
	if !ok {
		return func() {}
	}
	s.holding.Store(true)
	return func() { s.holding.Store(false) }
}

// armed is run, with the first signal a request to stop after the run
// in progress while it runs.
func armed[O any](s *stopper, run runFunc[O]) runFunc[O] {
	return func(ctx context.Context, o *O, std streams) error {
		s.armed.Store(true)
		return run(ctx, o, std)
	}
}

func signalContext(stderr io.Writer) (context.Context, *stopper) {
	s := &stopper{soft: make(chan struct{}), sigs: make(chan os.Signal, 2), input: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), stopperKey{}, s))
	s.cancel = cancel
	signal.Notify(s.sigs, os.Interrupt, syscall.SIGTERM)
	// A closed terminal's SIGHUP too, unless it is ignored (nohup):
	// handling it would undo nohup.
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(s.sigs, syscall.SIGHUP)
	}
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case sig := <-s.sigs:
				n++
				if num, ok := sig.(syscall.Signal); ok {
					s.first.CompareAndSwap(0, int32(num))
				}
				switch {
				case s.holding.Load():
					fmt.Fprintln(stderr, "pgstudy: interrupted; stopping once what is being written is whole")
					cancel()
					continue
				case n == 1 && s.endsInput.Load():
					fmt.Fprintln(stderr, "pgstudy: interrupted; ending the input there")
					close(s.input)
					time.AfterFunc(inputGrace, func() { exitBetweenWrites(&s.gate, s.exitCode()) })
					continue
				case !s.armed.Load():
					fmt.Fprintln(stderr, "pgstudy: interrupted")
					exitBetweenWrites(&s.gate, s.exitCode())
				}
				if n == 1 {
					fmt.Fprintln(stderr, "pgstudy: stopping after the run in progress (send the signal again to stop at once)")
					close(s.soft)
				} else {
					fmt.Fprintln(stderr, "pgstudy: stopping now; the run in progress is not recorded")
					cancel()
				}
			}
		}
	}()
	s.release = func() {
		signal.Stop(s.sigs)
		close(done)
		cancel()
	}
	return ctx, s
}
