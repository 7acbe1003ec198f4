package collect

import (
	"strings"
	"testing"
)

// TestPsqlInputParts: each part of psql's script ends where psql waits
// (a \prompt) and each after the first starts with the answer, so that
// sent in parts or at once psql reads the same script; before 15 there
// is no statistics flush, but the last prompt is still answered.
func TestPsqlInputParts(t *testing.T) {
	const token = "0123456789abcdef"
	for _, version := range []int32{140000, 170000} {
		s := psqlInput([]string{`SET "work_mem" = '64MB'`}, "select 1 -- the end", version, token)
		if !strings.HasSuffix(s.prologue, `\prompt 'pgstudy:before `+token+`\n' pgstudy_go`+"\n") ||
			!strings.Contains(s.prologue, "SET \"work_mem\" = '64MB';\n") ||
			!strings.Contains(s.prologue, `\echo pgstudy:backend `+token+" :pgstudy_backend_pid\n") {
			t.Errorf("%d: prologue %q", version, s.prologue)
		}
		if !strings.HasPrefix(s.body, psqlAnswer) || !strings.Contains(s.body, "\\timing on\nselect 1 -- the end\n;\n\\timing off\n") ||
			!strings.HasSuffix(s.body, `\prompt 'pgstudy:after `+token+`\n' pgstudy_go`+"\n") {
			t.Errorf("%d: body %q", version, s.body)
		}
		flush := strings.Contains(s.epilogue, "pg_stat_force_next_flush")
		if !strings.HasPrefix(s.epilogue, psqlAnswer) || flush != (version >= 150000) {
			t.Errorf("%d: epilogue %q", version, s.epilogue)
		}
		if s.String() != s.prologue+s.body+s.epilogue {
			t.Errorf("%d: the whole script is not its parts", version)
		}
	}
	if tok := newToken(); len(tok) != 16 || strings.Trim(tok, "0123456789abcdef") != "" || tok == newToken() {
		t.Errorf("token %q", tok)
	}
	if m, ok := parseMark("backend "+token+" 4242", token); !ok || m.name != "backend" || m.value != "4242" {
		t.Errorf("backend marker: %+v %v", m, ok)
	}
	if _, ok := parseMark("after 1123456789abcdef", token); ok {
		t.Errorf("a marker with another run's token was taken")
	}
}

// TestMarkerWriter: a marker line split across writes is seen once its
// newline arrives; a result line that only looks like one is not, and
// everything written is kept.
func TestMarkerWriter(t *testing.T) {
	const token = "0123456789abcdef"
	w := &markerWriter{prefix: []byte("pgstudy:"), token: token, marks: make(chan psqlMark, 16)}
	parts := []string{"SET\npgstudy:back", "end " + token + " 17\npgstudy:bef", "ore " + token, "\n x\npgstudy:after 0000000000000000\n"}
	for _, p := range parts {
		w.Write([]byte(p))
	}
	var names []string
	for len(w.marks) > 0 {
		names = append(names, (<-w.marks).name)
	}
	if strings.Join(names, " ") != "backend before" || string(w.Bytes()) != strings.Join(parts, "") {
		t.Errorf("marks %v, kept %q", names, w.Bytes())
	}
}
