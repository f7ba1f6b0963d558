package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/cmd/maslda/experiment"
)

// point is a cell's grid point.
type point struct {
	Model, K, Alpha, Tau, Omega string
	Seed                        uint64
}

func points(cells []experiment.Cell) []point {
	var p []point
	for i, c := range cells {
		if c.Index != i {
			panic("cell index out of order")
		}
		p = append(p, point{c.Model, c.K, c.Alpha, c.Tau, c.Omega, c.Seed})
	}
	return p
}

// parseWith writes the templates into a temporary directory and parses
// spec there.
func parseWith(t *testing.T, spec string, templates map[string]string) *experiment.Spec {
	t.Helper()
	dir := t.TempDir()
	for name, src := range templates {
		writeFile(t, filepath.Join(dir, name), src)
	}
	s, err := experiment.ParseSpec([]byte(spec), filepath.Join(dir, "spec.hcl"), experiment.Options{Out: "o"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const dataBlock = "data {\n  train_docs = \"d.ldac\"\n}\n"

func TestExperimentCells(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spec      string
		templates map[string]string
		want      []point
	}{
		{
			name: "only the axes the template uses",
			spec: "k = [10, 20]\nalpha = [0.1, 1]\ntau = [0.5]\nomega = [1, 10]\nseeds = [1, 2]\n" + dataBlock +
				"model \"a\" {\n  config = \"a.hcl\"\n}\n",
			templates: map[string]string{"a.hcl": "seed = ${seed}\ntopics {\n  k = ${k}\n  alpha = ${alpha}\n}\n"},
			want: []point{
				{"a", "10", "0.1", "", "", 1}, {"a", "10", "0.1", "", "", 2}, {"a", "10", "1", "", "", 1}, {"a", "10", "1", "", "", 2},
				{"a", "20", "0.1", "", "", 1}, {"a", "20", "0.1", "", "", 2}, {"a", "20", "1", "", "", 1}, {"a", "20", "1", "", "", 2},
			},
		},
		{
			name: "models in file order, a model's own axes",
			spec: "k = [5, 50]\ntau = [0.01, 10]\nomega = [2]\nseeds = [3, 4]\n" + dataBlock +
				"model \"ds\" {\n  config = \"ds.hcl\"\n  seeds = [1]\n}\n" +
				"model \"m\" {\n  config = \"m.hcl\"\n  k = [7]\n}\n",
			templates: map[string]string{
				"ds.hcl": "model = \"dawid-skene\"\n",
				"m.hcl":  "topics {\n  k = ${k}\n  tau = ${tau}\n}\nannotators \"confusion\" {\n  omega = ${ omega }\n}\n",
			},
			want: []point{
				{"ds", "", "", "", "", 1},
				{"m", "7", "", "0.01", "2", 3}, {"m", "7", "", "0.01", "2", 4}, {"m", "7", "", "10", "2", 3}, {"m", "7", "", "10", "2", 4},
			},
		},
		{
			name:      "escaped $${k} is not a variable; seeds default to [1]",
			spec:      "k = [5]\n" + dataBlock + "model \"x\" {\n  config = \"x.hcl\"\n}\n",
			templates: map[string]string{"x.hcl": "# $${k} is written literally\ntopics {\n  k = 3\n}\n"},
			want:      []point{{"x", "", "", "", "", 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := parseWith(t, tc.spec, tc.templates)
			if diff := cmp.Diff(tc.want, points(s.Cells("data"))); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}

	// The substitution is textual and keeps the template's lines.
	s := parseWith(t, "k = [5]\ntau = [0.01]\nomega = [2]\nseeds = [9]\n"+dataBlock+"model \"m\" {\n  config = \"m.hcl\"\n}\n",
		map[string]string{"m.hcl": "seed = ${seed}\ntopics {\n  k = ${k}\n  tau = ${tau}\n}\nannotators \"confusion\" {\n  omega = ${ omega }\n}\n# $${k}\n"})
	want := "seed = 9\ntopics {\n  k = 5\n  tau = 0.01\n}\nannotators \"confusion\" {\n  omega = 2\n}\n# $${k}\n"
	if diff := cmp.Diff(want, s.Cells("")[0].Config); diff != "" {
		t.Errorf("substituted configuration (-want +got):\n%s", diff)
	}
}

// TestExperimentCellIDs: ids are stable, unique, and change with the configuration
// and the data's content but not with the data's location.
func TestExperimentCellIDs(t *testing.T) {
	const spec = "k = [10, 20]\nomega = [1]\nseeds = [1, 2]\n" + dataBlock + "model \"ma-sldac\" {\n  config = \"c.hcl\"\n}\nmodel \"lda+logreg(mv)\" {\n  config = \"b.hcl\"\n}\n"
	tmpl := map[string]string{"c.hcl": cTemplate, "b.hcl": "model = \"lda+logreg(mv)\"\nseed = ${seed}\ntopics {\n  k = ${k}\n}\n"}
	a := parseWith(t, spec, tmpl).Cells("data-1")
	b := parseWith(t, spec, tmpl).Cells("data-1")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("the same spec gave different cells (-first +second):\n%s", diff)
	}
	// A golden id: the scheme must not change silently (it would orphan
	// every finished cell of every experiment).
	if a[0].ID != "ma-sldac-k10-o1-s1-6d634e5a52f6" || a[4].ID != "lda_logreg_mv-k10-s1-a185b54c3a6b" {
		t.Errorf("ids %q, %q changed", a[0].ID, a[4].ID)
	}
	seen := map[string]bool{}
	for _, c := range a {
		if seen[c.ID] {
			t.Errorf("id %s twice", c.ID)
		}
		seen[c.ID] = true
	}
	if other := parseWith(t, spec, tmpl).Cells("data-2"); other[0].ID == a[0].ID {
		t.Errorf("the data id does not enter the cell id")
	}
	tmpl2 := map[string]string{"c.hcl": cTemplate + "\n", "b.hcl": tmpl["b.hcl"]}
	if c := parseWith(t, spec, tmpl2).Cells("data-1"); c[0].ID == a[0].ID || c[4].ID != a[4].ID {
		t.Errorf("changing one template: ids %s, %s (were %s, %s)", c[0].ID, c[4].ID, a[0].ID, a[4].ID)
	}

	// DataID: by content, not by path.
	d1, d2 := t.TempDir(), t.TempDir()
	writeCorpus(t, d1)
	writeCorpus(t, d2)
	dataSpec := func(dir string) *experiment.Spec {
		s, err := experiment.ParseSpec([]byte("data {\n  train_docs = \"train.ldac\"\n  train_truth = \"train-truth.csv\"\n}\nmodel \"m\" {\n  config = \"c.hcl\"\n}\nk = [2]\nomega = [1]\n"),
			filepath.Join(dir, "spec.hcl"), experiment.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	writeFile(t, filepath.Join(d1, "c.hcl"), cTemplate)
	writeFile(t, filepath.Join(d2, "c.hcl"), cTemplate)
	id1, err1 := dataSpec(d1).DataID(context.Background())
	id2, err2 := dataSpec(d2).DataID(context.Background())
	if err1 != nil || err2 != nil || id1 != id2 {
		t.Errorf("the same files in two places: %s, %s (%v, %v)", id1, id2, err1, err2)
	}
	truth := filepath.Join(d2, "train-truth.csv")
	src, _ := os.ReadFile(truth)
	writeFile(t, truth, strings.Replace(string(src), ",c", ",x", 1))
	if id3, _ := dataSpec(d2).DataID(context.Background()); id3 == id1 {
		t.Errorf("changing the truth does not change the data id")
	}
}
