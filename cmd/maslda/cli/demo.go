package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

// The demo's planted corpus: big enough to be a real test of recovery,
// small enough to train in seconds on two cores.
var demoSpec = synth.LDASpec{D: 2000, V: 1000, K: 10, DocLen: 120, Alpha: 0.1, TopicConc: 0.05, NamedVocab: true}

func defineDemo(fs *pflag.FlagSet) runFunc {
	demoCase := fs.String("case", "crowd", "crowd: MA-sLDAc on documents labelled by five simulated annotators, one answer each; lda: plain LDA topic recovery")
	out := fs.String("out", "", "also write the generated corpus (corpus/) and the trained model (model/) here")
	inference := fs.String("inference", "batch", "schedule: batch or svi")
	seed := fs.Uint64("seed", 1, "seed of the generator and of training")
	workers := fs.Int("workers", 0, "E-step goroutines (0 = all cores)")
	progress := fs.String("progress", "auto", "progress bar: auto (on a terminal), always, never")
	return func(ctx context.Context, e *env, args []string) error {
		if err := checkProgress(*progress); err != nil {
			return err
		}
		if *out != "" {
			if err := models.CheckOutDir(*out, isDemoDir); err != nil {
				return err
			}
		}
		start := time.Now()
		switch *demoCase {
		case "lda":
		case "crowd":
			return demoCrowd(ctx, e, *inference, *seed, *workers, *progress, *out)
		default:
			return fmt.Errorf("%w: --case %q; valid: crowd, lda", errUsage, *demoCase)
		}
		c, planted, err := synth.LDA(demoSpec, models.NewRand(*seed+1000))
		if err != nil {
			return err
		}
		src := fmt.Sprintf("seed = %d\nworkers = %d\nrestarts = 8\ntopics {\n  k = %d\n  alpha = 0.1\n  tau = 0.05\n}\n", *seed, *workers, demoSpec.K)
		switch *inference {
		case "batch":
			src += "inference \"batch\" {\n  max_iters = 100\n  tol = 1e-5\n}\n"
		case "svi":
			src += "inference \"svi\" {\n  batch_size = 200\n  kappa = 0.6\n  delay = 1\n  epochs = 20\n}\n"
		default:
			return fmt.Errorf("%w: --inference %q; valid: batch, svi", errUsage, *inference)
		}
		cfg, err := models.ParseConfig([]byte(src), "demo.hcl")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Planted corpus: %d documents, %d words, %d topics, %.0f tokens (α = %g, topics ~ Dir(%g)).\n",
			len(c.Docs), c.V, demoSpec.K, c.Tokens(), demoSpec.Alpha, demoSpec.TopicConc)
		fmt.Fprintf(e.stdout, "Training plain LDA, %s inference, seed %d...\n", *inference, *seed)
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			return err
		}
		hist := &history{}
		obs := e.observer(*progress, run, hist)
		res, err := run.Fit(ctx, obs.observe)
		obs.finish()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Done: best of %d restarts, then %d updates; ELBO %.6g, converged %v, %.1f s in all.\n\n", run.Config.Restarts, res.Iters, res.ELBO, res.Converged, time.Since(start).Seconds())
		est := run.Model.Topics.Beta()
		match := matchTopics(est, planted.Beta)
		fmt.Fprintln(e.stdout, "Planted topic → found topic: total-variation distance (0 = identical, 1 = disjoint), top words")
		worst, sum := 0.0, 0.0
		for k, m := range match {
			worst = math.Max(worst, m.tv)
			sum += m.tv
			fmt.Fprintf(e.stdout, "  planted %2d → found %2d  TV %.3f   planted: %s\n", k, m.found, m.tv, words(planted.Beta[k], c.Vocab, 5))
			fmt.Fprintf(e.stdout, "  %29s found: %s\n", "", words(est[m.found], c.Vocab, 5))
		}
		fmt.Fprintf(e.stdout, "\nMean TV %.3f, worst %.3f. A random pair of planted topics is at TV %.3f.\n", sum/float64(len(match)), worst, meanPairTV(planted.Beta))
		if *out != "" {
			if err := writeDemo(*out, c, run, hist); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Wrote %s/corpus (train.ldac, vocab.txt) and %s/model; try: maslda topics --model %s\n", *out, *out, filepath.Join(*out, "model"))
		}
		e.log.Debug("demo finished", "seconds", time.Since(start).Seconds())
		return nil
	}
}

func writeDemo(out string, c *framework.Corpus, run *models.Run, hist *history) error {
	if err := writeFileAtomic(filepath.Join(out, "corpus", "train.ldac"), func(w io.Writer) error { return corpus.WriteLDAC(w, c.Docs) }); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(out, "corpus", "vocab.txt"), func(w io.Writer) error { return corpus.WriteVocab(w, c.Vocab) }); err != nil {
		return err
	}
	return run.SaveAtomic(filepath.Join(out, "model"), func(tmp string) error {
		return writeFileAtomic(filepath.Join(tmp, "history.csv"), hist.write)
	})
}

