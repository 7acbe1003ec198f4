package hostfacts

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// Scheduler is the I/O scheduler in use of a device's queue/scheduler
// file, which lists those available with the active one in brackets
// ("[mq-deadline] kyber none" is mq-deadline); a file without brackets (a
// device with only one) is that one, trimmed.
func Scheduler(text string) string {
	text = strings.TrimSpace(text)
	if i, j := strings.Index(text, "["), strings.Index(text, "]"); i >= 0 && j > i {
		return text[i+1 : j]
	}
	return text
}

// SizeBytes is a device's size from its size file, which counts 512-byte
// sectors whatever the device's block size; false when the file does not
// hold one number.
func SizeBytes(text string) (uint64, bool) {
	n, ok := num.Uint(strings.TrimSpace(text))
	if !ok || n > (1<<64-1)/512 {
		return 0, false
	}
	return n * 512, true
}
