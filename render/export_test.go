package render

// ConfigColor is configColor for the tests of render_test.
var ConfigColor = configColor
