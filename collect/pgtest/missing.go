package pgtest

import (
	"fmt"
	"os"
	"testing"
)

// Missing skips the test, or fails it when the environment variable CI is
// "true": for what a test needs and the machine may lack (a binary, root, a
// kernel feature). Locally a missing part is a skip; under CI, where the
// project's test script installed everything, it is a failure, so that a
// test never passes there by not running. The message says what is missing
// and how to get it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true, so this is a failure, not a skip)", msg)
	}
	t.Skip(msg)
}
