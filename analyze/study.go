package analyze

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// studyFacts is what the analysis needs from the study a capture recorded:
// the configurations in the order the study gave them (the first is the
// default baseline), the settings each declares (the variables under
// test), each test's statement and expected plan node, and the device
// limits. The collector checked the study in full when it ran; here only
// these keys are read, and a study that no longer decodes leaves them
// empty rather than failing an analysis of the runs themselves.
type studyFacts struct {
	Name    string `yaml:"name"`
	Configs []struct {
		Name     string         `yaml:"name"`
		Settings map[string]any `yaml:"settings"`
		// Matrix expands into one configuration per combination, named
		// NAME.setting-value...: the runs name them, in the study's order.
		Matrix yaml.Node `yaml:"matrix"`
	} `yaml:"configs"`
	Tests []struct {
		Name       string         `yaml:"name"`
		SQL        string         `yaml:"sql"`
		Set        map[string]any `yaml:"set"`
		ExpectPlan string         `yaml:"expect_plan"`
	} `yaml:"tests"`
	Disk struct {
		Devices []string         `yaml:"devices"`
		Sample  string           `yaml:"sample"`
		Limits  map[string]Limit `yaml:"limits"`
	} `yaml:"disk"`
	Protocol struct {
		Order string `yaml:"order"`
	} `yaml:"protocol"`
}

// Limit is what a device is provisioned for (a cloud volume's MiB/s and
// IOPS), in the study's units.
type Limit struct {
	ReadMiBs  float64 `yaml:"read_mib_s" json:"read_mib_s,omitempty"`
	WriteMiBs float64 `yaml:"write_mib_s" json:"write_mib_s,omitempty"`
	MiBs      float64 `yaml:"mib_s" json:"mib_s,omitempty"`
	IOPS      float64 `yaml:"iops" json:"iops,omitempty"`
}

func readStudy(text string) (*studyFacts, error) {
	var s studyFacts
	if err := yaml.Unmarshal([]byte(text), &s); err != nil {
		return &studyFacts{}, fmt.Errorf("the study recorded in the capture: %w", err)
	}
	return &s, nil
}

// declared says whether the study names a setting as a variable: in a
// configuration's settings or a test's set.
func (s *studyFacts) declared(name string) bool {
	for _, c := range s.Configs {
		if _, ok := c.Settings[name]; ok {
			return true
		}
		for i := 0; i+1 < len(c.Matrix.Content); i += 2 {
			if c.Matrix.Content[i].Value == name {
				return true
			}
		}
	}
	for _, t := range s.Tests {
		if _, ok := t.Set[name]; ok {
			return true
		}
	}
	return false
}

func (s *studyFacts) expectPlan(test string) string {
	for _, t := range s.Tests {
		if t.Name == test {
			return t.ExpectPlan
		}
	}
	return ""
}
