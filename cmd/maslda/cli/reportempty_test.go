package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportEmptyHistory (issue 30, item 7): a model whose history.csv
// has a header and no row (no update recorded) gets its page, without the
// ELBO trace and with a sentence saying why, instead of an error.
func TestReportEmptyHistory(t *testing.T) {
	f := newFixture(t)
	model := f.train(t, "m")
	hist := filepath.Join(model, "history.csv")
	header := strings.SplitN(string(readFile(t, hist)), "\n", 2)[0] + "\n"
	for _, content := range []string{header, ""} {
		writeFile(t, hist, content)
		man := readManifest(t, model)
		sum := sha256.Sum256([]byte(content))
		man.Files["history.csv"] = hex.EncodeToString(sum[:])
		raw, err := json.Marshal(man)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(model, "model.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(f.dir, "r.html")
		mustRun(t, "report", "--model", model, "--out", out, "--log-level", "warn")
		page := string(readFile(t, out))
		checkReportHTML(t, page, "history.csv has no rows (no update was recorded): no ELBO trace.")
		if strings.Contains(page, "<svg") && strings.Contains(page, "ELBO</text>") {
			t.Errorf("history %q: the page has an ELBO figure", content)
		}
	}
}
