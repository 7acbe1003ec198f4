package pgtest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestChromiumSeesRequests is the control of the tests that find a page
// made no request: a page that asks for a style sheet, an image and a
// script over the network is seen asking for each, and gets none of them
// (the network is blocked); the same page's DOM is read after load.
func TestChromiumSeesRequests(t *testing.T) {
	page := filepath.Join(t.TempDir(), "fetches.html")
	html := `<!DOCTYPE html><html><head><link rel="stylesheet" href="https://fonts.example.org/font.css">` +
		`<script src="http://cdn.example.com/lib.js"></script></head>` +
		`<body><h1>control</h1><img src="http://images.example.net/a.png" onload="document.title='loaded'"></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	p := pgtest.Chromium(t, page, 800)
	for _, want := range []string{"https://fonts.example.org/font.css", "http://cdn.example.com/lib.js", "http://images.example.net/a.png"} {
		if !slices.Contains(p.Requests, want) {
			t.Errorf("the net log does not show the page asking for %s; it shows %q", want, p.Requests)
		}
	}
	if !strings.Contains(p.DOM, "<h1>control</h1>") || strings.Contains(p.DOM, "<title>loaded</title>") {
		t.Errorf("the DOM after load is not the page's, or its image loaded through a blocked network:\n%s", p.DOM)
	}
}
