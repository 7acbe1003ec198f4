package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// JSON parses the output of EXPLAIN (FORMAT JSON): a JSON array of
// one object per statement (or the single object auto_explain logs), raw or
// as psql prints it. Only the first statement's plan is returned; a further
// one is a Warning.
func JSON(r io.Reader, source string) (*Plan, []parse.Warning, error) {
	data, err := parse.ReadText(r, source)
	if err != nil {
		return nil, nil, err
	}
	return parseJSON(data, source)
}

// parseJSON is JSON of the text parse.ReadText read.
func parseJSON(data, source string) (*Plan, []parse.Warning, error) {
	data = jsonInput(data)
	d := newJSONDecoder(data, source)
	switch c := d.peek(); c {
	case 0:
		return nil, nil, parse.Errorf(source, 0, "empty input; expected EXPLAIN (FORMAT JSON) output")
	case '[', '{':
	default:
		return nil, nil, parse.Errorf(source, d.line(), "expected EXPLAIN (FORMAT JSON) output (a JSON array or object), found %q", firstWord(data[d.pos:]))
	}
	p := &Plan{Format: "json"}
	var warns []parse.Warning
	if d.peek() == '{' {
		if err := d.query(p); err != nil {
			return nil, nil, err
		}
	} else {
		n := 0
		start := d.line()
		err := d.array("plans", func(line int) error {
			q := p
			if n > 0 {
				q = &Plan{Format: "json"}
				warns = append(warns, parse.Warning{Source: source, Line: line, Text: lineText(data, line),
					Msg: fmt.Sprintf("plan of statement %d not returned (only the first statement's is)", n+1)})
			}
			n++
			return d.query(q)
		})
		if err != nil {
			return nil, nil, err
		}
		if n == 0 {
			return nil, nil, parse.Errorf(source, start, "empty JSON array; expected a plan")
		}
	}
	if d.peek() != 0 {
		line := d.line()
		warns = append(warns, parse.Warning{Source: source, Line: line, Text: lineText(data, line), Msg: "text after the JSON plan, ignored"})
	}
	return p, warns, nil
}

// query reads a statement's object.
func (d *jsonDecoder) query(p *Plan) error {
	if d.peek() != '{' {
		return d.mismatch("", "a JSON object with a \"Plan\"")
	}
	return d.queryBody(p, d.line())
}

// queryBody reads the members of a statement's object.
func (d *jsonDecoder) queryBody(p *Plan, line int) error {
	err := d.object("plan", func(key string, line int) error {
		var err error
		switch key {
		case "Plan":
			if p.Root != nil {
				return d.errorf(line, "a second \"Plan\" in one statement")
			}
			p.Root = d.newNode()
			return d.node(p.Root)
		case "Planning Time":
			p.PlanningTimeMs, err = d.float(key, line)
		case "Execution Time":
			p.ExecutionTimeMs, err = d.float(key, line)
		case "Planning":
			err = d.planning(p, key)
		case "Settings":
			err = d.settings(p, key)
		case "Triggers":
			p.Triggers = []Trigger{}
			err = d.array(strconv.Quote(key), func(line int) error {
				t, err := d.trigger()
				p.Triggers = append(p.Triggers, t)
				return err
			})
		case "JIT":
			p.JIT = &JIT{}
			err = d.jit(p.JIT)
		case "Serialization":
			p.Serialization = &Serialization{}
			err = d.serialization(p.Serialization, key)
		default:
			err = d.extra(&p.Extra, key)
		}
		return err
	})
	if err != nil {
		return err
	}
	if p.Root == nil {
		return d.errorf(line, "no \"Plan\" in this object; expected EXPLAIN (FORMAT JSON) output")
	}
	return nil
}

// planning reads the "Planning" object (BUFFERS or MEMORY): its buffers
// and memory, other keys kept in the plan's Extra under key.
func (d *jsonDecoder) planning(p *Plan, key string) error {
	var b Buffers
	var extra map[string]any
	err := d.object(strconv.Quote(key), func(k string, line int) error {
		var err error
		switch k {
		case "Memory Used":
			p.PlanningMemoryUsedKB, err = d.integer(k, line)
			return err
		case "Memory Allocated":
			p.PlanningMemoryAllocatedKB, err = d.integer(k, line)
			return err
		}
		if ok, err := d.buffers(&b, k, line); ok || err != nil {
			return err
		}
		return d.extra(&extra, k)
	})
	if b != (Buffers{}) {
		p.PlanningBuffers = &b
	}
	if extra != nil {
		put(&p.Extra, key, extra)
	}
	return err
}

