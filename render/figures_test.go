package render

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/samples"
)

var (
	update     = flag.Bool("update", false, "rewrite the golden files under testdata/")
	figuresOut = flag.String("figures", "", "also write the figures of the figure tests into this folder, to look at them")
)

// captureAnalysis is the analysis of the example capture in
// samples/example/capture.
func captureAnalysis(t testing.TB) *analyze.Analysis {
	t.Helper()
	r, err := samples.Open(filepath.Join("..", "samples", "example", "capture"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: "sample", Reader: r}}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeFigures writes figs into dir and returns each file's bytes by
// name; with -figures, it also writes them into that folder's sub.
func renderFigures(t *testing.T, figs []Figure, sub string) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	out := map[string][]byte{}
	for _, f := range figs {
		if err := writeFigure(dir, f); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		for _, ext := range []string{".svg", ".png"} {
			b, err := os.ReadFile(filepath.Join(dir, f.Name+ext))
			if err != nil {
				t.Fatal(err)
			}
			out[f.Name+ext] = b
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(out) {
		t.Errorf("%d files in the figures folder, want %d (a temporary file left?)", len(entries), len(out))
	}
	if *figuresOut != "" {
		d := filepath.Join(*figuresOut, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range out {
			if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// nGiven matches a caption that gives n: "n = 6 rounds per
// configuration", "n = 5 (pg17), 4 (pg18) runs".
var nGiven = regexp.MustCompile(`\(n = \d+ (rounds|runs)|\(n = \d+ \([^)]+\)(, \d+ \([^)]+\))* (rounds|runs)\)`)

func names(figs []Figure) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Name)
	}
	return out
}

// TestFiguresSample checks which figures the example capture gives and
// what their captions say.
func TestFiguresSample(t *testing.T) {
	figs := Figures(captureAnalysis(t))
	got := names(figs)
	for _, want := range []string{"ratios", "times-seqscan", "times-bitmap", "times-vacuum", "reads-seqscan", "reads-bitmap",
		"vacuum-vacuum", "disk-seqscan", "disk-bitmap", "position-seqscan", "position-bitmap", "position-vacuum"} {
		if !slices.Contains(got, want) {
			t.Errorf("no figure %s; got %s", want, strings.Join(got, " "))
		}
	}
	// Most vacuums are shorter than the sampling interval of 250ms: too
	// few runs have a series to draw.
	if slices.Contains(got, "disk-vacuum") {
		t.Errorf("figure disk-vacuum drawn from a few runs")
	}
	if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
		t.Errorf("figure names repeat: %s", strings.Join(got, " "))
	}
	for _, f := range figs {
		if f.Title == "" || f.Caption == "" {
			t.Errorf("%s: title %q, caption %q", f.Name, f.Title, f.Caption)
		}
		if !nGiven.MatchString(f.Caption) {
			t.Errorf("%s: the caption does not give n: %q", f.Name, f.Caption)
		}
	}
	caption := func(name string) string {
		for _, f := range figs {
			if f.Name == name {
				return f.Caption
			}
		}
		return ""
	}
	for name, wants := range map[string][]string{
		"times-seqscan":   {"dots are rounds, the bar is the median, the shaded box the 95% interval of the median", "whiskers span min to max"},
		"ratios":          {"pg18", "pg17", "Moses interval", "Hollow markers are not significant", "Holm"},
		"reads-bitmap":    {"the device read 176 MiB", "PostgreSQL read about as much (pg_stat_io"},
		"reads-vacuum":    {"what PostgreSQL read from the kernel, 11.8 MiB (pg_stat_io"},
		"disk-bitmap":     {"(vda)", "every 250ms"},
		"vacuum-vacuum":   {"WAL written, full page images, tuples frozen"},
		"position-bitmap": {"position in its round"},
	} {
		for _, want := range wants {
			if !strings.Contains(caption(name), want) {
				t.Errorf("%s: the caption lacks %q: %q", name, want, caption(name))
			}
		}
	}
}

// TestFiguresGolden compares every figure with its golden files in
// testdata/figures: NAME.svg, NAME.png, and figures.txt, which lists each
// figure's title, caption and the SHA-256 of its PNG. On amd64, where the
// goldens are made, every file must be the same byte for byte. Elsewhere
// the compiler fuses multiplications and additions (arm64, ppc64, s390x),
// which can move a coordinate by a rounding step: there the numbers of an
// SVG and the pixels of a PNG are compared within a small bound instead
// (see closeSVG and closePNG), so that nothing is skipped.
func TestFiguresGolden(t *testing.T) {
	figs := Figures(captureAnalysis(t))
	files := renderFigures(t, figs, "sample")
	var list bytes.Buffer
	for _, f := range figs {
		fmt.Fprintf(&list, "%s\n\ttitle: %s\n\tcaption: %s\n\tpng sha256: %x\n", f.Name, f.Title, f.Caption, sha256.Sum256(files[f.Name+".png"]))
	}
	dir := filepath.Join("testdata", "figures")
	if *update {
		writeGoldens(t, dir, figs, files, list.Bytes())
		return
	}
	exact := runtime.GOARCH == "amd64"
	if !exact {
		t.Logf("on %s, not amd64: SVG numbers within a relative %g and PNG channels within %d of the goldens", runtime.GOARCH, svgTolerance, pngTolerance)
	}
	want, err := os.ReadFile(filepath.Join(dir, "figures.txt"))
	if err != nil {
		t.Fatalf("%v (run go test ./render -run TestFiguresGolden -update to create it)", err)
	}
	gotList, wantList := list.String(), string(want)
	if !exact {
		gotList, wantList = withoutPNGSums(gotList), withoutPNGSums(wantList)
	}
	if gotList != wantList {
		t.Errorf("the figures' list differs from %s (run go test ./render -update to accept):\n%s",
			filepath.Join(dir, "figures.txt"), lineDiff(wantList, gotList))
	}
	for _, f := range figs {
		for _, ext := range []string{".svg", ".png"} {
			path := filepath.Join(dir, f.Name+ext)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%v (run go test ./render -update to create it)", err)
				continue
			}
			if err := sameFigure(ext, files[f.Name+ext], want, exact); err != nil {
				t.Errorf("%s differs (run go test ./render -update to accept): %v", path, err)
			}
		}
	}
	for _, ext := range []string{"*.svg", "*.png"} {
		if golden, _ := filepath.Glob(filepath.Join(dir, ext)); len(golden) != len(figs) {
			t.Errorf("%d golden %s for %d figures (run go test ./render -update to remove the old ones)", len(golden), ext, len(figs))
		}
	}
}

// writeGoldens replaces the golden files in dir with these figures'.
func writeGoldens(t *testing.T, dir string, figs []Figure, files map[string][]byte, list []byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		for _, ext := range []string{".svg", ".png"} {
			if err := os.WriteFile(filepath.Join(dir, f.Name+ext), files[f.Name+ext], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "figures.txt"), list, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lineDiff shows the first line that differs.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %q\n got %q", i+1, a, b)
		}
	}
	return ""
}

