package vacuum

import "strings"

// logPrefix takes the timestamp ("2024-05-01 12:00:00.123 UTC", as %m or %t
// print it) and the process ID ("[1234]", or a bare number after the
// timestamp) from a log line prefix.
func logPrefix(prefix string) (ts, pid string) {
	rest := prefix
	if i := timestamp(prefix); i >= 0 {
		end := i + len("2006-01-02 15:04:05")
		for end < len(prefix) && (prefix[end] == '.' || prefix[end] >= '0' && prefix[end] <= '9') {
			end++
		}
		if end+1 < len(prefix) && prefix[end] == ' ' {
			k := end + 1
			for k < len(prefix) && prefix[k] != ' ' && prefix[k] != ']' && prefix[k] != ',' {
				k++
			}
			if tz := prefix[end+1 : k]; timeZone(tz) {
				end = k
			}
		}
		ts, rest = prefix[i:end], prefix[end:]
	}
	if i := strings.IndexByte(rest, '['); i >= 0 {
		if j := strings.IndexByte(rest[i:], ']'); j > 1 && allDigits(rest[i+1:i+j]) {
			return ts, rest[i+1 : i+j]
		}
	}
	for _, f := range strings.Fields(rest) {
		f = strings.TrimRight(f, ":")
		if allDigits(f) {
			return ts, f
		}
	}
	return ts, ""
}

// timestamp finds "YYYY-MM-DD HH:MM:SS" in s, or -1.
func timestamp(s string) int {
	const shape = "dddd-dd-dd dd:dd:dd"
	for i := 0; i+len(shape) <= len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			continue
		}
		ok := true
		for k := 0; k < len(shape) && ok; k++ {
			c := s[i+k]
			if shape[k] == 'd' {
				ok = c >= '0' && c <= '9'
			} else {
				ok = c == shape[k]
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// timeZone reports whether s looks like a time zone as %m prints it:
// "UTC", "CEST", "+03", "-0530".
func timeZone(s string) bool {
	if s == "" || len(s) > 6 {
		return false
	}
	if s[0] == '+' || s[0] == '-' {
		return len(s) > 1 && allDigits(s[1:])
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
