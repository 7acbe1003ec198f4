package samples

import "embed"

// example is a real capture made by samples/example/make.sh: PostgreSQL 17
// against 18 on a cold cache, on one small machine. pgstudy report renders
// it when no capture is named, so a new user sees a whole report at once.
//
//go:embed example/capture
var example embed.FS

// ExampleName is how the embedded capture is named in messages.
const ExampleName = "the sample capture (samples/example)"

// Example opens the embedded sample capture.
func Example() (*Reader, error) { return openFS(example, "example/capture") }
