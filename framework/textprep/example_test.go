package textprep_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/maslda/maslda/framework/textprep"
)

func ExampleTokenizer() {
	tk, err := textprep.NewTokenizer(textprep.DefaultTokenOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println(tk.Tokens(nil, "The runners were RUNNING generously; caresses don’t count, 2024 neither."))
	// Output: [runner run generous caress count neither]
}

func ExamplePrepare() {
	dir, _ := os.MkdirTemp("", "textprep-example")
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "docs.csv")
	os.WriteFile(in, []byte("id,text,label\n"+
		"a,\"Rockets reach orbit; the rocket's orbit decays.\",space\n"+
		"b,\"Guitars and a melody.\",music\n"+
		"c,\"An orbit, a rocket launch!\",space\n"), 0o644)

	src, err := textprep.Open(textprep.InputOptions{Path: in, Format: textprep.CSV, IDColumn: "id", TextColumn: "text", LabelColumn: "label"})
	if err != nil {
		panic(err)
	}
	defer src.Close()
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	cfg := textprep.DefaultConfig()
	cfg.MinDF = 2 // terms in at least two documents
	m, err := textprep.Prepare(context.Background(), src, cfg, out)
	if err != nil {
		panic(err)
	}
	for _, f := range []string{textprep.VocabFile, textprep.DocsFile, textprep.LabelsFile} {
		b, _ := os.ReadFile(filepath.Join(out, f))
		fmt.Printf("%s:\n%s", f, b)
	}
	fmt.Println("empty documents:", m.Counts.EmptyDocuments, "emptied by the vocabulary:", m.Counts.EmptiedDocuments)
	// Output:
	// vocab.txt:
	// orbit
	// rocket
	// docs.ldac:
	// 2 0:2 1:2
	// 0
	// 2 0:1 1:1
	// labels.csv:
	// task,label
	// a,space
	// b,music
	// c,space
	// empty documents: 1 emptied by the vocabulary: 1
}
