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
