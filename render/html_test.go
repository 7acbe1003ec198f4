package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// sampleHTML writes the sample's report with report.html into a new
// folder and returns the folder.
func sampleHTML(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "report")
	if _, _, err := Report(dir, nil, sampleAnalysis(t), ReportOptions{HTML: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	htmlHeadingRE = regexp.MustCompile(`<h([1-6])>(.*)</h[1-6]>`)
	mdHeadingRE   = regexp.MustCompile(`(?m)^(#{1,6}) (.*)$`)
	mdEscapeRE    = regexp.MustCompile(`\\([[:punct:]])`)
	imgRE         = regexp.MustCompile(`<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]*)" alt="[^"]*" width="[0-9]+" height="[0-9]+">`)
)

// TestReportHTML reads report.html as text: it refers to nothing outside
// itself, each figure in it is its SVG file byte for byte, and it has
// report.md's headings, tables, figures and captions.
func TestReportHTML(t *testing.T) {
	dir := sampleHTML(t)
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, bad := range []string{"<script", "<link", "<iframe", "<object", "<embed", "@import", "url(", "href=", "http:", "https:", "@font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html holds %q", bad)
		}
	}
	if n, m := strings.Count(page, "src="), len(imgRE.FindAllString(page, -1)); n != m || n == 0 {
		t.Errorf("report.html has %d src attributes, %d of them a figure's data: URI", n, m)
	}
	// Each figure is its file's bytes, in report.md's order.
	var figs []string
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "![") {
			figs = append(figs, line[strings.Index(line, "](")+2:len(line)-1])
		}
	}
	imgs := imgRE.FindAllStringSubmatch(page, -1)
	if len(imgs) != len(figs) {
		t.Fatalf("report.html shows %d figures, report.md %d", len(imgs), len(figs))
	}
	for i, m := range imgs {
		svg, err := base64.StdEncoding.DecodeString(m[1])
		want, rerr := os.ReadFile(filepath.Join(dir, figs[i]))
		if err != nil || rerr != nil || !bytes.Equal(svg, want) {
			t.Errorf("figure %d of report.html is not %s (%v, %v)", i+1, figs[i], err, rerr)
		}
	}
	// The same headings, tables and captions as report.md.
	var mdHeads, htmlHeads []string
	for _, m := range mdHeadingRE.FindAllStringSubmatch(string(md), -1) {
		mdHeads = append(mdHeads, mdEscapeRE.ReplaceAllString(m[2], "$1"))
	}
	for _, m := range htmlHeadingRE.FindAllStringSubmatch(page, -1) {
		htmlHeads = append(htmlHeads, html.UnescapeString(m[2]))
	}
	if strings.Join(mdHeads, "\n") != strings.Join(htmlHeads, "\n") {
		t.Errorf("the headings differ:\n%s", lineDiff(strings.Join(mdHeads, "\n"), strings.Join(htmlHeads, "\n")))
	}
	if n, m := strings.Count(string(md), "\n|---"), strings.Count(page, "<table>"); n != m || n == 0 {
		t.Errorf("report.md has %d tables, report.html %d", n, m)
	}
	for _, want := range []string{`<th class="num">pg18</th>`, `<td>bitmap</td><td class="num">1.00</td><td class="num">0.40</td>`,
		"<figcaption>Each dot is one run of bitmap", "<li><strong>warning</strong> (settings): data_checksums differs"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// htmlProbe is added to the test's copy of report.html, never to
// report.html: after load it writes, into a <pre id="probe">, the
// window's width, the page's, each image's rendered box and decoded width,
// and what the page's security policy refused.
const htmlProbe = `<script nonce="probe">
const refused = [];
document.addEventListener("securitypolicyviolation", e => refused.push(e.violatedDirective + " " + e.blockedURI));
addEventListener("load", () => {
	const figures = [...document.images].map(i => {
		const r = i.getBoundingClientRect();
		return {width: r.width, height: r.height, decoded: i.complete ? i.naturalWidth : 0, shown: getComputedStyle(i).visibility};
	});
	const pre = document.createElement("pre");
	pre.id = "probe";
	pre.textContent = JSON.stringify({window: innerWidth, page: document.documentElement.scrollWidth, figures, refused});
	document.body.append(pre);
});
</script>
`

// TestReportHTMLChromium opens report.html in headless Chromium with the
// network blocked, as narrow as headless Chromium goes (500 CSS pixels):
// it renders the report's headings and tables, every figure is decoded
// and shown at a size above zero within the window, nothing is wider than
// the window, and the page made no request and tried none its policy
// refused. The copy Chromium opens is report.html with the probe script
// above, allowed by a nonce added to its policy and to nothing else.
func TestReportHTMLChromium(t *testing.T) {
	dir := sampleHTML(t)
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	policy := `content="` + htmlPolicy + `"`
	if strings.Count(page, policy) != 1 || strings.Count(page, "</head>") != 1 {
		t.Fatalf("report.html does not state its policy once in its head")
	}
	page = strings.Replace(page, policy, `content="`+htmlPolicy+`; script-src 'nonce-probe'"`, 1)
	page = strings.Replace(page, "</head>", htmlProbe+"</head>", 1)
	probed := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(probed, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	p := pgtest.Chromium(t, probed, 500)
	if len(p.Requests) > 0 {
		t.Errorf("report.html made requests: %q", p.Requests)
	}
	for _, want := range []string{"<h1>sample-pg17-vs-pg18-cold: pg17 vs pg18</h1>", "<h2>How we measured</h2>", "<h2>What the guards found</h2>",
		"<h2>Results</h2>", "<h3>Relative times</h3>", "<h2>Tables</h2>", "<h3>Timings</h3>"} {
		if !strings.Contains(p.DOM, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	if n, m := strings.Count(p.DOM, "<table>"), strings.Count(string(b), "<table>"); n != m {
		t.Errorf("the rendered page has %d tables, report.html %d", n, m)
	}
	probe(t, p.DOM, strings.Count(string(b), "<img "))
}

// probe reads what htmlProbe wrote into the rendered page and checks it.
func probe(t *testing.T, dom string, figures int) {
	t.Helper()
	m := regexp.MustCompile(`<pre id="probe">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote nothing: the page did not load, or its script did not run")
	}
	var r struct {
		Window, Page float64
		Figures      []struct {
			Width, Height, Decoded float64
			Shown                  string
		}
		Refused []string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &r); err != nil {
		t.Fatalf("the probe: %v: %s", err, m[1])
	}
	if len(r.Refused) > 0 {
		t.Errorf("the page's policy refused %q", r.Refused)
	}
	if r.Page > r.Window {
		t.Errorf("the page is %g px wide in a window of %g: a reader scrolls sideways", r.Page, r.Window)
	}
	if len(r.Figures) != figures || figures == 0 {
		t.Errorf("the page shows %d images; report.html has %d figures", len(r.Figures), figures)
	}
	for i, f := range r.Figures {
		if f.Width <= 0 || f.Height <= 0 || f.Decoded <= 0 || f.Shown != "visible" || f.Width > r.Window {
			t.Errorf("figure %d: %+v in a window %g px wide: not shown whole", i+1, f, r.Window)
		}
	}
}
