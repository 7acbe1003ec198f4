// Package study is the schema of a study file, the one definition that
// collect runs and analyze reads back from a capture (which stores the
// study it ran): the types, their decoding with bounds, the rules that span
// fields, and the expansion of configuration matrices.
//
// Parse, Load and Stored go through the same steps:
//
//  1. The text is made UTF-8 (Load: a byte order mark dropped, UTF-16
//     decoded) and parsed as YAML; a syntax error or a binary file is
//     reported with its line.
//  2. Each node is decoded into its type by hand, not with
//     yaml.Unmarshal, so that every mistake is located (file:line:col)
//     and says what was expected, and an unknown key is an error (or, in
//     a study a capture stored, a key ignored and listed).
//  3. Defaults are applied (client pgx, 5 rounds, order rotate, ...) and
//     each configuration with a matrix becomes one configuration per
//     combination, named from its values.
//  4. The rules that span fields are checked (unique names, one client per
//     test, slices that fit, cold steps that have commands to run), then
//     the reader's own (Options.Rules: the collector checks DSNs and
//     before statements).
//  5. Every problem is returned at once, sorted by place, as an ErrorList.
//
// The package reads text only: it runs nothing and connects to nothing.
package study