type topicMatch struct {
	found int
	tv    float64
}

func tv(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / 2
}

// matchTopics matches each planted topic to a distinct found topic,
// greedily by increasing total-variation distance.
func matchTopics(est, planted [][]float64) []topicMatch {
	type pair struct {
		p, f int
		d    float64
	}
	var pairs []pair
	for p := range planted {
		for f := range est {
			pairs = append(pairs, pair{p, f, tv(planted[p], est[f])})
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].d < pairs[j].d })
	out := make([]topicMatch, len(planted))
	usedP, usedF := make([]bool, len(planted)), make([]bool, len(est))
	for _, x := range pairs {
		if !usedP[x.p] && !usedF[x.f] {
			usedP[x.p], usedF[x.f] = true, true
			out[x.p] = topicMatch{x.f, x.d}
		}
	}
	return out
}

func meanPairTV(b [][]float64) float64 {
	s, n := 0.0, 0
	for i := range b {
		for j := i + 1; j < len(b); j++ {
			s += tv(b[i], b[j])
			n++
		}
	}
	return s / float64(max(n, 1))
}

func words(b []float64, vocab []string, n int) string {
	var w []string
	for _, v := range topWords(b, n) {
		w = append(w, vocab[v])
	}
	return strings.Join(w, " ")
}

// demoAccuracies are the paper's simulated annotators (MODEL.md §7).
var demoAccuracies = []float64{0.737, 0.468, 0.284, 0.278, 0.260}

