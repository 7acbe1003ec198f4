package analyze

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// NoiseFloor is what two copies of one setup differ by in a test: an A/A
// comparison. A study declares a copy (same_as), or the analysis finds
// two configurations identical in everything it can see: the server's
// full version, the client and its command line, the device the data is
// on, the declared settings, every setting the servers reported, and
// the test's plan. Their difference is the study's own noise: a claimed
// difference between other configurations no larger than it is not
// supported, and a significant one between the copies says the setup,
// not the configuration, is moving the times.
type NoiseFloor struct {
	Host, Test string
	// Config is the copy, SameAs the configuration it copies; How is
	// "declared" (same_as) or "identical" (found so).
	Config, SameAs, How string
	Metric              string // "time" or "qps"
	Compare             TimingCompare
}

// Ratio is the copy's median over the original's.
func (n NoiseFloor) Ratio() float64 { return n.Compare.Ratio }

// controls finds the pairs of copies on each host and compares them, test
// by test, with Holm's correction over every A/A comparison of the host.
func (a *Analysis) controls(settings map[string]map[string]map[string]*settingValues, opt Options) {
	if opt.Controls == "off" {
		return
	}
	for _, h := range a.Hosts {
		var family []*TimingCompare
		start := len(a.Noise)
		for _, p := range a.copies(h, settings[h], opt.Controls != "declared") {
			if p.how == "declared" && !a.sameServer(h, p.copy, p.of) {
				continue
			}
			for _, test := range a.Tests {
				if p.how == "identical" && (a.mainPlan(h, test, p.copy) != a.mainPlan(h, test, p.of) || a.namesConfig(h, test)) {
					continue // different plans, or statements that differ by configuration: not copies for this test
				}
				base, x, metric := a.metricValues(h, test, p.of), a.metricValues(h, test, p.copy), "time"
				if a.isThroughput(h, test) {
					metric = "qps"
				}
				if len(base) == 0 || len(x) == 0 {
					continue
				}
				a.Noise = append(a.Noise, NoiseFloor{Host: h, Test: test, Config: p.copy, SameAs: p.of, How: p.how, Metric: metric,
					Compare: *compare(base, x, opt)})
			}
		}
		for i := start; i < len(a.Noise); i++ {
			if a.Noise[i].Compare.Testable {
				family = append(family, &a.Noise[i].Compare)
			}
		}
		holm(family, opt.Alpha)
	}
}

type copyPair struct{ copy, of, how string }

// copies are the pairs of copies among a host's configurations: each
// declared one, and each configuration identical to an earlier one (paired
// with the first it is identical to, so four copies give three pairs).
func (a *Analysis) copies(h string, settings map[string]map[string]*settingValues, auto bool) []copyPair {
	var pairs []copyPair
	paired := map[string]bool{}
	st := a.study[h]
	if st != nil {
		for _, c := range st.Configs {
			if c.SameAs != "" && slices.Contains(a.Configs, c.Name) && slices.Contains(a.Configs, c.SameAs) {
				pairs = append(pairs, copyPair{c.Name, c.SameAs, "declared"})
				paired[c.Name], paired[c.SameAs] = true, true
			}
		}
	}
	sig := map[string]string{}
	devices := map[string]map[string]bool{} // by configuration
	for _, r := range a.Runs {
		if auto && r.Host == h && r.Device != "" {
			if devices[r.Config] == nil {
				devices[r.Config] = map[string]bool{}
			}
			devices[r.Config][r.Device] = true
		}
	}
	for _, c := range a.Configs {
		if !auto {
			break
		}
		if s, ok := a.setupSignature(h, c, settings, devices[c]); ok {
			sig[c] = s
		}
	}
	for j, c := range a.Configs {
		if paired[c] || sig[c] == "" {
			continue
		}
		for _, o := range a.Configs[:j] {
			if sig[o] == sig[c] {
				pairs = append(pairs, copyPair{c, o, "identical"})
				break
			}
		}
	}
	return pairs
}

