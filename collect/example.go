package collect

import _ "embed"

// ExampleStudy is the commented study `pgstudy init` writes.
//
//go:embed example.yaml
var ExampleStudy []byte
