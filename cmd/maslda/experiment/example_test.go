package experiment_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/maslda/maslda/cmd/maslda/experiment"
)

// A spec's grid expands only along the axes each model's template uses:
// here k and alpha for the topic model, nothing but the seed for
// Dawid–Skene (which the spec restricts to one seed).
func ExampleSpec_Cells() {
	dir, err := os.MkdirTemp("", "experiment-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"lda.hcl": "seed = ${seed}\ntopics {\n  k     = ${k}\n  alpha = ${alpha}\n}\n",
		"ds.hcl":  "model = \"dawid-skene\"\n",
		"spec.hcl": `k     = [10, 20]
alpha = [0.1, 1]
seeds = [1, 2]
data {
  train_docs = "train.ldac"
}
model "lda" {
  config = "lda.hcl"
}
model "dawid-skene" {
  config = "ds.hcl"
  seeds  = [1]
}
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}
	spec, err := experiment.LoadSpec(filepath.Join(dir, "spec.hcl"), experiment.Options{Out: filepath.Join(dir, "out")})
	if err != nil {
		fmt.Println(err)
		return
	}
	cells := spec.Cells("")
	for _, c := range cells {
		fmt.Println(c.Label())
	}
	fmt.Print("\nconfiguration of the first cell:\n", cells[0].Config)
	// Output:
	// lda k=10 alpha=0.1 seed=1
	// lda k=10 alpha=0.1 seed=2
	// lda k=10 alpha=1 seed=1
	// lda k=10 alpha=1 seed=2
	// lda k=20 alpha=0.1 seed=1
	// lda k=20 alpha=0.1 seed=2
	// lda k=20 alpha=1 seed=1
	// lda k=20 alpha=1 seed=2
	// dawid-skene seed=1
	//
	// configuration of the first cell:
	// seed = 1
	// topics {
	//   k     = 10
	//   alpha = 0.1
	// }
}