// setupSignature is everything the analysis can see of a configuration's
// setup on a host, as one text: two configurations with the same text
// are copies. ok is false when the capture lacks the server's settings
// (an import), as nothing then shows the two are the same.
func (a *Analysis) setupSignature(h, c string, settings map[string]map[string]*settingValues, devices map[string]bool) (string, bool) {
	if len(settings[c]) == 0 {
		return "", false
	}
	var srv *ServerSetup
	for i := range a.Setups {
		if a.Setups[i].Host != h {
			continue
		}
		for j := range a.Setups[i].Servers {
			if a.Setups[i].Servers[j].Config == c {
				srv = &a.Setups[i].Servers[j]
			}
		}
	}
	if srv == nil {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%s|%s|", srv.Full, srv.Client, srv.ClientOf, srv.ClientCommand, srv.DataChecksums)
	// The data: the database the DSN names and where, and the relations'
	// sizes to 10% (two databases of one server are not copies).
	if st := a.study[h]; st != nil {
		for _, cf := range st.Configs {
			if cf.Name == c {
				fmt.Fprintf(&b, "%s|", dataOf(cf.DSN))
			}
		}
	}
	for _, rel := range srv.Relations {
		for _, rr := range rel.Rounds {
			if rr.Bytes != nil && *rr.Bytes > 0 {
				fmt.Fprintf(&b, "%s=%.0f;", rel.Name, math.Round(math.Log(*rr.Bytes)/math.Log(1.1)))
				break
			}
		}
	}
	if len(devices) == 0 {
		return "", false // a server whose disk is unknown (another machine's) may be any hardware
	}
	fmt.Fprintf(&b, "%v|", slices.Sorted(maps.Keys(devices)))
	if st := a.study[h]; st != nil {
		for _, cf := range st.Configs {
			if cf.Name == c {
				for _, k := range slices.Sorted(maps.Keys(cf.Settings)) {
					fmt.Fprintf(&b, "%s=%s;", k, cf.Settings[k])
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(settings[c])) {
		if slices.Contains(identitySettings, name) {
			continue
		}
		fmt.Fprintf(&b, "|%s=%v", name, slices.Sorted(maps.Keys(settings[c][name].values)))
	}
	return b.String(), true
}

// sameServer checks a declared copy against what the capture recorded of
// both servers: a copy on another version, or with other checksums, is
// no copy, which is said (an error: the study is wrong) instead of
// blaming the setup for the difference.
func (a *Analysis) sameServer(h, c, of string) bool {
	srv := func(name string) *ServerSetup {
		for i := range a.Setups {
			for j := range a.Setups[i].Servers {
				if a.Setups[i].Host == h && a.Setups[i].Servers[j].Config == name {
					return &a.Setups[i].Servers[j]
				}
			}
		}
		return nil
	}
	x, y := srv(c), srv(of)
	if x == nil || y == nil || x.Full == y.Full && x.DataChecksums == y.DataChecksums {
		return true
	}
	a.add(Finding{Guard: "control", Severity: Error, Host: h, Config: c,
		Message: fmt.Sprintf("%s is declared a copy of %s (same_as), but its server is not: %s with data checksums %s against %s with %s; it is not compared as a copy: correct the study",
			c, of, x.Full, x.DataChecksums, y.Full, y.DataChecksums)})
	return false
}

// dataOf is the host and database a DSN names (user, password, port and
// options left out), in URL or key=value form.
func dataOf(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		return u.Hostname() + "/" + strings.TrimPrefix(u.Path, "/") + "?" + u.Query().Get("dbname") + u.Query().Get("host")
	}
	var host, db string
	for _, f := range strings.Fields(dsn) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "host", "hostaddr":
			host = v
		case "dbname":
			db = v
		}
	}
	return host + "/" + db
}

// namesConfig says whether a test's statements depend on the
// configuration's name (a before statement or its SQL using
// {{.Config}}): then two configurations are not copies for it, whatever
// their setup.
func (a *Analysis) namesConfig(h, test string) bool {
	st := a.study[h]
	if st == nil {
		return false
	}
	for _, t := range st.Tests {
		if t.Name != test {
			continue
		}
		if strings.Contains(t.SQL, ".Config") {
			return true
		}
		for _, b := range t.Before {
			if strings.Contains(b.Value, ".Config") {
				return true
			}
		}
	}
	return false
}

// mainPlan is the fingerprint of the plan most runs of a test and
// configuration had ("" without one).
func (a *Analysis) mainPlan(h, test, c string) string {
	for _, p := range a.Plans {
		if p.Host == h && p.Test == test && p.Config == c {
			return p.Fingerprint // plans() puts the most frequent first
		}
	}
	return ""
}

// noiseOf is the A/A comparison of a test with the largest difference,
// nil when the test has none; control says whether config and the
// baseline are themselves copies.
func (a *Analysis) noiseOf(h, test, config string) (floor *NoiseFloor, control bool) {
	for i := range a.Noise {
		n := &a.Noise[i]
		if n.Host != h || n.Test != test {
			continue
		}
		if (n.Config == config && n.SameAs == a.Baseline) || (n.SameAs == config && n.Config == a.Baseline) {
			control = true
		}
		// Only a difference the copies really show is a floor: a copy
		// whose runs scatter, compared without a significant difference,
		// says nothing of the setup (a floor from it demoted a tight 3.5%
		// difference, found by an outsider).
		if r := n.Ratio(); !n.Compare.Significant || !(r > 0) || math.IsInf(r, 0) {
			continue
		}
		if floor == nil || math.Abs(math.Log(n.Ratio())) > math.Abs(math.Log(floor.Ratio())) {
			floor = n
		}
	}
	return floor, control
}

// guardControls: two copies of one setup that differ significantly, by
// at least the smallest difference that matters, say that something other
// than the configuration moves the results. (A smaller one, real or not,
// is the noise floor the other comparisons are held against: in the test
// suite two copies both read through the same throttle, at positions 1
// and 4 of a fixed order, differed by 0.9% with p=0.03.)
func (a *Analysis) guardControls() {
	for _, n := range a.Noise {
		if !n.Compare.Significant || math.Abs(math.Log(n.Ratio())) < math.Log1p(a.Tolerance) {
			continue
		}
		// A declared copy that differs is an error; copies the analysis
		// found may differ in what a capture cannot show (hardware,
		// container limits), so theirs is a warning, which same_as makes
		// an error.
		how, sev := "which the study declares a copy of it (same_as)", Error
		if n.How == "identical" {
			how, sev = "identical to it in server, data, settings, device and plan (if they differ in what a capture cannot show, such as hardware or container limits, analyse with --controls declared; declare same_as to make this an error)", Warning
		}
		a.add(Finding{Guard: "control", Severity: sev, Host: n.Host, Test: n.Test, Config: n.Config,
			Message: fmt.Sprintf("%s on %s is %s against %s, %s (p=%.3g after Holm over the host's A/A comparisons): the setup, not the configuration, is moving the results; "+
				"no difference of this test is supported until the cause is found (the position in the round, the order, a device shared with other work)",
				n.Test, n.Config, pct(n.Ratio()-1), n.SameAs, how, n.Compare.PAdjusted)})
	}
}

// noiseTable lists the A/A comparisons: the study's own noise, test by
// test, beside which the other differences are judged.
func (a *Analysis) noiseTable() table.Table {
	t := table.Table{Name: "noise", Title: "Noise floor: copies of one setup (A/A)",
		Note: fmt.Sprintf("Each copy against the configuration it copies (declared same_as, or identical in server, client, device, settings and plan): median ratio with its %.0f%% interval, "+
			"Mann-Whitney p, Holm-corrected over the host's A/A comparisons. The largest difference of a test is its noise floor: a difference between other configurations no larger than it is marked (noise). "+
			"A significant A/A difference is an error: the setup moves the results.", 100*a.Confidence)}
	fields := []table.Field[NoiseFloor]{
		table.On(table.Text("test", "test"), func(n NoiseFloor) any { return n.Test }),
		table.On(table.Text("config", "copy"), func(n NoiseFloor) any { return n.Config }),
		table.On(table.Text("same_as", "of"), func(n NoiseFloor) any { return n.SameAs }),
		table.On(table.Text("how", "how"), func(n NoiseFloor) any { return n.How }),
		table.On(table.Text("metric", "metric"), func(n NoiseFloor) any { return n.Metric }),
		table.On(table.Fixed("ratio", "ratio", "", 3), func(n NoiseFloor) any { return n.Ratio() }),
		table.On(table.Fixed("ratio_ci_low", "ratio ci low", "", 3), func(n NoiseFloor) any {
			if !n.Compare.CIValid {
				return nil
			}
			return n.Compare.Lo
		}),
		table.On(table.Fixed("ratio_ci_high", "ratio ci high", "", 3), func(n NoiseFloor) any {
			if !n.Compare.CIValid {
				return nil
			}
			return n.Compare.Hi
		}),
	}
	fields = append(fields, compareFields(func(n NoiseFloor) *TimingCompare { return &n.Compare })[:3]...)
	return build(a, t, func(n NoiseFloor) string { return n.Host }, fields, a.Noise)
}