// TestFiguresDeterministic draws the figures of two analyses of one
// capture, and one figure twice, and finds the same bytes.
func TestFiguresDeterministic(t *testing.T) {
	figs := Figures(captureAnalysis(t))
	one := renderFigures(t, figs, "")
	two := renderFigures(t, Figures(captureAnalysis(t)), "")
	again := renderFigures(t, figs, "")
	if len(one) != 2*len(figs) {
		t.Fatalf("%d files for %d figures", len(one), len(figs))
	}
	for name, b := range one {
		if !bytes.Equal(b, two[name]) {
			t.Errorf("%s differs between two analyses of one capture", name)
		}
		if !bytes.Equal(b, again[name]) {
			t.Errorf("%s differs when a figure is written twice", name)
		}
	}
	for _, f := range figs {
		// Texts are outlines: a font the machine may lack is never named.
		svg := string(one[f.Name+".svg"])
		for _, bad := range []string{"<text", "font-family", "font:"} {
			if strings.Contains(svg, bad) {
				t.Errorf("%s.svg has %q: its texts depend on the fonts of the machine that shows it", f.Name, bad)
			}
		}
		if png := one[f.Name+".png"]; !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s.png is not a PNG", f.Name)
		}
	}
}

func TestWriteFigureErrors(t *testing.T) {
	if err := writeFigure(t.TempDir(), Figure{Name: "empty"}); err == nil {
		t.Error("an empty figure was written")
	}
	f := Figures(captureAnalysis(t))[0]
	f.Name = "../escape"
	if err := writeFigure(t.TempDir(), f); err == nil {
		t.Error("a figure named ../escape was written")
	}
	if err := writeFigure(filepath.Join(t.TempDir(), "missing"), Figures(captureAnalysis(t))[0]); err == nil {
		t.Error("a figure was written into a missing folder")
	}
}

