package study

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Matrix is the settings a configuration is swept over, in the order the
// study gives them; the last varies fastest.
type Matrix struct {
	Axes []Axis
	Pos  Pos
}

// Axis is one swept setting and its values.
type Axis struct {
	Name   string
	Values []string
	Pos    Pos
}

func (m *Matrix) decodeNode(d *decoder, n *yaml.Node) {
	m.Pos = posOf(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "expected matrix: a mapping of settings to lists of values, such as {effective_io_concurrency: [1, 16, 64]}")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ax := Axis{Name: k.Value, Pos: posOf(k)}
		if slices.ContainsFunc(m.Axes, func(a Axis) bool { return a.Name == ax.Name }) {
			d.errorf(k, "matrix: %s appears twice", ax.Name)
			continue
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			d.errorf(v, "matrix: %s needs a list of values, such as [1, 16, 64]", ax.Name)
			continue
		}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Value == "" {
				d.errorf(e, "matrix: %s: expected a value, found %s", ax.Name, kindName(e))
				continue
			}
			if slices.Contains(ax.Values, e.Value) {
				d.errorf(e, "matrix: %s: %s appears twice", ax.Name, e.Value)
				continue
			}
			ax.Values = append(ax.Values, e.Value)
		}
		m.Axes = append(m.Axes, ax)
	}
}

// expandMatrix replaces each configuration that has a matrix by its
// combinations, in order.
func (s *Study) expandMatrix(d *decoder) {
	var out []Config
	for _, c := range s.Configs {
		if len(c.Matrix.Axes) == 0 {
			out = append(out, c)
			continue
		}
		for _, ax := range c.Matrix.Axes {
			if _, ok := c.Settings[ax.Name]; ok {
				d.errorAt(ax.Pos, "configuration %s: %s is in both settings and matrix", c.Name, ax.Name)
			}
		}
		// Counted before it is expanded: 9 axes of 10 values are a
		// billion configurations, which no study runs and no memory holds.
		n, sizes := 1, []string{}
		for _, ax := range c.Matrix.Axes {
			n = min(n*max(1, len(ax.Values)), maxConfigs+1)
			sizes = append(sizes, fmt.Sprint(len(ax.Values)))
		}
		if len(out)+n > maxConfigs {
			d.errorAt(c.Matrix.Axes[0].Pos, "configuration %s: its matrix (%s values) makes more than %d configurations; a study has at most %d",
				c.Name, strings.Join(sizes, " x "), maxConfigs-len(out), maxConfigs)
			continue
		}
		combos := [][]string{{}}
		for _, ax := range c.Matrix.Axes {
			var next [][]string
			for _, combo := range combos {
				for _, v := range ax.Values {
					next = append(next, append(slices.Clone(combo), v))
				}
			}
			combos = next
		}
		for _, combo := range combos {
			e := c
			e.Matrix = Matrix{}
			e.Settings = maps.Clone(c.Settings)
			if e.Settings == nil {
				e.Settings = map[string]string{}
			}
			name := c.Name
			for i, ax := range c.Matrix.Axes {
				e.Settings[ax.Name] = combo[i]
				name += "." + ax.Name + "-" + combo[i]
			}
			e.Name = name
			out = append(out, e)
		}
	}
	s.Configs = out
}
