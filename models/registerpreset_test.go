package models

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestRegisterPreset: a preset registered from outside is used by
// `model = "NAME"` and listed; an empty name, a duplicate and blocks that
// do not parse panic, as the Register functions of plug-ins do.
func TestRegisterPreset(t *testing.T) {
	saved := Presets()
	t.Cleanup(func() {
		presetsMu.Lock()
		presets = saved
		presetsMu.Unlock()
	})
	RegisterPreset(Preset{Name: "slda(first)", Description: "supervised LDA on each document's first answer", Source: `
response "softmax" {}
annotators "perfect" {
  aggregate = "majority"
}
inference "svi" {}
`})
	cfg, err := ParseConfig([]byte("model = \"slda(first)\"\ntopics {\n  k = 3\n}\n"), "x.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s %s %s %s %d", cfg.Model, cfg.Response.Name, cfg.Annotators.Name, cfg.Inference.Name, cfg.Topics.K); got != "slda(first) softmax perfect svi 3" {
		t.Errorf("composition %q", got)
	}
	if !slices.Contains(PresetNames(), "slda(first)") {
		t.Errorf("PresetNames %v lacks the registered preset", PresetNames())
	}
	for _, tc := range []struct {
		name string
		p    Preset
		want string
	}{
		{"empty name", Preset{Source: `response "softmax" {}`}, "empty name"},
		{"a built-in name", Preset{Name: "ma-sldac", Source: `response "softmax" {}`}, `RegisterPreset called twice for "ma-sldac"`},
		{"a registered name", Preset{Name: "slda(first)", Source: `response "softmax" {}`}, `RegisterPreset called twice for "slda(first)"`},
		{"broken HCL", Preset{Name: "x", Source: `response "softmax" {`}, `preset "x"`},
		{"an unknown block", Preset{Name: "x", Source: "annotator \"confusion\" {}\n"}, `Unsupported block type`},
		{"a seed", Preset{Name: "x", Source: "seed = 3\n"}, "only blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			RegisterPreset(tc.p)
		})
	}
}
