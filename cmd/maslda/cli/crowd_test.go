package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCrowdWorkflow: truth labels → simulate → train MA-sLDAc with --truth
// → posterior.csv, annotators.csv/json, history with the truth metric →
// eval on the posterior and on predictions; then the same for MA-sLDAr.
func TestCrowdWorkflow(t *testing.T) {
	f := newFixture(t)
	// Truth: classes x, y, z and values 0–4 in turn (the workflow, not
	// recovery, is under test here; models has the recovery tests).
	var cls, num strings.Builder
	cls.WriteString("task,label\n")
	num.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		c := []string{"x", "y", "z"}[i%3]
		cls.WriteString(id + "," + c + "\n")
		num.WriteString(id + "," + strconv.Itoa(i%5) + "\n")
	}
	truthC := writeFile(t, filepath.Join(f.dir, "truth-c.csv"), cls.String())
	truthR := writeFile(t, filepath.Join(f.dir, "truth-r.csv"), num.String())
	ansC := filepath.Join(f.dir, "answers-c.csv")
	ansR := filepath.Join(f.dir, "answers-r.csv")
	mustRun(t, "simulate", "--truth", truthC, "--accuracies", "0.9,0.6,0.4", "--per-doc", "2", "--out", ansC, "--log-level", "warn")
	mustRun(t, "simulate", "--truth", truthR, "--bias", "0,0.5", "--precision", "4,1", "--per-doc", "0", "--out", ansR, "--log-level", "warn")
	if rows := readCSV(t, ansC); len(rows) != 1+2*len(f.trainIDs) || !cmp.Equal(rows[0], []string{"task", "worker", "label"}) {
		t.Fatalf("simulated answers: %d rows, header %v", len(rows), rows[0])
	}

	for _, tc := range []struct {
		name, cfg, answers, truth string
		posteriorHeader           []string
		annotatorsHeader          string
		metric                    string
	}{
		{"classification", "topics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 5\n}\n",
			ansC, truthC, []string{"task", "label", "p:x", "p:y", "p:z"}, "annotator,answers,accuracy,pi:x:x", "truth_accuracy"},
		{"regression", "topics {\n k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n max_iters = 5\n}\n",
			ansR, truthR, []string{"task", "label", "var"}, "annotator,answers,bias,precision", "truth_r2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(f.dir, tc.name)
			mustRun(t, "train", "--docs", f.docs, "--ids", f.ids, "--vocab", f.vocab, "--config", f.config(t, tc.name+".hcl", tc.cfg),
				"--answers", tc.answers, "--truth", tc.truth, "--out", out, "--log-level", "warn", "--progress", "never")
			post := readCSV(t, filepath.Join(out, "posterior.csv"))
			if diff := cmp.Diff(tc.posteriorHeader, post[0]); diff != "" {
				t.Errorf("posterior.csv header (-want +got):\n%s", diff)
			}
			if len(post) != 1+len(f.trainIDs) || post[1][0] != f.trainIDs[0] {
				t.Errorf("posterior.csv: %d rows, first task %q", len(post), post[1][0])
			}
			ann := readCSV(t, filepath.Join(out, "annotators.csv"))
			if !strings.HasPrefix(strings.Join(ann[0], ","), tc.annotatorsHeader) {
				t.Errorf("annotators.csv header %v, want prefix %s", ann[0], tc.annotatorsHeader)
			}
			var doc []map[string]any
			if err := json.Unmarshal(readFile(t, filepath.Join(out, "annotators.json")), &doc); err != nil || len(doc) != len(ann)-1 {
				t.Errorf("annotators.json: %v, %d objects for %d annotators", err, len(doc), len(ann)-1)
			}
			hist := readCSV(t, filepath.Join(out, "history.csv"))
			if !slices.Contains(hist[0], tc.metric) {
				t.Errorf("history.csv columns %q, want a %q column", hist[0], tc.metric)
			}
			r := mustRun(t, "eval", "--pred", filepath.Join(out, "posterior.csv"), "--truth", tc.truth, "--json")
			var m map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["n"] != float64(len(f.trainIDs)) {
				t.Errorf("eval on the posterior: %v, %s", err, r.stdout)
			}
			pred := filepath.Join(f.dir, tc.name+"-pred.csv")
			mustRun(t, "predict", "--model", out, "--docs", f.test, "--ids", f.testIDs, "--out", pred, "--log-level", "warn")
			if got := readCSV(t, pred)[0][:len(tc.posteriorHeader)]; !cmp.Equal(got, tc.posteriorHeader) {
				t.Errorf("predict header %v, want it to start with %v", got, tc.posteriorHeader)
			}
		})
	}
}
