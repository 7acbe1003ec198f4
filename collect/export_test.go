package collect

// ParseStudy is LoadStudy for a study given as text, for the tests of the
// collector that write no file.
var ParseStudy = parseStudy

// WithoutReadBack makes the collects of a test record no read-back of the
// settings before each run, as pgstudy did before it had one.
func WithoutReadBack(t interface{ Cleanup(func()) }) {
	noReadBack = true
	t.Cleanup(func() { noReadBack = false })
}

// SpillEvery makes the collects of a test write their samplers' rows out
// each time they keep n bytes of text (1: at every sample).
func SpillEvery(t interface{ Cleanup(func()) }, n int) {
	old, oldRows := spillBytes, minSpillRows
	spillBytes, minSpillRows = n, 1
	t.Cleanup(func() { spillBytes, minSpillRows = old, oldRows })
}
