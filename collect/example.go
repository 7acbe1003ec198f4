package collect

import _ "embed"

// exampleStudy is the commented study `pgstudy init` writes: a cold-cache
// comparison of timed statements.
//
//go:embed example.yaml
var exampleStudy []byte

//go:embed example-throughput.yaml
var exampleThroughput []byte

//go:embed example-sweep.yaml
var exampleSweep []byte

//go:embed example-sysbench-micro.yaml
var exampleSysbenchMicro []byte

// Templates are the example studies `pgstudy init --template` writes.
var Templates = map[string][]byte{"cold": exampleStudy, "throughput": exampleThroughput, "sweep": exampleSweep,
	"sysbench-micro": exampleSysbenchMicro}

// TemplateNames lists the templates, the default first.
var TemplateNames = []string{"cold", "throughput", "sweep", "sysbench-micro"}
