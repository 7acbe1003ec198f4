package study

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The types written in a study file in more than one form read themselves.

func (l *StringList) decodeNode(d *decoder, n *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = StringList{{n.Value, posOf(n)}}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				d.errorf(c, "expected a statement, found %s", kindName(c))
				continue
			}
			*l = append(*l, PosString{c.Value, posOf(c)})
		}
	default:
		d.errorf(n, "expected a statement or a list of statements, found %s", kindName(n))
	}
}

func (s *Shell) decodeNode(d *decoder, n *yaml.Node) {
	s.Pos = posOf(n)
	if n.Kind == yaml.ScalarNode {
		s.Sh = n.Value
	} else {
		d.decodeStruct(n, reflectValue(s))
	}
	if strings.TrimSpace(s.Sh) == "" {
		d.errorf(n, "expected a shell command (text, or a mapping with sh:, env: and timeout:)")
	}
}

const stepKinds = "stop-all, start, drop-caches, evict [PATH...], wait-ready [TIMEOUT], or a mapping {sh: COMMAND}"

func (s *Step) decodeNode(d *decoder, n *yaml.Node) {
	s.Pos = posOf(n)
	if n.Kind == yaml.MappingNode {
		s.Kind = "sh"
		s.Shell = &Shell{}
		s.Shell.decodeNode(d, n)
		return
	}
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "expected a cold-cache step: %s", stepKinds)
		return
	}
	fields := strings.Fields(n.Value)
	if len(fields) == 0 {
		d.errorf(n, "expected a cold-cache step: %s", stepKinds)
		return
	}
	s.Kind = fields[0]
	args := fields[1:]
	switch s.Kind {
	case "stop-all", "start", "drop-caches":
		if len(args) > 0 {
			d.errorf(n, "%s takes no argument, found %q", s.Kind, strings.Join(args, " "))
		}
	case "evict":
		s.Paths = args
	case "wait-ready":
		s.Timeout = time.Minute
		if len(args) > 1 {
			d.errorf(n, "wait-ready takes one timeout, found %q", strings.Join(args, " "))
		} else if len(args) == 1 {
			t, err := time.ParseDuration(args[0])
			if err != nil || t <= 0 {
				d.errorf(n, "expected wait-ready with a positive timeout such as 2m, found %q", args[0])
			}
			s.Timeout = t
		}
	default:
		d.errorf(n, "unknown cold-cache step %q; expected %s", s.Kind, stepKinds)
	}
}
