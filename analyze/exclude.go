package analyze

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// OptionError is an error in the options of an analysis (an unknown
// baseline, a malformed exclude): the caller's mistake, not the capture's.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

func optionErrorf(format string, args ...any) error {
	return &OptionError{fmt.Sprintf(format, args...)}
}

// excludes are the --exclude selectors.
type excludes map[string][]string

func parseExcludes(list []string) (excludes, error) {
	ex := excludes{}
	for _, e := range list {
		k, v, ok := strings.Cut(e, "=")
		switch {
		case !ok || v == "":
			return nil, optionErrorf("--exclude %q: expected KEY=VALUE with KEY one of config, test, round, run, host", e)
		case k == "round" || k == "run":
			if lo, hi, ok := numRange(v); !ok {
				if lo > hi {
					return nil, optionErrorf("--exclude %q: the range's first %s must not be after its last", e, k)
				}
				return nil, optionErrorf("--exclude %q: %s must be a number or a range FIRST-LAST", e, k)
			}
		case k != "config" && k != "test" && k != "host":
			return nil, optionErrorf("--exclude %q: unknown key %q; expected config, test, round, run or host", e, k)
		}
		ex[k] = append(ex[k], v)
	}
	return ex, nil
}

// check refuses an --exclude that names nothing in the captures: a typo
// would otherwise leave in what the user meant to leave out.
func (ex excludes) check(present excludes) error {
	for _, k := range []string{"config", "test", "host", "round", "run"} {
		for _, v := range ex[k] {
			if slices.Contains(present[k], v) {
				continue
			}
			if lo, hi, ok := numRange(v); ok && (k == "round" || k == "run") && slices.ContainsFunc(present[k], func(p string) bool {
				n, _ := strconv.ParseInt(p, 10, 64)
				return n >= lo && n <= hi
			}) {
				continue
			}
			have := present[k]
			if k == "round" || k == "run" {
				have = []string{numberRange(have)}
			}
			return optionErrorf("--exclude %s=%s: the captures have no %s %s (they have %s)", k, v, k, v, strings.Join(have, ", "))
		}
	}
	return nil
}

// numberRange is "1-36" for the numbers given as text.
func numberRange(vs []string) string {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range vs {
		n, _ := strconv.ParseInt(v, 10, 64)
		lo, hi = min(lo, n), max(hi, n)
	}
	if len(vs) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func (ex excludes) drops(r *Run) bool {
	return slices.Contains(ex["config"], r.Config) || slices.Contains(ex["test"], r.Test) ||
		slices.Contains(ex["host"], r.Host) || ex.hasNum("round", int64(r.Round)) || ex.hasNum("run", r.RunID)
}

// hasNum says whether a numbered selector (round, run) names n, as a
// number or in a range.
func (ex excludes) hasNum(k string, n int64) bool {
	for _, v := range ex[k] {
		if lo, hi, ok := numRange(v); ok && n >= lo && n <= hi {
			return true
		}
	}
	return false
}

// numRange reads "N" or "FIRST-LAST" (FIRST ≤ LAST, from 0).
func numRange(v string) (lo, hi int64, ok bool) {
	a, b, isRange := strings.Cut(v, "-")
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil || lo < 0 {
		return 0, 0, false
	}
	if !isRange {
		return lo, lo, true
	}
	hi, err = strconv.ParseInt(b, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return lo, hi, hi >= lo // a reversed range gives its bounds, for the message
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
