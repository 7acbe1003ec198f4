package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// cellText is a value as a person reads it, in its column's format; an
// unknown value, NaN or an infinity is empty. A string in a column of
// numbers (the baseline's "ratio") is shown as it is.
func cellText(c table.Column, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		if c.Width > 0 && len([]rune(x)) > c.Width {
			return string([]rune(x)[:c.Width])
		}
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		if c.Kind == table.Decimals {
			return fmt.Sprintf("%.*f", c.Digits, x)
		}
		return sig(x, digitsOr(c.Digits, 4))
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		if c.Kind == table.Words {
			return map[bool]string{true: c.Yes, false: c.No}[x]
		}
		return strconv.FormatBool(x)
	case []int64:
		if c.Kind == table.Ranges {
			return table.RangeText(x)
		}
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(s, ", ")
	case []table.Point:
		s := make([]string, len(x))
		for i, p := range x {
			s[i] = strconv.FormatInt(p.At, 10) + ":" + cellText(c, p.Value)
		}
		return strings.Join(s, " ")
	}
	return fmt.Sprint(v)
}

func digitsOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// sig writes v with the given significant digits, never in e-notation,
// without trailing zeros: 259, 0.04, 302.1, 0.6981.
func sig(v float64, digits int) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	d := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	d = max(0, min(d, 6))
	out := fmt.Sprintf("%.*f", d, v)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// rawValue is a value for CSV: numbers in full precision, lists as
// numbers separated by spaces, an unknown value (NaN, an infinity) empty.
func rawValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case []int64:
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = strconv.FormatInt(n, 10)
		}
		return strings.Join(s, " ")
	case []table.Point:
		s := make([]string, len(x))
		for i, p := range x {
			s[i] = strconv.FormatInt(p.At, 10) + ":" + rawValue(p.Value)
		}
		return strings.Join(s, " ")
	}
	return fmt.Sprint(v)
}

// numeric says whether a value is a number a column aligns right.
func numeric(v any) (number, known bool) {
	switch x := v.(type) {
	case nil:
		return false, false
	case float64:
		return true, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int64:
		return true, true
	}
	return false, true
}
