package render

import (
	"strings"
	"testing"
)

func TestConfigLabels(t *testing.T) {
	l := newConfigLabels([]string{"pg17", "pg18.io_method-worker.effective_io_concurrency-1",
		"pg18-io_method-io_uring-effective_io_concurrency-16", "pg18-sync", "x10b_c8r32", "pg18-io_uring-work_mem-4"},
		[]string{"io_method", "effective_io_concurrency", "work_mem"})
	for name, want := range map[string]string{
		"pg17": "pg17",
		"pg18.io_method-worker.effective_io_concurrency-1":    "pg18 io_method=worker eic=1",
		"pg18-io_method-io_uring-effective_io_concurrency-16": "pg18 io_method=io_uring eic=16",
		"pg18-sync":                "pg18-sync",
		"x10b_c8r32":               "x10b_c8r32",
		"pg18-io_uring-work_mem-4": "pg18 io_uring work_mem=4", // io_uring is a value, not a setting
		"unknown":                  "unknown",
	} {
		if got := l.label(name); got != want {
			t.Errorf("label(%q) = %q, want %q", name, got, want)
		}
	}
	if got, want := l.note(), " In the configurations' names, eic is effective_io_concurrency."; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	// Short names that would collide: every name is kept whole.
	l = newConfigLabels([]string{"a.work_mem-4", "a-work_mem-4"}, []string{"work_mem"})
	if got := l.label("a-work_mem-4"); got != "a-work_mem-4" || l.note() != "" {
		t.Errorf("colliding names shortened: %q, note %q", got, l.note())
	}
}

// TestPanelTitle: a long name breaks after its separators, in three lines
// at most, each no wider than a third of a figure's panels.
func TestPanelTitle(t *testing.T) {
	ts := textStyle(panelSize, true)
	for _, name := range []string{"pg18 io_method=io_uring eic=16", "pg18.io_method-io_uring.effective_io_concurrency-16",
		"x.pg18beta3_o2nofp.x10b2_c8r32.pk1.with-a-suffix-long-enough-to-run-past-any-blog-column-b", "pg17"} {
		lines := strings.Split(panelTitle(name, 3), "\n")
		if len(lines) > 3 {
			t.Errorf("%q in %d lines", name, len(lines))
		}
		for _, l := range lines {
			if ts.Width(l) > thirdWidth+25 {
				t.Errorf("%q: line %q is wider than a panel", name, l)
			}
		}
		if name == "pg17" && lines[0] != "pg17" {
			t.Errorf("a short name changed: %q", lines)
		}
	}
	if got := panelTitle("pg18.io_method-io_uring.effective_io_concurrency-16", 3); !strings.HasPrefix(got, "pg18.io_method-") {
		t.Errorf("not broken after a separator: %q", got)
	}
}
