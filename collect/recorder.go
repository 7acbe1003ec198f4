package collect

import (
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgstudy/pgstudy/samples"
)

// recorder gathers the rows of one run as they happen. Notices may arrive
// from a connection's reader while a statement runs, so it is locked.
type recorder struct {
	mu      sync.Mutex
	b       *samples.Batch
	current int32 // the statement running now, for notices
	notices int32
	outputs int32
	steps   int32
	disks   int32     // diskstats snapshots recorded, spilled ones included
	spill   *runSpill // the rows written out while the run goes on; nil for none
}

func newRecorder(item Item) *recorder {
	return &recorder{b: &samples.Batch{Run: samples.Run{
		RunID: item.RunID, Round: int32(item.Round), Position: int32(item.Position),
		Config: item.Config.Name, Test: item.Test.Name, Kind: "timed", Client: item.Config.Client,
	}}}
}

func (r *recorder) beginStatement(phase, sql string) int32 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seq := int32(len(r.b.Statements) + 1)
	r.b.Statements = append(r.b.Statements, samples.Statement{RunID: r.b.Run.RunID, Seq: seq, Phase: phase, SQL: sql, StartedAt: time.Now()})
	r.current = seq
	return seq
}

// endStatement completes a statement's row; the result sets of the
// statements whose output matters (the timed one, before statements) are
// kept as the client's output.
func (r *recorder) endStatement(seq int32, started time.Time, elapsed time.Duration, results []result) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := &r.b.Statements[seq-1]
	st.StartedAt, st.ElapsedNs = started, elapsed.Nanoseconds()
	var tags []string
	for _, res := range results {
		if res.Tag != "" {
			tags = append(tags, res.Tag)
		}
		if res.Err != nil && st.Error == "" {
			st.Error, st.SQLState = res.Err.Error(), sqlState(res.Err)
		}
		if st.Phase == "timed" || st.Phase == "before" {
			if text := resultText(res); text != "" {
				r.outputs++
				r.b.Outputs = append(r.b.Outputs, samples.Output{RunID: r.b.Run.RunID, Statement: seq, Seq: r.outputs, Stream: "result", Text: text})
			}
		}
	}
	st.CommandTag = strings.Join(tags, "; ")
	r.current = 0
}

// resultText renders a result set as a header line and one line per row,
// tab-separated, \N for NULL, and the command tag last.
func resultText(res result) string {
	if len(res.Columns) == 0 && res.Tag == "" {
		return ""
	}
	var b strings.Builder
	if len(res.Columns) > 0 {
		b.WriteString(strings.Join(res.Columns, "\t"))
		b.WriteByte('\n')
		for _, row := range res.Rows {
			for i, v := range row {
				if i > 0 {
					b.WriteByte('\t')
				}
				if v == nil {
					b.WriteString(`\N`)
				} else {
					b.WriteString(*v)
				}
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString(res.Tag)
	b.WriteByte('\n')
	return b.String()
}

func (r *recorder) notice(n *pgconn.Notice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices++
	r.b.Notices = append(r.b.Notices, samples.Notice{RunID: r.b.Run.RunID, Statement: r.current, Seq: r.notices, ReceivedAt: time.Now(),
		Severity: n.Severity, Code: n.Code, Message: n.Message, Detail: n.Detail, Hint: n.Hint, Where: n.Where})
}

// step records something that ran outside the timed statement.
func (r *recorder) step(phase, name, detail string, started time.Time, elapsed time.Duration, exit *int32, output string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps++
	st := samples.Step{RunID: r.b.Run.RunID, Seq: r.steps, Phase: phase, Name: name, Detail: detail, StartedAt: started,
		ElapsedNs: elapsed.Nanoseconds(), ExitCode: exit, Output: output}
	if err != nil {
		st.Error = err.Error()
	}
	r.b.Steps = append(r.b.Steps, st)
}

func (r *recorder) output(statement int32, stream, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outputs++
	r.b.Outputs = append(r.b.Outputs, samples.Output{RunID: r.b.Run.RunID, Statement: statement, Seq: r.outputs, Stream: stream, Text: text})
}

func (r *recorder) diskstats(phase string, snaps []snapshot, origin time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.diskstatsLocked(phase, snaps, origin)
}

// diskstatsLocked is diskstats, r.mu held.
func (r *recorder) diskstatsLocked(phase string, snaps []snapshot, origin time.Time) {
	for _, s := range snaps {
		if s.Err != nil {
			continue
		}
		r.disks++
		r.b.Diskstats = append(r.b.Diskstats, samples.Diskstats{RunID: r.b.Run.RunID, Seq: r.disks, Phase: phase,
			TakenAt: s.At, OffsetNs: s.At.Sub(origin).Nanoseconds(), Text: s.Text})
	}
}

// clientRun records the timed run of a client program (psql, pgbench,
// sysbench) as the run's timed statement: what it was fed or its command
// line, its time, its error, and everything it printed.
func (r *recorder) clientRun(input string, start time.Time, elapsed time.Duration, res shellResult) {
	seq := r.beginStatement("timed", input)
	r.mu.Lock()
	st := &r.b.Statements[seq-1]
	st.StartedAt, st.ElapsedNs = start, elapsed.Nanoseconds()
	if res.Err != nil {
		st.Error = res.Err.Error()
	}
	r.current = 0
	r.mu.Unlock()
	r.output(seq, "stdout", string(res.Stdout))
	r.output(seq, "stderr", string(res.Stderr))
}
