// Command plantcorpus writes a planted LDA corpus in LDA-C (and, with
// -answers, numeric crowd answers for MA-sLDAr) for the measurements of
// docs/scale.md: K 20 topics over V 2,000 words, 100 tokens per document
// (framework/synth.LDA, the corpus of beamtrain's TestMeasureOverhead).
//
//	go run ./internal/plantcorpus -docs 1000000 -out docs.ldac [-answers answers.csv]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
)

func main() {
	D := flag.Int("docs", 10000, "documents")
	out := flag.String("out", "", "LDA-C file to write")
	ans := flag.String("answers", "", "answers CSV to write (3 numeric answers per document from 5 annotators), optional")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if err := run(*D, *out, *ans, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "plantcorpus: %v\n", err)
		os.Exit(1)
	}
}

func run(D int, out, ans string, seed uint64) error {
	if out == "" || D < 1 {
		return fmt.Errorf("-out FILE and -docs ≥ 1 are required")
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	c, pl, err := synth.LDA(synth.LDASpec{D: D, V: 2000, K: 20, DocLen: 100, Alpha: 0.1, TopicConc: 0.05}, rng)
	if err != nil {
		return err
	}
	if err := write(out, func(w *bufio.Writer) error { return corpus.WriteLDAC(w, c.Docs) }); err != nil {
		return err
	}
	if ans == "" {
		return nil
	}
	x := make([]float64, D)
	for d := range x {
		for k, z := range pl.ZBar[d] {
			x[d] += float64(k%5) * z
		}
	}
	a := &framework.Answers{Annotators: []string{"a", "b", "c", "d", "e"}, ByDoc: biasprecision.Sample(x, biasprecision.PaperBias, biasprecision.PaperPrec, 3, rng)}
	ids := make([]string, D)
	for i := range ids {
		ids[i] = c.Docs[i].ID
	}
	return write(ans, func(w *bufio.Writer) error { return corpus.WriteAnswers(w, a, ids) })
}

func write(path string, fn func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fn(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
