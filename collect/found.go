package collect

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/pgstudy/pgstudy/samples"
)

// foundView names the stats rows that record an entry of a server's
// postgresql.auto.conf as pgstudy found it, before its first change (phase
// "found"), in the run that made the change: a collect resumed after a kill
// puts the server back as the first session found it, not as the kill left
// it.
const foundView = "postgresql.auto.conf"

// foundEntry is one such row: a setting and its entry (null: none).
type foundEntry struct {
	Name    string  `json:"name"`
	Setting *string `json:"setting"`
}

// found records an entry of postgresql.auto.conf as found.
func (r *recorder) found(name string, v *string) {
	b, _ := json.Marshal(foundEntry{Name: name, Setting: v})
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, st := range r.b.Stats {
		if st.View == foundView {
			n++
		}
	}
	r.b.Stats = append(r.b.Stats, samples.Stat{Phase: "found", View: foundView, Row: int32(n + 1), JSON: string(b)})
}

// loadFound reads back, on a resume, the entries earlier sessions found,
// each server's earliest for each setting; the schedule says which
// configuration, and so which server, each run was of.
func (c *collector) loadFound(items []Item) error {
	r, err := samples.Open(c.opt.Out)
	if err != nil {
		return err
	}
	dsn := map[int64]string{}
	for _, it := range items {
		dsn[it.RunID] = it.Config.DSN
	}
	var rows []samples.Stat
	err = samples.ReadParts(r, func(part []samples.Stat) error {
		for _, st := range part {
			if st.View == foundView && st.Phase == "found" {
				rows = append(rows, st)
			}
		}
		return nil
	}, "run_id", "phase", "view", "row", "json")
	if err != nil {
		return err
	}
	slices.SortStableFunc(rows, func(a, b samples.Stat) int { return int(a.RunID - b.RunID) })
	for _, st := range rows {
		var e foundEntry
		if err := json.Unmarshal([]byte(st.JSON), &e); err != nil {
			return fmt.Errorf("run %d: a %s row of the capture: %w", st.RunID, foundView, err)
		}
		d, ok := dsn[st.RunID]
		if !ok {
			continue
		}
		ac := c.autoConf[d]
		if ac == nil {
			ac = &autoConf{found: map[string]*string{}}
			c.autoConf[d] = ac
		}
		if _, seen := ac.found[e.Name]; !seen {
			ac.found[e.Name] = e.Setting
		}
	}
	return nil
}
