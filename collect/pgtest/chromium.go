package pgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Page is what headless Chromium made of an HTML file.
type Page struct {
	DOM      string   // the document after its load event, serialized (--dump-dom)
	Requests []string // the URL of every network request the page made, none of which could succeed
}

// Chromium opens the HTML file at path in headless Chromium (Debian's
// chromium, which scripts/install-deps installs) with the network blocked:
// every host name resolves to nothing and every connection goes to a
// proxy that refuses it. The window is width CSS pixels wide (headless
// Chromium makes it at least 500). It returns the document after its load
// event and the requests the page made, read from Chromium's net log:
// Chromium's own requests (component updates, its clock, accounts) have an
// initiator that is "not an origin" and no file: page as their site, and
// are left out. A Chromium that is not installed skips the test, or fails
// it when CI=true.
func Chromium(t testing.TB, path string, width int) Page {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		Missing(t, "chromium is not installed (Debian's chromium, which scripts/install-deps installs): %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	netLog := filepath.Join(dir, "net-log.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		`--host-resolver-rules=MAP * ~NOTFOUND`, "--proxy-server=http://127.0.0.1:9",
		"--log-net-log="+netLog, fmt.Sprintf("--window-size=%d,900", width),
		"--dump-dom", "file://"+abs)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	requests, err := pageRequests(netLog)
	if err != nil {
		t.Fatalf("chromium's net log: %v", err)
	}
	return Page{DOM: string(dom), Requests: requests}
}

// pageRequests are the URLs of the requests a page made, from a Chromium
// net log: each URL_REQUEST_START_JOB event but those Chromium made for
// itself.
func pageRequests(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
				Isolation string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		return nil, err
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		return nil, fmt.Errorf("%s names no URL_REQUEST_START_JOB event", path)
	}
	var out []string
	for _, e := range log.Events {
		p := e.Params
		if e.Type != start || p.URL == "" {
			continue
		}
		if p.Initiator != "not an origin" || strings.HasPrefix(p.Isolation, "file://") {
			out = append(out, p.URL)
		}
	}
	return out, nil
}