// demoCrowd runs MA-sLDAc on planted data: documents from planted topics,
// true classes c_d ~ Softmax(η z̄_d) from a planted η, one answer per
// training document from one of five simulated annotators.
func demoCrowd(ctx context.Context, e *env, inference string, seed uint64, workers int, progress, out string) error {
	start := time.Now()
	const C, train = 4, 1000
	rng := models.NewRand(seed + 1000)
	spec := demoSpec
	spec.D, spec.V, spec.K = train+500, 500, 8
	all, planted, err := synth.LDA(spec, rng)
	if err != nil {
		return err
	}
	eta := synth.PlantedEta(C, spec.K, 6, rng)
	classes := synth.Classes(planted.ZBar, eta, rng)
	// The annotators are simulated by the confusion model's sampler
	// (framework.Sampler), as `maslda simulate --accuracies` does.
	names := []string{"c0", "c1", "c2", "c3"}
	trainTruth := classTruth(names, classes[:train])
	blk, err := parseSimBlock([]byte("annotators \"confusion\" {\n  accuracies = "+hclNumbers(demoAccuracies)+"\n}\n"), "demo")
	if err != nil {
		return err
	}
	sampler, err := samplerOf(blk)
	if err != nil {
		return fmt.Errorf("demo --case crowd needs the standard plug-ins: %w", err)
	}
	sim, err := sampler.Simulate(blk.params(), trainTruth)
	if err != nil {
		return err
	}
	byDoc, err := sim.Sample(1, rng)
	if err != nil {
		return err
	}
	c := &framework.Corpus{V: spec.V, Vocab: all.Vocab, Docs: all.Docs[:train],
		Answers: &framework.Answers{Annotators: workerNames(sim.Annotators()), Classes: names, ByDoc: byDoc}}
	test := &framework.Corpus{V: spec.V, Docs: all.Docs[train:]}
	// One fit (consensus = 1), so that the demo takes seconds; maslda
	// train's default for such a model fits three seeds and keeps their
	// medoid (docs/design.md, "Consensus among seeds").
	src := fmt.Sprintf("seed = %d\nworkers = %d\nrestarts = 4\nconsensus = 1\ntopics {\n  k = %d\n  alpha = 0.1\n  tau = 0.05\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n", seed, workers, spec.K)
	switch inference {
	case "batch":
		src += "inference \"batch\" {\n  max_iters = 100\n  tol = 1e-5\n}\n"
	case "svi":
		src += "inference \"svi\" {\n  batch_size = 200\n  epochs = 15\n}\n"
	default:
		return fmt.Errorf("%w: --inference %q; valid: batch, svi", errUsage, inference)
	}
	cfg, err := models.ParseConfig([]byte(src), "demo.hcl")
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Planted crowd data: %d training documents with ONE answer each from %d simulated annotators\n", train, sim.Annotators())
	fmt.Fprintf(e.stdout, "(accuracies %v, MODEL.md §7), %d held-out documents, %d classes, %d topics, V = %d.\n", demoAccuracies, len(test.Docs), C, spec.K, spec.V)
	fmt.Fprintf(e.stdout, "Training MA-sLDAc (softmax response + confusion-matrix annotators), %s inference...\n", inference)
	run, err := models.Build(cfg, nil, c)
	if err != nil {
		return err
	}
	hist := &history{}
	obs := e.observer(progress, run, hist)
	res, err := run.Fit(ctx, obs.observe)
	obs.finish()
	if err != nil {
		return err
	}
	post, err := run.Model.Posterior(ctx)
	if err != nil {
		return err
	}
	pred, err := run.Model.Predict(ctx, test)
	if err != nil {
		return err
	}
	kind, err := framework.Default.KindOf(run.Model.Response)
	if err != nil {
		return err
	}
	acc := func(ps []models.Prediction, truth []int) float64 {
		return kind.ScoreTruth(classTruth(names, truth), func(d int) framework.Target { return ps[d].Target })
	}
	mvRight := 0
	for d, as := range byDoc {
		if majority(C, as) == classes[d] {
			mvRight++
		}
	}
	oracle := 0
	for d := train; d < len(classes); d++ {
		best, bestV := 0, math.Inf(-1)
		for l, row := range eta {
			v := 0.0
			for k, x := range row {
				v += x * planted.ZBar[d][k]
			}
			if v > bestV {
				best, bestV = l, v
			}
		}
		if best == classes[d] {
			oracle++
		}
	}
	fmt.Fprintf(e.stdout, "Done: %d updates, ELBO %.6g, converged %v, %.1f s in all.\n\n", res.Iters, res.ELBO, res.Converged, time.Since(start).Seconds())
	fmt.Fprintf(e.stdout, "Truth of the training documents:  majority vote %.3f   MA-sLDAc %.3f\n", float64(mvRight)/float64(train), acc(post, classes[:train]))
	fmt.Fprintf(e.stdout, "Held-out accuracy:                MA-sLDAc %.3f   (planted classifier on the true topic mix: %.3f)\n\n", acc(pred, classes[train:]), float64(oracle)/float64(len(test.Docs)))
	cm, ok := run.Model.Noise.(interface{ Accuracy(r int) float64 })
	if !ok {
		return fmt.Errorf("%w: annotators %q report no accuracy", framework.ErrIncompatible, run.Config.Annotators.Name)
	}
	fmt.Fprintln(e.stdout, "Annotator  planted accuracy  estimated")
	for r, a := range demoAccuracies {
		fmt.Fprintf(e.stdout, "  a%d       %.3f             %.3f\n", r, a, cm.Accuracy(r))
	}
	match := matchTopics(run.Model.Topics.Beta(), planted.Beta)
	worst, sum := 0.0, 0.0
	for _, m := range match {
		worst = math.Max(worst, m.tv)
		sum += m.tv
	}
	fmt.Fprintf(e.stdout, "\nTopics: mean TV %.3f, worst %.3f from the planted ones (random pair: %.3f).\n", sum/float64(len(match)), worst, meanPairTV(planted.Beta))
	if out != "" {
		if err := writeDemo(out, c, run, hist); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(out, "corpus", "answers.csv"), func(w io.Writer) error { return corpus.WriteAnswers(w, c.Answers, nil) }); err != nil {
			return err
		}
		// The truth of the training documents (task = line of train.ldac
		// from 0, as the answers'), for train --truth and eval.
		if err := writeFileAtomic(filepath.Join(out, "corpus", "truth.csv"), func(w io.Writer) error {
			if _, err := io.WriteString(w, "task,label\n"); err != nil {
				return err
			}
			for d, cl := range classes[:train] {
				if _, err := fmt.Fprintf(w, "%d,%s\n", d, names[cl]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Wrote %s/corpus (train.ldac, vocab.txt, answers.csv, truth.csv: the planted classes) and %s/model.\n", out, out)
	}
	return nil
}

// classTruth is the truth of documents with the given true classes.
func classTruth(classes []string, truth []int) *framework.Truth {
	t := &framework.Truth{Classes: classes, Has: make([]bool, len(truth)), Class: make([]int32, len(truth)), Value: make([]float64, len(truth))}
	for d, c := range truth {
		t.Has[d], t.Class[d], t.Value[d] = true, int32(c), float64(c)
	}
	return t
}

// majority is the most frequent class of the answers, the first of ties
// (−1 without answers): majority vote with ties broken by class order.
func majority(c int, as []framework.Answer) int {
	if len(as) == 0 {
		return -1
	}
	count := make([]float64, c)
	for _, a := range as {
		count[a.Class]++
	}
	return argmax(count)
}

func argmax(x []float64) int {
	b := 0
	for i, v := range x {
		if v > x[b] {
			b = i
		}
	}
	return b
}
