package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// cellText is a value as a person reads it, in its column's format and
// unit; an unknown value, NaN or an infinity is empty.
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
		x = c.Shown(x)
		if c.Kind == table.PValue && x < 0.0005 {
			return "<0.001"
		}
		if c.Kind == table.Decimals || c.Kind == table.PValue {
			return fmt.Sprintf("%.*f", c.Digits, x)
		}
		return sig(x, digitsOr(c.Digits, 4))
	case int64:
		if c.Scale > 1 {
			return sig(c.Shown(float64(x)), digitsOr(c.Digits, 4))
		}
		return strconv.FormatInt(x, 10)
	case []string:
		return strings.Join(x, ", ")
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

// rawValue is a value for CSV: numbers in full precision and base units,
// lists as JSON arrays ("[1,2,5]", which DuckDB casts to a list and
// pandas reads with json.loads), an unknown value (NaN, an infinity)
// empty. A Points column is two fields (rawPoints).
func rawValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return string(appendFloat(nil, x))
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case []int64, []string:
		return string(appendJSONValue(nil, x))
	}
	return fmt.Sprint(v)
}

// rawPoints are a Points value's positions and values as two JSON arrays,
// or two empty fields when it is unknown.
func rawPoints(v any) (at, values string) {
	ps, ok := v.([]table.Point)
	if !ok {
		return "", ""
	}
	a, vs := splitPoints(ps)
	return string(appendJSONValue(nil, a)), string(appendJSONValue(nil, vs))
}

// splitPoints are points' positions and values, apart.
func splitPoints(ps []table.Point) ([]int64, []float64) {
	at := make([]int64, len(ps))
	vs := make([]float64, len(ps))
	for i, p := range ps {
		at[i], vs[i] = p.At, p.Value
	}
	return at, vs
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
