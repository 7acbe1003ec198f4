package collect

// ParseStudy is LoadStudy for a study given as text, for the tests of the
// collector that write no file.
var ParseStudy = parseStudy
