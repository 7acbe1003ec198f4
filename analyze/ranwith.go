package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// RanSetting is the value a run ran with of a setting some configuration
// of its study declares, as the server showed it (in SHOW's units), with
// pg_settings' source.
type RanSetting struct {
	Value, Source string
	// PerRound is set when the value comes from the pg_settings rows read
	// once per configuration and round (a capture made before pgstudy read
	// the settings back before each run), in run ReadIn.
	PerRound bool
	ReadIn   int64
}

// roundSetting is one declared setting as the pg_settings rows of one
// configuration and round show it.
type roundSetting struct {
	config string
	round  int
	name   string
}

// keepRound keeps a pg_settings row of a setting the study declares, by
// configuration and round, for the runs that have no read-back of their
// own. It runs inside readSettings, before the runs' own rows are known.
func (c *capture) keepRound(st samples.Setting) {
	name := strings.ToLower(st.Name)
	if !declaredByConfig(c.study, name) {
		return
	}
	if c.rounds == nil {
		c.rounds = map[roundSetting]RanSetting{}
	}
	c.rounds[roundSetting{st.Config, int(st.Round), name}] = RanSetting{Value: humanSetting(st.Setting, st.Unit), Source: st.Source,
		PerRound: true, ReadIn: st.RunID}
}

// fillRanWith gives each run without a read-back the values of its
// configuration and round.
func (c *capture) fillRanWith() {
	for _, run := range c.runs {
		if run.RanWith != nil {
			continue
		}
		for k, v := range c.rounds {
			if k.config == run.Config && k.round == run.Round {
				if run.RanWith == nil {
					run.RanWith = map[string]RanSetting{}
				}
				run.RanWith[k.name] = v
			}
		}
	}
}

func declaredByConfig(s *study.Study, name string) bool {
	for _, cfg := range s.Configs {
		for n := range cfg.Settings {
			if strings.EqualFold(n, name) {
				return true
			}
		}
	}
	return false
}

// declared is a configuration's value of a setting, by name in any case.
func declared(cfg *study.Config, name string) (string, bool) {
	for n, v := range cfg.Settings {
		if strings.EqualFold(n, name) {
			return v, true
		}
	}
	return "", false
}

// ranKey groups the runs of one configuration that ran with one wrong
// value of one setting.
type ranKey struct {
	host, config, name, got, source, want string
	perRound                              bool
}

// guardRanWith: a run whose settings are not its configuration's
// declaration measured another configuration. A setting the configuration
// declares must have its value; one it does not declare but another
// configuration of the study does must not have that other's value
// (unless it is the server's default): that is what a setting written with
// ALTER SYSTEM for a configuration sharing the server and left in force
// looks like.
func (a *Analysis) guardRanWith() {
	groups := map[ranKey][]*Run{}
	var keys []ranKey
	for _, r := range a.Runs {
		st := a.study[r.Host]
		if st == nil || len(r.RanWith) == 0 {
			continue
		}
		cfg := st.Config(r.Config)
		if cfg == nil {
			continue
		}
		for _, name := range sortedNames(r.RanWith) {
			got := r.RanWith[name]
			k := ranKey{host: r.Host, config: r.Config, name: name, got: got.Value, source: got.Source, perRound: got.PerRound}
			if want, ok := declared(cfg, name); ok {
				if sameSetting(want, got.Value) {
					continue
				}
				k.want = want
			} else if others := othersDeclaring(st, cfg, name, got.Value); others == "" || got.Source == "default" {
				continue
			} else {
				k.want = "\x00" + others
			}
			if groups[k] == nil {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], r)
		}
	}
	slices.SortStableFunc(keys, func(x, y ranKey) int {
		return cmp.Or(cmp.Compare(x.host, y.host), cmp.Compare(x.config, y.config), cmp.Compare(x.name, y.name))
	})
	for _, k := range keys {
		a.add(Finding{Guard: "settings-ran", Severity: Error, Host: k.host, Config: k.config, Runs: runIDs(groups[k]),
			Message: ranMessage(k, groups[k])})
	}
}

// othersDeclaring names the other configurations of s that declare name
// with the value got ("pg18-sync"), "" when none does.
func othersDeclaring(s *study.Study, cfg *study.Config, name, got string) string {
	var names []string
	for i := range s.Configs {
		o := &s.Configs[i]
		if v, ok := declared(o, name); ok && o.Name != cfg.Name && sameSetting(v, got) {
			names = append(names, o.Name)
		}
	}
	return strings.Join(names, ", ")
}

func ranMessage(k ranKey, runs []*Run) string {
	how := "read back before each run"
	if k.perRound {
		var in []int64
		for _, r := range runs {
			if id := r.RanWith[k.name].ReadIn; id != 0 && !slices.Contains(in, id) {
				in = append(in, id)
			}
		}
		how = "as pg_settings was read once per configuration and round, in " + listRuns(in) + "; this capture has no read-back per run"
	}
	ran := fmt.Sprintf("%s ran with %s = %s (source %s; %s)", listRuns(runIDs(runs)), k.name, k.got, k.source, how)
	if others, ok := strings.CutPrefix(k.want, "\x00"); ok {
		return fmt.Sprintf("%s does not declare %s, but %s, the value %s declares: a setting written with ALTER SYSTEM for another "+
			"configuration of the same server was still in force, or a before statement or the server's own configuration set it, "+
			"so the configurations did not differ in it", k.config, k.name, ran, others)
	}
	return fmt.Sprintf("%s declares %s = %s, but %s: the runs did not measure the configuration as declared", k.config, k.name, k.want, ran)
}

func sortedNames(m map[string]RanSetting) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
