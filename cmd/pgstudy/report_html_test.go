package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestReportHTMLFlag: report --html writes report.html beside report.md,
// counts it among the files and names it as the file to open; without
// --html there is none.
func TestReportHTMLFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	code, _, stderr := runInProcess("report", "-o", dir, "--html")
	if code != 0 || !strings.Contains(stderr, "open "+filepath.Join(dir, "report.html")) {
		t.Fatalf("report --html: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.Contains(string(b), "<h2>How we measured</h2>") {
		t.Fatalf("report.html: %v", err)
	}
	if code, _, stderr := runInProcess("report", "-o", dir); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); !os.IsNotExist(err) {
		t.Errorf("a report without --html left report.html in place (%v)", err)
	}
}

// hostileMarkup is text that would be markup if it reached an HTML page
// unescaped: a script, an image with a handler, an attribute's end, and
// entities that must stay as they were typed.
const hostileMarkup = `<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" 'single' a & b &amp; &lt;`

// TestReportHTMLHostile writes report.html from a capture whose
// configurations, a test, a statement, a setting and an error hold
// markup: in the file it is escaped text, and Chromium's DOM of the page
// (the parser's own view, re-serialized) holds no script, no image but
// the figures and no handler, while its text reads as it was typed.
func TestReportHTMLHostile(t *testing.T) {
	dir := t.TempDir()
	capDir := filepath.Join(dir, "capture")
	writeHostileCapture(t, capDir, hostileMarkup)
	out := filepath.Join(dir, "report")
	if code, _, stderr := runInProcess("report", capDir, "-o", out, "--html", "-q"); code != 0 {
		t.Fatalf("report --html: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	escaped := `&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &#34;quoted&#34; &#39;single&#39; a &amp; b &amp;amp; &amp;lt;`
	if n := strings.Count(page, "pg18"+escaped); n < 3 {
		t.Errorf("report.html holds the configuration's name escaped %d times, want it in the title, text and tables", n)
	}
	checkHostileDOM(t, page)
	p := pgtest.Chromium(t, filepath.Join(out, "report.html"), 800)
	checkHostileDOM(t, p.DOM)
	if len(p.Requests) > 0 {
		t.Errorf("the page made requests: %q", p.Requests)
	}
	// The DOM serializes text with <, > and & escaped and quotes as they
	// are: the text is the names as typed.
	text := `&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; "quoted" 'single' a &amp; b &amp;amp; &amp;lt;`
	if !strings.Contains(p.DOM, "<title>"+text+": pg17"+text+" vs pg18"+text+"</title>") || strings.Count(p.DOM, "<li>pg18"+text) < 3 {
		t.Errorf("the rendered page does not show the hostile names as text")
	}
}

// tagRE is an HTML start tag: its name and its attributes; quotedRE an
// attribute's quoted value; handlerRE an event handler's attribute.
var (
	tagRE     = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	quotedRE  = regexp.MustCompile(`"[^"]*"`)
	handlerRE = regexp.MustCompile(`(^|\s)on[a-z]+\s*=`)
)

// checkHostileDOM: the page's elements are report.html's own: no script,
// no handler attribute, no image but a figure's data: URI.
func checkHostileDOM(t *testing.T, page string) {
	t.Helper()
	tags := tagRE.FindAllStringSubmatch(page, -1)
	if len(tags) < 100 {
		t.Fatalf("the page has %d tags: not a report", len(tags))
	}
	for _, m := range tags {
		name, attrs := strings.ToLower(m[1]), strings.ToLower(m[2])
		names := quotedRE.ReplaceAllString(attrs, `""`) // the attributes without their values' text
		switch {
		case name == "script" || name == "iframe" || name == "object" || name == "embed" || name == "link",
			handlerRE.MatchString(names),
			name == "img" && !strings.HasPrefix(attrs, ` src="data:image/svg+xml;base64,`):
			t.Errorf("an element from the capture: %.120s", m[0])
		}
	}
}
