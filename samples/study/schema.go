package study

// The JSON Schema of the types written in a study file in more than one
// form, beside their decoders, so that `pgstudy schema study` (made by
// reflection over the yaml tags of Study) says what the decoder reads.
// object is the schema of a struct's own fields, for a type whose forms
// include a mapping of them.

// JSONSchema is a duration's schema: text such as 500ms, 30s or 2m.
func (Duration) JSONSchema(func(any) map[string]any) map[string]any {
	return map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`,
		"description": "a duration such as 500ms, 30s or 2m"}
}

// text is any scalar, which the decoder reads as its text (YAML reads 5
// as a number).
var text = map[string]any{"type": []string{"string", "number", "boolean"}}

// JSONSchema is a statement list's schema: one statement, or a list.
func (StringList) JSONSchema(func(any) map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{text, map[string]any{"type": "array", "items": text}},
		"description": "a statement, or a list of statements"}
}

// JSONSchema is a shell command's schema: text, or {sh, env, timeout}.
func (s Shell) JSONSchema(object func(any) map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{text, object(s)}, "description": "a shell command, or a mapping with sh:, env: and timeout:"}
}

// JSONSchema is a cold-cache step's schema.
func (s Step) JSONSchema(object func(any) map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "pattern": `^\s*(stop-all|start|drop-caches|evict(\s+\S+)*|wait-ready(\s+\S+)?)\s*$`},
		object(Shell{}),
	}, "description": "a cold-cache step: " + stepKinds}
}

// JSONSchema is a matrix's schema: settings to lists of values.
func (Matrix) JSONSchema(func(any) map[string]any) map[string]any {
	return map[string]any{"type": "object", "additionalProperties": map[string]any{
		"type": "array", "minItems": 1, "items": map[string]any{"type": []string{"string", "number", "boolean"}}},
		"description": "settings to lists of values, such as {effective_io_concurrency: [1, 16, 64]}: one configuration per combination"}
}
