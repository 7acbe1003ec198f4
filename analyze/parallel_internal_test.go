package analyze

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
	"github.com/pgstudy/pgstudy/samples"
)

// TestGuardsParallel runs the guards of a generated capture one at a time
// and two at a time, and wants the same findings in the same order (run
// with -race, it also finds a guard that writes what another reads).
func TestGuardsParallel(t *testing.T) {
	dir, r := generated(t)
	opt := Options{}
	a, err := Analyze([]Input{{Name: dir, Reader: r}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.defaults()
	one, two := *a, *a
	one.Findings, two.Findings = nil, nil
	one.runGuards(opt, 1)
	two.runGuards(opt, 2)
	if len(one.Findings) == 0 {
		t.Fatal("the capture gives no findings: nothing to compare")
	}
	if !reflect.DeepEqual(one.Findings, two.Findings) {
		t.Errorf("one lane: %d findings, two lanes: %d, or in another order", len(one.Findings), len(two.Findings))
	}
}

// TestEachPartAsReadParts: eachPart hands over, part by part in order,
// the rows samples.ReadParts reads, though it reads them into the same
// few slices; and it stops at fn's error.
func TestEachPartAsReadParts(t *testing.T) {
	_, r := generated(t)
	want, err := samples.Read[samples.Statement](r)
	if err != nil {
		t.Fatal(err)
	}
	var got []samples.Statement
	parts := 0
	err = eachPart(r, func(rows []samples.Statement) error {
		got = append(got, rows...) // a copy: the rows are read into again
		parts++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if parts != 8 || len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d parts, %d rows; samples.Read: %d rows, or they differ", parts, len(got), len(want))
	}
	stop := errors.New("stop")
	parts = 0
	err = eachPart(r, func([]samples.Step) error {
		if parts++; parts == 3 {
			return stop
		}
		return nil
	}, "run_id")
	if err != stop || parts != 3 {
		t.Errorf("stopped after %d parts with %v", parts, err)
	}
}

// TestInOrderParallel: results are used in order whatever order the reads
// end in, no more than readAhead reads are held at once, and the first
// error in order is returned.
func TestInOrderParallel(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		failAt  int // read that fails; -1 none
		useFail int // use that fails; -1 none
		wantErr string
	}{
		{"none", 0, -1, -1, ""},
		{"one", 1, -1, -1, ""},
		{"many", 25, -1, -1, ""},
		{"read fails", 25, 7, -1, "read 7"},
		{"use fails", 25, -1, 3, "use 3"},
		{"first error in order", 25, 9, 4, "use 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var held, most atomic.Int32
			var used []int
			err := inOrder(tt.n, func(i int) (int, error) {
				most.Store(max(most.Load(), held.Add(1)))
				time.Sleep(time.Duration((tt.n-i)%4) * time.Millisecond) // later reads end first
				if i == tt.failAt {
					return 0, fmt.Errorf("read %d", i)
				}
				return i * i, nil
			}, func(i, v int) error {
				held.Add(-1)
				if v != i*i {
					return fmt.Errorf("use %d got %d", i, v)
				}
				if i == tt.useFail {
					return fmt.Errorf("use %d", i)
				}
				used = append(used, i)
				return nil
			})
			if got := errText(err); got != tt.wantErr {
				t.Fatalf("error %q, want %q", got, tt.wantErr)
			}
			for k, i := range used {
				if i != k {
					t.Fatalf("used %v: not in order", used)
				}
			}
			if tt.wantErr == "" && len(used) != tt.n {
				t.Fatalf("used %d of %d", len(used), tt.n)
			}
			if most.Load() > readAhead {
				t.Errorf("%d reads held at once, more than %d", most.Load(), readAhead)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// generated opens a generated capture of 400 runs, 50 a part.
func generated(t *testing.T) (string, *samples.Reader) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "capture")
	if err := gencapture.Generate(dir, gencapture.Options{Runs: 400, RunsPerPart: 50, Samples: 3}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, r
}
