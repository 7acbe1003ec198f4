package analyze

import (
	"math"
	"strconv"
	"strings"
)

// memoryUnits are PostgreSQL's units of memory (guc.c's
// memory_unit_conversion_table), largest first, each with its size in
// bytes. Units are case-sensitive there, and here.
var memoryUnits = []struct {
	name  string
	bytes float64
}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}

// memoryUnit is the size in bytes of a memory unit, alone ("MB") or, as
// pg_settings.unit gives a setting counted in blocks, with a multiple
// ("8kB", "16MB").
func memoryUnit(unit string) (float64, bool) {
	digits := strings.TrimLeft(unit, "0123456789")
	n := 1.0
	if len(digits) < len(unit) {
		m, err := strconv.Atoi(unit[:len(unit)-len(digits)])
		if err != nil || m == 0 {
			return 0, false
		}
		n = float64(m)
	}
	for _, u := range memoryUnits {
		if u.name == digits {
			return n * u.bytes, true
		}
	}
	return 0, false
}

// settingUnits are PostgreSQL's units of memory and time (guc.c's
// memory_unit_conversion_table and time_unit_conversion_table), each
// with its size in kB or ms. Units are case-sensitive there, and here.
var settingUnits = map[string]struct {
	base   string
	factor float64
}{
	"B": {"kB", 1.0 / 1024}, "kB": {"kB", 1}, "MB": {"kB", 1024}, "GB": {"kB", 1 << 20}, "TB": {"kB", 1 << 30},
	"us": {"ms", 0.001}, "ms": {"ms", 1}, "s": {"ms", 1000}, "min": {"ms", 60000}, "h": {"ms", 3600000}, "d": {"ms", 86400000},
}

// settingNumber reads a setting's value as PostgreSQL reads a number with
// a unit (guc.c's parse_real and convert_to_base_unit): spaces, a decimal
// number (with a fraction or an exponent), spaces, then at most one unit
// of settingUnits and spaces. It returns the number and the unit as
// written, "" for none. Unlike the server, it neither rounds a fraction
// to the next smaller unit nor reads hexadecimal or octal integers: the
// values it reads are those the server shows, which have neither.
func settingNumber(s string) (float64, string, bool) {
	s = strings.TrimLeft(s, cSpace)
	end := numberEnd(s)
	x, err := strconv.ParseFloat(s[:end], 64)
	if end == 0 || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, "", false
	}
	unit := strings.TrimRight(strings.TrimLeft(s[end:], cSpace), cSpace)
	if _, ok := settingUnits[unit]; !ok && unit != "" {
		return 0, "", false // an unknown unit, or more after it
	}
	return x, unit, true
}

// cSpace are the characters C's isspace accepts, which PostgreSQL skips
// around a number and its unit.
const cSpace = " \t\n\v\f\r"

// numberEnd is the length of the decimal number strtod would read at the
// start of s: a sign, digits with an optional fraction, and an exponent
// only when digits follow its letter.
func numberEnd(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// settingNumbers reads a setting's value in each configuration as a
// number; when the configurations give different units of one kind, the
// values are brought to its base unit (kB or ms), which it returns.
func settingNumbers(values map[string]string, configs []string) ([]float64, string, bool) {
	if len(configs) == 0 {
		return nil, "", false
	}
	xs := make([]float64, len(configs))
	units := make([]string, len(configs))
	same := true
	for i, c := range configs {
		x, u, ok := settingNumber(values[c])
		if !ok {
			return nil, "", false
		}
		xs[i], units[i] = x, u
		same = same && u == units[0]
	}
	if same {
		return xs, units[0], true
	}
	base := ""
	for i, u := range units {
		sc, ok := settingUnits[u]
		if !ok || (base != "" && sc.base != base) {
			return nil, "", false
		}
		base = sc.base
		xs[i] *= sc.factor
	}
	return xs, base, true
}

// humanSetting writes a setting's value with its pg_settings unit as
// SHOW does, so that values compare whatever unit the server counts in:
// shared_buffers 16384 of 8kB is "128MB". A value that is not a number,
// or -1 ("use the default"), is left as it is.
func humanSetting(v, unit string) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || unit == "" {
		return v
	}
	size, ok := memoryUnit(unit)
	if !ok {
		return v + unit
	}
	if n < 0 {
		return v
	}
	b := n * size
	for _, u := range memoryUnits[:4] { // TB to kB: SHOW writes bytes below 1kB as B
		if b >= u.bytes && b == float64(int64(b/u.bytes))*u.bytes {
			return strconv.FormatInt(int64(b/u.bytes), 10) + u.name
		}
	}
	return strconv.FormatFloat(b, 'g', -1, 64) + "B"
}

// boolWords are the spellings PostgreSQL accepts for a boolean setting
// (guc.c's parse_bool, without its prefixes), as SHOW writes them.
var boolWords = map[string]string{"on": "on", "true": "on", "yes": "on", "1": "on", "off": "off", "false": "off", "no": "off", "0": "off"}

// sameSetting says whether a value a study declares is the value a server
// shows (in SHOW's units, as humanSetting writes it): the same text in any
// case, the same boolean, or the same number in one unit of a kind
// ("8192kB" is "8MB", "10min" is "600s").
func sameSetting(declared, shown string) bool {
	d, s := strings.TrimSpace(declared), strings.TrimSpace(shown)
	if strings.EqualFold(d, s) {
		return true
	}
	if bs, ok := boolWords[strings.ToLower(s)]; ok && (s == "on" || s == "off") {
		return boolWords[strings.ToLower(d)] == bs
	}
	xs, _, ok := settingNumbers(map[string]string{"d": d, "s": s}, []string{"d", "s"})
	return ok && xs[0] == xs[1]
}
