package psql

import "strings"

// Marker is a line pgstudy's collector has psql print around the timed
// statement, so that it can take its snapshots at the statement's edges
// inside the session: "pgstudy:backend TOKEN PID" (\echo, after the
// settings), "pgstudy:before TOKEN" and "pgstudy:after TOKEN" (\prompt,
// which waits for the collector's answer). TOKEN is 16 hex digits, one per
// run. Markers are read back here, not reported as output or warnings.
type Marker struct {
	Line  int    `json:"line"`
	Name  string `json:"name"` // "backend", "before" or "after"
	Token string `json:"token"`
	// Value is the backend's PID for "backend", "" otherwise.
	Value string `json:"value,omitempty"`
}

// Marker returns the first marker named name, or nil.
func (o *Output) Marker(name string) *Marker {
	for i := range o.Markers {
		if o.Markers[i].Name == name {
			return &o.Markers[i]
		}
	}
	return nil
}

const markerPrefix = "pgstudy:"

// parseMarker reads a marker line; ok is false for any other line.
func parseMarker(l string) (m Marker, ok bool) {
	rest, found := strings.CutPrefix(l, markerPrefix)
	if !found {
		return m, false
	}
	f := strings.Split(rest, " ")
	if len(f) < 2 || !isToken(f[1]) {
		return m, false
	}
	m.Name, m.Token = f[0], f[1]
	switch {
	case m.Name == "backend" && len(f) == 3 && isDigits(f[2]):
		m.Value = f[2]
	case (m.Name == "before" || m.Name == "after") && len(f) == 2:
	default:
		return Marker{}, false
	}
	return m, true
}

func isToken(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// marker reads marker line i: it ends whatever was open before it.
func (p *parser) marker(i int, m Marker) {
	p.closeMsg()
	if p.echo != nil {
		p.endEcho()
	}
	p.closeStmt()
	p.closeMeta()
	p.flushBlock()
	m.Line = i + 1
	p.addMarker(&m)
}
