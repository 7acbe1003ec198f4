package study

import (
	"strings"
	"testing"
	"time"
)

// TestCalibrate: protocol.calibrate is absent unless given; given empty it
// takes its defaults; out of bounds it is refused with its place.
func TestCalibrate(t *testing.T) {
	const head = "configs: [{name: a, dsn: \"postgres://u@h/db\"}]\ntests: [{name: t, sql: select 1}]\n"
	s, err := Parse("s.yaml", []byte(head), Options{})
	if err != nil || s.Protocol.Calibrate != nil {
		t.Fatalf("without the key: %+v %v", s.Protocol.Calibrate, err)
	}
	s, err = Parse("s.yaml", []byte(head+"protocol: {calibrate: {}}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Protocol.Calibrate; c == nil || c.Duration.Duration != 3*time.Second || c.SizeMiB != 1024 || c.Depth != 8 || c.Dir != "" {
		t.Errorf("defaults: %+v", c)
	}
	s, err = Parse("s.yaml", []byte(head+"protocol: {calibrate: {duration: 500ms, size_mib: 64, depth: 1, dir: /mnt/data}}\n"), Options{})
	if c := s.Protocol.Calibrate; err != nil || c.Duration.Duration != 500*time.Millisecond || c.SizeMiB != 64 || c.Depth != 1 || c.Dir != "/mnt/data" {
		t.Errorf("given: %+v %v", c, err)
	}
	_, err = Parse("s.yaml", []byte(head+"protocol:\n  calibrate: {duration: 2m, size_mib: 8, depth: 300}\n"), Options{})
	for _, want := range []string{
		"s.yaml:4:14: protocol: calibrate: duration must be at most 1m0s per pattern, found 2m0s",
		"s.yaml:4:14: protocol: calibrate: size_mib must be from 16 to 65536, found 8",
		"s.yaml:4:14: protocol: calibrate: depth must be from 1 to 256, found 300",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("out of bounds: %v; want %q", err, want)
		}
	}
}