func TestConfigColor(t *testing.T) {
	a := &analyze.Analysis{Configs: []string{"pg17", "pg18", "c", "d", "e", "f", "g", "h", "i"}}
	hex := func(c color.Color) string {
		r, g, b, _ := c.RGBA()
		return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	}
	for config, want := range map[string]string{"pg17": "#0072B2", "pg18": "#E69F00", "h": "#000000", "i": "#0072B2", "other": "#999999"} {
		if got := hex(configColor(a, config)); got != want {
			t.Errorf("ConfigColor(%s) = %s, want %s", config, got, want)
		}
	}
}

// TestFigureLimit draws the device's limit on the disk figures when the
// study gives one.
func TestFigureLimit(t *testing.T) {
	a := captureAnalysis(t)
	a.Setups[0].Limits = map[string]analyze.Limit{"vda": {ReadMiBs: 125, IOPS: 3000}}
	var disk []Figure
	for _, f := range Figures(a) {
		if strings.HasPrefix(f.Name, "disk-") {
			disk = append(disk, f)
			if !strings.Contains(f.Caption, "dashed grey line is the device's limit") {
				t.Errorf("%s: the caption does not mention the limit: %q", f.Name, f.Caption)
			}
		}
	}
	if len(disk) == 0 {
		t.Fatal("no disk figure")
	}
	renderFigures(t, disk, "limit")
	for _, f := range disk {
		if f.Name == "disk-bitmap" && !slices.Contains(f.texts(), "read limit 125 MiB/s") {
			t.Errorf("disk-bitmap has no limit label: %q", f.texts())
		}
	}
}

// TestFiguresHosts names each host's figures after it.
func TestFiguresHosts(t *testing.T) {
	a := captureAnalysis(t)
	other := "db 2"
	a.Hosts = append(a.Hosts, other)
	for _, tm := range slices.Clone(a.Timings) {
		tm.Host = other
		a.Timings = append(a.Timings, tm)
	}
	for _, r := range slices.Clone(a.Runs) {
		c := *r
		c.Host = other
		a.Runs = append(a.Runs, &c)
	}
	for _, v := range slices.Clone(a.Vacuums) {
		v.Host = other
		a.Vacuums = append(a.Vacuums, v)
	}
	figs := Figures(a)
	got := names(figs)
	for _, want := range []string{"vm-ratios", "vm-times-seqscan", "db-2-ratios", "db-2-times-seqscan", "db-2-vacuum-vacuum"} {
		if !slices.Contains(got, want) {
			t.Errorf("no figure %s; got %s", want, strings.Join(got, " "))
		}
	}
	if len(figs) != 2*len(Figures(captureAnalysis(t))) {
		t.Errorf("%d figures for two hosts, want twice one host's", len(figs))
	}
	for _, f := range figs {
		if strings.HasPrefix(f.Name, "db-2-") && !strings.Contains(f.Title, "(host db 2)") {
			t.Errorf("%s: the title %q does not name the host", f.Name, f.Title)
		}
	}
}

