package render

import "testing"

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