// settings reads the "Settings" object; a value that is not a string is
// kept as its JSON.
func (d *jsonDecoder) settings(p *Plan, key string) error {
	p.Settings = map[string]string{}
	return d.object(strconv.Quote(key), func(k string, line int) error {
		v, err := d.value()
		if s, ok := v.(string); ok {
			p.Settings[k] = s
		} else if err == nil {
			b, _ := json.Marshal(v)
			p.Settings[k] = string(b)
		}
		return err
	})
}

// serialization reads the "Serialization" object (SERIALIZE, 17+).
func (d *jsonDecoder) serialization(s *Serialization, key string) error {
	return d.object(strconv.Quote(key), func(k string, line int) error {
		var err error
		switch k {
		case "Time":
			s.TimeMs, err = d.float(k, line)
		case "Output Volume":
			s.OutputKB, err = d.integer(k, line)
		case "Format":
			s.Format, err = d.str(k, line)
		default:
			var ok bool
			if ok, err = d.buffers(&s.Buffers, k, line); !ok && err == nil {
				err = d.extra(&s.Extra, k)
			}
		}
		return err
	})
}

func (d *jsonDecoder) trigger() (Trigger, error) {
	var t Trigger
	err := d.object("trigger", func(k string, line int) error {
		var err error
		switch k {
		case "Trigger Name":
			t.Name, err = d.str(k, line)
		case "Constraint Name":
			t.ConstraintName, err = d.str(k, line)
		case "Relation":
			t.Relation, err = d.str(k, line)
		case "Time":
			t.TimeMs, err = d.float(k, line)
		case "Calls":
			t.Calls, err = d.integer(k, line)
		default:
			err = d.extra(&t.Extra, k)
		}
		return err
	})
	return t, err
}

func (d *jsonDecoder) jit(j *JIT) error {
	return d.object("\"JIT\"", func(k string, line int) error {
		var err error
		switch k {
		case "Functions":
			j.Functions, err = d.integer(k, line)
		case "Options":
			err = d.object(strconv.Quote(k), func(k string, line int) error {
				var err error
				switch k {
				case "Inlining":
					j.Inlining, err = d.boolean(k, line)
				case "Optimization":
					j.Optimization, err = d.boolean(k, line)
				case "Expressions":
					j.Expressions, err = d.boolean(k, line)
				case "Deforming":
					j.Deforming, err = d.boolean(k, line)
				default:
					err = d.extra(&j.Extra, "Options/"+k)
				}
				return err
			})
		case "Timing":
			err = d.object(strconv.Quote(k), func(k string, line int) error {
				var err error
				switch k {
				case "Generation":
					// A number before 17, {"Deform": ms, "Total": ms} from 17.
					var v any
					if v, err = d.value(); err != nil {
						return err
					}
					switch v := v.(type) {
					case json.Number:
						j.GenerationMs = jsonNumber(v)
					case map[string]any:
						if n, ok := v["Total"].(json.Number); ok {
							j.GenerationMs = jsonNumber(n)
						}
						if n, ok := v["Deform"].(json.Number); ok {
							j.DeformMs = jsonNumber(n)
						}
					default:
						return d.errorf(line, "%q: expected a number or an object", k)
					}
				case "Inlining":
					j.InliningMs, err = d.float(k, line)
				case "Optimization":
					j.OptimizationMs, err = d.float(k, line)
				case "Emission":
					j.EmissionMs, err = d.float(k, line)
				case "Total":
					j.TotalMs, err = d.float(k, line)
				default:
					err = d.extra(&j.Extra, "Timing/"+k)
				}
				return err
			})
		default:
			err = d.extra(&j.Extra, k)
		}
		return err
	})
}

func jsonNumber(n json.Number) parse.Opt[float64] {
	f, err := num.ParseFloat(string(n))
	if err != nil {
		return parse.Opt[float64]{}
	}
	return parse.Some(f)
}