// sweepAnalysis is a study of configurations that differ in
// effective_io_concurrency (1, 16, 64), and with io_methods set in
// each io_method too, built by hand: three tests whose times fall as
// the setting rises.
func sweepAnalysis(ioMethods []string) *analyze.Analysis {
	a := &analyze.Analysis{Hosts: []string{"lab"}, Tests: []string{"seqscan", "bitmap", "index"}, Confidence: 0.95, Alpha: 0.05}
	eics := []string{"1", "16", "64"}
	values := map[string]map[string]string{"effective_io_concurrency": {}, "io_method": {}, "data_checksums": {}}
	for _, m := range ioMethods {
		for _, e := range eics {
			c := "pg18-eic" + e
			if len(ioMethods) > 1 {
				c = "pg18-" + m + "-eic" + e
			}
			a.Configs = append(a.Configs, c)
			values["effective_io_concurrency"][c] = e
			values["io_method"][c] = m
			values["data_checksums"][c] = "on"
		}
	}
	values["data_checksums"][a.Configs[0]] = "off"
	a.Baseline = a.Configs[0]
	a.Settings = []analyze.SettingRow{
		{Host: "lab", Name: "data_checksums", Values: values["data_checksums"], Relevant: true},
		{Host: "lab", Name: "effective_io_concurrency", Values: values["effective_io_concurrency"], Declared: true, Relevant: true},
	}
	if len(ioMethods) > 1 {
		a.Settings = append(a.Settings, analyze.SettingRow{Host: "lab", Name: "io_method", Values: values["io_method"], Declared: true, Relevant: true})
	}
	base := map[string][]float64{}
	for ti, test := range a.Tests {
		for ci, c := range a.Configs {
			var rounds []analyze.RoundValue
			var xs []float64
			for r := range 6 {
				ms := float64(400*(ti+1)) / (1 + float64(ci%3)*0.4 + float64(ci/3)*0.2) * (1 + 0.03*float64((r*7+ci)%5))
				rounds = append(rounds, analyze.RoundValue{Round: r + 1, Position: (r+ci)%len(a.Configs) + 1, RunID: int64(100*ti + 10*ci + r), TimeMs: ms})
				xs = append(xs, ms)
			}
			tm := analyze.Timing{Host: "lab", Test: test, Config: c, Rounds: rounds, Summary: stats.Summarize(xs, 0.95)}
			if ci == 0 {
				base[test] = xs
			} else {
				cmp := stats.Compare(base[test], xs, 0.95, 0.05)
				tm.Compare = &analyze.TimingCompare{Comparison: cmp, PAdjusted: cmp.P, Significant: cmp.Significant}
			}
			a.Timings = append(a.Timings, tm)
		}
	}
	return a
}

func TestFigureSweep(t *testing.T) {
	a := sweepAnalysis([]string{"worker"})
	figs := Figures(a)
	got := names(figs)
	for _, want := range []string{"ratios", "times-seqscan", "position-index", "sweep-effective_io_concurrency"} {
		if !slices.Contains(got, want) {
			t.Errorf("no figure %s; got %s", want, strings.Join(got, " "))
		}
	}
	for _, n := range got {
		if strings.HasPrefix(n, "sweep-") && n != "sweep-effective_io_concurrency" {
			t.Errorf("figure %s: only a declared numeric setting is swept", n)
		}
	}
	renderFigures(t, figs, "sweep")

	// Two io_methods: a line for each, and the other figures with six
	// configurations.
	a = sweepAnalysis([]string{"worker", "io_uring"})
	figs = Figures(a)
	i := slices.Index(names(figs), "sweep-effective_io_concurrency")
	if i < 0 {
		t.Fatalf("no sweep figure; got %s", strings.Join(names(figs), " "))
	}
	if c := figs[i].Caption; !strings.Contains(c, "a line joins the configurations that share the other settings") || !strings.Contains(c, "n = 6") {
		t.Errorf("sweep caption: %q", c)
	}
	renderFigures(t, figs, "sweep2")

	// Two values are a comparison, not a sweep.
	a = sweepAnalysis([]string{"worker"})
	a.Settings[1].Values["pg18-eic64"] = "16"
	if slices.ContainsFunc(Figures(a), func(f Figure) bool { return strings.HasPrefix(f.Name, "sweep-") }) {
		t.Error("a sweep of two values")
	}
}

