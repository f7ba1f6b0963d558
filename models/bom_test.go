package models

import "testing"

// TestConfigBOM: a configuration file starting with a byte-order mark
// reads as without it (the rule of every maslda reader).
func TestConfigBOM(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"c.hcl", "c.json"} {
		src := "topics {\n k = 7\n}\n"
		if name == "c.json" {
			src = `{"topics": {"k": 7}}`
		}
		cfg, err := ParseConfig([]byte("\ufeff"+src), name)
		if err != nil || cfg.Topics.K != 7 {
			t.Errorf("%s with a byte-order mark: %v, %+v", name, err, cfg)
		}
	}
}
