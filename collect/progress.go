package collect

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress is told what a collect is doing.
type Progress interface {
	Begin(total, done int)
	RunStart(it Item)
	RunEnd(it Item, status string, elapsed time.Duration, errText string)
	Logf(format string, args ...any)
	End()
}

type nopProgress struct{}

func (nopProgress) Begin(int, int)                             {}
func (nopProgress) RunStart(Item)                              {}
func (nopProgress) RunEnd(Item, string, time.Duration, string) {}
func (nopProgress) Logf(string, ...any)                        {}
func (nopProgress) End()                                       {}

// NewProgress reports on w: on a terminal, one line that keeps itself up
// to date; otherwise one plain line per run. Quiet keeps only warnings
// and failed runs.
func NewProgress(w io.Writer, terminal, quiet bool, red *Redactor) Progress {
	return &progress{w: w, terminal: terminal, quiet: quiet, red: red}
}

type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	quiet    bool
	red      *Redactor

	total, done, ran int
	begin            time.Time
	runTime          time.Duration // spent on the runs of this session
	cur              *Item
	curStart         time.Time
	tick             *time.Ticker
	stop             chan struct{}
}

func (p *progress) Begin(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done, p.begin = total, done, time.Now()
	if done > 0 {
		p.printf("resuming: %d of %d runs are already in the capture\n", done, total)
	}
	if p.terminal && !p.quiet {
		p.tick = time.NewTicker(time.Second)
		p.stop = make(chan struct{})
		go func() {
			for {
				select {
				case <-p.stop:
					return
				case <-p.tick.C:
					p.mu.Lock()
					p.redraw()
					p.mu.Unlock()
				}
			}
		}()
	}
}

func (p *progress) RunStart(it Item) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur, p.curStart = &it, time.Now()
	if p.quiet {
		return
	}
	if p.terminal {
		p.redraw()
	} else {
		p.printf("run %d/%d: round %d, %s on %s, position %d\n", p.done+1, p.total, it.Round, it.Test.Name, it.Config.Name, it.Position)
	}
}

func (p *progress) RunEnd(it Item, status string, elapsed time.Duration, errText string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.ran++
	p.runTime += time.Since(p.curStart)
	p.cur = nil
	switch {
	case status != "ok":
		p.clear()
		p.printf("run %d/%d %s: round %d, %s on %s: %s\n", p.done, p.total, status, it.Round, it.Test.Name, it.Config.Name, errText)
	case p.quiet:
	case !p.terminal:
		p.printf("run %d/%d ok: %s on %s in %s\n", p.done, p.total, it.Test.Name, it.Config.Name, roundDuration(elapsed))
	}
	if p.terminal && !p.quiet {
		p.redraw()
	}
}

func (p *progress) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.printf(format+"\n", args...)
}

func (p *progress) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		p.tick.Stop()
		close(p.stop)
		p.stop = nil
	}
	p.clear()
}

// eta is from the mean time of this session's runs, cold steps included.
func (p *progress) eta() string {
	if p.ran == 0 {
		return "ETA unknown"
	}
	left := time.Duration(p.total-p.done) * (p.runTime / time.Duration(p.ran))
	if p.cur != nil {
		left -= min(time.Since(p.curStart), p.runTime/time.Duration(p.ran))
	}
	return "ETA " + roundDuration(max(left, 0))
}

func (p *progress) redraw() {
	line := fmt.Sprintf("[%d/%d] %s elapsed, %s", p.done, p.total, roundDuration(time.Since(p.begin)), p.eta())
	if p.cur != nil {
		line = fmt.Sprintf("[%d/%d] round %d/%s: %s on %s (position %d), %s; %s elapsed, %s",
			p.done+1, p.total, p.cur.Round, p.roundsGuess(), p.cur.Test.Name, p.cur.Config.Name, p.cur.Position,
			roundDuration(time.Since(p.curStart)), roundDuration(time.Since(p.begin)), p.eta())
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", p.red.Text(line))
}

func (p *progress) roundsGuess() string {
	if p.cur == nil {
		return "?"
	}
	return fmt.Sprint(p.cur.rounds)
}

func (p *progress) clear() {
	if p.terminal && !p.quiet {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func (p *progress) printf(format string, args ...any) {
	fmt.Fprint(p.w, p.red.Text(fmt.Sprintf(format, args...)))
}

func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