// TestFiguresSparse draws what an analysis with little in it supports,
// without failing.
func TestFiguresSparse(t *testing.T) {
	if figs := Figures(&analyze.Analysis{}); len(figs) != 0 {
		t.Errorf("figures of an empty analysis: %s", strings.Join(names(figs), " "))
	}
	a := &analyze.Analysis{Hosts: []string{"h"}, Configs: []string{"only"}, Baseline: "only", Tests: []string{"t", "zero"}, Confidence: 0.95, Alpha: 0.05}
	a.Timings = []analyze.Timing{
		{Host: "h", Test: "t", Config: "only", Rounds: []analyze.RoundValue{{Round: 1, Position: 1, TimeMs: 12.5}}, Summary: stats.Summarize([]float64{12.5}, 0.95)},
		{Host: "h", Test: "zero", Config: "only", Rounds: []analyze.RoundValue{{Round: 1, Position: 1}, {Round: 2, Position: 1}}, Summary: stats.Summarize([]float64{0, 0}, 0.95)},
	}
	// A series whose one interval could not be measured.
	a.Runs = []*analyze.Run{{Host: "h", Test: "t", Config: "only", Round: 1, Position: 1, Status: "ok", Series: []analyze.DiskInterval{{OffsetS: 0.25}}}}
	figs := Figures(a)
	if got := strings.Join(names(figs), " "); got != "times-t times-zero" {
		t.Errorf("figures: %s", got)
	}
	renderFigures(t, figs, "sparse")
}

// TestReadmeFigure: the figure the README shows is the sample's, as
// pgstudy draws it today (within the bound of closePNG off amd64).
func TestReadmeFigure(t *testing.T) {
	want, err := os.ReadFile("../docs/figures/reads-bitmap.png")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range Figures(captureAnalysis(t)) {
		if f.Name == "reads-bitmap" {
			if err := writeFigure(dir, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, "reads-bitmap.png"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("../docs/figures/reads-bitmap.png", got, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if err := sameFigure(".png", got, want, runtime.GOARCH == "amd64"); err != nil {
		t.Errorf("docs/figures/reads-bitmap.png is not the sample's figure as drawn now (go test ./render -update): %v", err)
	}
}

// TestFigureRatiosNoInterval: with 3 rounds a side no interval of a ratio
// exists, so the ratios figure neither promises one in its title nor
// shows one in its legend, and its caption says why.
func TestFigureRatiosNoInterval(t *testing.T) {
	a := &analyze.Analysis{Hosts: []string{"h"}, Configs: []string{"pg17", "pg18"}, Baseline: "pg17", Tests: []string{"scan"}, Confidence: 0.95, Alpha: 0.05}
	sides := map[string][]float64{"pg17": {100, 104, 98}, "pg18": {60, 63, 59}}
	for _, c := range a.Configs {
		tm := analyze.Timing{Host: "h", Test: "scan", Config: c, Summary: stats.Summarize(sides[c], 0.95)}
		for r, ms := range sides[c] {
			tm.Rounds = append(tm.Rounds, analyze.RoundValue{Round: r + 1, Position: 1, TimeMs: ms})
		}
		if c != a.Baseline {
			cmp := stats.Compare(sides["pg17"], sides[c], 0.95, 0.05)
			if cmp.CIValid {
				t.Fatal("an interval of 3 against 3")
			}
			tm.Compare = &analyze.TimingCompare{Comparison: cmp, PAdjusted: cmp.P}
		}
		a.Timings = append(a.Timings, tm)
	}
	f := figureNamed(t, Figures(a), "ratios")
	if strings.Contains(f.Title, "interval") {
		t.Errorf("title %q promises intervals", f.Title)
	}
	for _, s := range f.texts() {
		if strings.Contains(s, "interval") {
			t.Errorf("the figure says %q with no interval drawn", s)
		}
	}
	if !strings.Contains(f.Caption, "No ratio has enough rounds for an interval") || strings.Contains(f.Caption, "Bars are") {
		t.Errorf("caption: %q", f.Caption)
	}
}

// figureNamed is the figure of figs called name.
func figureNamed(t *testing.T, figs []Figure, name string) Figure {
	t.Helper()
	i := slices.IndexFunc(figs, func(f Figure) bool { return f.Name == name })
	if i < 0 {
		t.Fatalf("no figure %s; got %s", name, strings.Join(names(figs), " "))
	}
	return figs[i]
}
