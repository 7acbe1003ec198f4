package analyze

import (
	"slices"
	"testing"
)

// TestSettingNumber reads values by PostgreSQL's rules for a number with a
// unit (guc.c): units are case-sensitive, spaces may stand between the
// number and its unit and around both, nothing may follow the unit.
func TestSettingNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		x    float64
		unit string
		ok   bool
	}{
		{"16", 16, "", true},
		{"-1", -1, "", true}, // "use the default"
		{"+5", 5, "", true},
		{"0.5", 0.5, "", true},
		{".5", 0.5, "", true},
		{"5.", 5, "", true},
		{"1e3", 1000, "", true}, // strtod reads an exponent
		{"2.5E-1", 0.25, "", true},
		{"8MB", 8, "MB", true},
		{"64kB", 64, "kB", true},
		{"1GB", 1, "GB", true},
		{"1TB", 1, "TB", true},
		{"512B", 512, "B", true},
		{"10s", 10, "s", true},
		{"200ms", 200, "ms", true},
		{"250us", 250, "us", true},
		{"5min", 5, "min", true},
		{"1h", 1, "h", true},
		{"7d", 7, "d", true},
		{"1.5GB", 1.5, "GB", true},
		{"8 MB", 8, "MB", true},      // whitespace between number and unit
		{" \t8MB \n", 8, "MB", true}, // and around them
		{"1e", 0, "", false},         // "e" is not a unit
		{"8mb", 0, "", false},        // units are case-sensitive
		{"8KB", 0, "", false},        //
		{"8Mb", 0, "", false},        //
		{"10S", 0, "", false},        //
		{"10sec", 0, "", false},      // not a unit of PostgreSQL's
		{"8MB x", 0, "", false},      // garbage after the unit
		{"8 M B", 0, "", false},      //
		{"MB", 0, "", false},         // no number
		{"", 0, "", false},           //
		{"on", 0, "", false},         //
		{"NaN", 0, "", false},        // PostgreSQL rejects NaN
		{"inf", 0, "", false},        // and infinities fail its range checks
		{"1e999", 0, "", false},      // out of range
		{"(absent)", 0, "", false},   // a setting the server lacks
		{"1 / 16", 0, "", false},     // a value that varied between rounds
		{"0x10", 0, "", false},       // the server never shows hexadecimal
		{"1,5", 0, "", false},        //
		{"- 1", 0, "", false},        //
	} {
		x, unit, ok := settingNumber(tc.in)
		if x != tc.x || unit != tc.unit || ok != tc.ok {
			t.Errorf("settingNumber(%q) = %v, %q, %v; want %v, %q, %v", tc.in, x, unit, ok, tc.x, tc.unit, tc.ok)
		}
	}
}

// TestSettingNumbers brings values of different units of one kind to its
// base unit, kB or ms, as guc.c's conversion tables do.
func TestSettingNumbers(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   []float64
		unit   string
		ok     bool
	}{
		{[]string{"1", "16", "64"}, []float64{1, 16, 64}, "", true},
		{[]string{"4MB", "8MB", "64MB"}, []float64{4, 8, 64}, "MB", true}, // one unit: kept
		{[]string{"512kB", "8MB", "1GB"}, []float64{512, 8192, 1 << 20}, "kB", true},
		{[]string{"512B", "1kB", "1TB"}, []float64{0.5, 1, 1 << 30}, "kB", true},
		{[]string{"500us", "10ms", "1s", "1min", "1h", "1d"}, []float64{0.5, 10, 1000, 60000, 3600000, 86400000}, "ms", true},
		{[]string{"10s", "1GB"}, nil, "", false}, // time against memory
		{[]string{"10", "10s"}, nil, "", false},  // a plain number against a time
		{[]string{"10", "x"}, nil, "", false},
		{nil, nil, "", false},
	} {
		values := map[string]string{}
		var configs []string
		for i, v := range tc.values {
			c := string(rune('a' + i))
			values[c] = v
			configs = append(configs, c)
		}
		got, unit, ok := settingNumbers(values, configs)
		if !slices.Equal(got, tc.want) || unit != tc.unit || ok != tc.ok {
			t.Errorf("settingNumbers(%q) = %v, %q, %v; want %v, %q, %v", tc.values, got, unit, ok, tc.want, tc.unit, tc.ok)
		}
	}
}

// TestHumanSetting: values as pg_settings gives them (a number and the
// unit it counts in) written as SHOW writes them.
func TestHumanSetting(t *testing.T) {
	for _, tc := range []struct{ v, unit, want string }{
		{"16384", "8kB", "128MB"},
		{"4096", "kB", "4MB"},
		{"1048576", "kB", "1GB"},
		{"1073741824", "kB", "1TB"},
		{"2048", "16MB", "32GB"},
		{"65536", "B", "64kB"},
		{"512", "B", "512B"},
		{"1000", "kB", "1000kB"},
		{"-1", "8kB", "-1"},
		{"200", "ms", "200ms"},
		{"on", "", "on"},
		{"abc", "kB", "abc"},
		{"3", "0kB", "30kB"},
	} {
		if got := humanSetting(tc.v, tc.unit); got != tc.want {
			t.Errorf("humanSetting(%q, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
