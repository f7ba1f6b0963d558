package models_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/plugins/std"
)

// The benchmark matrix of corpus shapes (issue 27, docs/performance.md
// "Every corpus shape"): generated corpora of six shapes, each trained by
// plain LDA, MA-sLDAc (product and quadratic bounds) and MA-sLDAr from
// Build to the end of a whole run, one worker, K 20, α 0.1, τ 0.1, 15
// batch iterations (MA-sLDAr: its exact pilot first), so that the
// start-up, the classifier start and the pilot are counted.
// docs/scripts/shapes.sh prints the ratio table from its output.

// shapeSpec is one corpus shape: a planted crowd problem (its documents,
// one set of class answers) from which the numeric answers of MA-sLDAr are
// drawn as well (the same annotators on the same documents).
type shapeSpec struct {
	name string
	spec synth.CrowdSpec
}

// shapes are the corpus shapes of issue 27, small enough that the whole
// matrix (24 runs of 15 iterations) takes a few minutes on one core.
func shapes() []shapeSpec {
	base := synth.CrowdSpec{K: 20, C: 4, Alpha: 0.1, TopicConc: 0.05, EtaScale: 6,
		Labels: synth.LabelsSampled, Wrong: synth.WrongAsymmetric, WrongConc: 1,
		Accuracies: synth.PaperAccuracies, PerDoc: 1}
	v := func(name string, f func(s *synth.CrowdSpec)) shapeSpec {
		s := base
		s.Name = name
		f(&s)
		return shapeSpec{name, s}
	}
	return []shapeSpec{
		// About 7 words a document.
		v("tweets", func(s *synth.CrowdSpec) { s.D, s.V, s.DocLen = 6000, 5000, 7 }),
		// About 100 distinct words a document, counts 1–3.
		v("news", func(s *synth.CrowdSpec) { s.D, s.V, s.DocLen, s.TopicConc = 500, 20000, 150, 0.002 }),
		// About 200 distinct words a document, ~300 tokens each (bags of
		// visual words).
		v("long", func(s *synth.CrowdSpec) { s.D, s.V, s.DocLen, s.TopicConc = 200, 500, 58000, 0.01 }),
		// News with 20 classes.
		v("classes", func(s *synth.CrowdSpec) {
			s.D, s.V, s.DocLen, s.TopicConc, s.C = 500, 20000, 150, 0.002, 20
		}),
		// 500 annotators chosen with Zipf weights, 3 answers a document.
		v("annotators", func(s *synth.CrowdSpec) {
			s.D, s.V, s.DocLen = 3000, 5000, 20
			s.Accuracies = synth.SpreadAccuracies(500, 0.3, 0.9)
			s.PerDoc, s.Skew = 3, 1
		}),
		// V 100,000.
		v("vocab", func(s *synth.CrowdSpec) { s.D, s.V, s.DocLen, s.TopicConc = 1200, 100000, 50, 0.05 }),
	}
}

// shapeCorpora are a shape's corpus with class answers and with numeric
// answers.
type shapeCorpora struct {
	cls, reg *framework.Corpus
	truth    []int     // the true classes
	x        []float64 // the true numeric targets
}

var shapeCache sync.Map // name → func() (shapeCorpora, error)

func shapeCorpus(s shapeSpec) (shapeCorpora, error) {
	f, _ := shapeCache.LoadOrStore(s.name, sync.OnceValues(func() (shapeCorpora, error) {
		rng := rand.New(rand.NewPCG(2027, uint64(len(s.name))))
		cr, err := synth.NewCrowd(s.spec, rng)
		if err != nil {
			return shapeCorpora{}, err
		}
		cls := cr.Train
		// Numeric targets x_d ~ N(η·z̄_d, 0.01); annotator r answers
		// x_d + b_r + N(0, 1/p_r) wherever it gave a class answer.
		eta := make([]float64, s.spec.K)
		for k := range eta {
			eta[k] = rng.NormFloat64()
		}
		x := synth.Targets(cr.ZBar, eta, 0.01, rng)
		R := len(cls.Answers.Annotators)
		bias, prec := make([]float64, R), make([]float64, R)
		for r := range bias {
			bias[r] = rng.NormFloat64()
			prec[r] = math.Exp(2 * rng.NormFloat64())
		}
		num := make([][]framework.Answer, len(cls.Docs))
		for d, as := range cls.Answers.ByDoc {
			for _, a := range as {
				r := a.Annotator
				num[d] = append(num[d], framework.Answer{Annotator: r, Class: -1, Value: x[d] + bias[r] + rng.NormFloat64()/math.Sqrt(prec[r])})
			}
		}
		reg := &framework.Corpus{Docs: cls.Docs, V: cls.V, Answers: &framework.Answers{Annotators: cls.Answers.Annotators, ByDoc: num}}
		return shapeCorpora{cls, reg, cr.Truth, x}, nil
	}))
	return f.(func() (shapeCorpora, error))()
}

// shapeModels are the compositions of the matrix: their configuration
// after the common topics and inference blocks.
var shapeModels = []struct{ name, src string }{
	{"lda", ""},
	{"ma-sldac", "model = \"ma-sldac\"\n"},
	{"ma-sldac-quad", "model = \"ma-sldac\"\nresponse \"softmax\" {\n  bound = \"quadratic\"\n}\n"},
	{"ma-sldar", "model = \"ma-sldar\"\n"},
}

// shapeIters is the number of batch iterations of a run (the C++
// comparison's 15), after MA-sLDAr's pilot.
const shapeIters = 15

// BenchmarkShapes trains every composition of shapeModels on every shape
// of shapes, one worker, from Build to the end of the run, and reports the
// process's CPU seconds (user + system, every thread):
//
//   - run-cpu-s: the whole run, Build (the topics' start, the annotators'
//     start) included;
//   - first3-cpu-s: Build and the first 3 iterations (of the pilot, for
//     MA-sLDAr);
//   - iter-cpu-s: the mean iteration (every iteration after Build, the
//     pilot's, the classifier start's and the restarts' included);
//   - late-cpu-s: the mean of the last 5 iterations;
//   - sched-cpu-s: the mean of the schedule's iterations (the last 15, or
//     MASLDA_SHAPE_ITERS), after the restarts (4 × 20 iterations of plain
//     LDA with a response) and MA-sLDAr's pilot: a supervised iteration
//     against plain LDA's, like for like;
//   - iters: iterations run (MA-sLDAr: the pilot's and the schedule's);
//   - truth: MA-sLDAc's truth accuracy (argmax of q(c_d)), MA-sLDAr's
//     truth R² (of the posterior means), so that a faster run can be
//     checked to learn as much;
//   - and, for plain LDA, the shape: distinct words a document (uniq/doc),
//     tokens a distinct word (tok/uniq), answers a document (ans/doc).
//
// On a shared machine compare ratios within one run (docs/scripts/shapes.sh):
//
//	go test ./models -run '^$' -bench '^BenchmarkShapes$' -benchtime 1x -timeout 60m
//
// MASLDA_SHAPE_ITERS overrides the 15 iterations, MASLDA_SHAPE_WORKERS the
// one worker (wall-s: the run's wall-clock seconds, for the speed-up of
// two workers on a quiet machine); MASLDA_SHAPE_CONFIG is added to every
// supervised model's configuration (an option measured against plain LDA,
// for example `annotators "confusion" { membership = "structured" }`);
// MASLDA_SHAPE_TRACE=1 logs every iteration's CPU seconds (with -v);
// MASLDA_SHAPE_TOPICS is added to every model's topics block, plain LDA's
// included (for example `fresh_every = 4`).
func BenchmarkShapes(b *testing.B) {
	iters, workers := shapeIters, 1
	for name, p := range map[string]*int{"MASLDA_SHAPE_ITERS": &iters, "MASLDA_SHAPE_WORKERS": &workers} {
		if s := os.Getenv(name); s != "" {
			if _, err := fmt.Sscan(s, p); err != nil || *p < 1 {
				b.Fatalf("%s=%q", name, s)
			}
		}
	}
	for _, sh := range shapes() {
		for _, mod := range shapeModels {
			b.Run(fmt.Sprintf("shape=%s/model=%s", sh.name, mod.name), func(b *testing.B) {
				cc, err := shapeCorpus(sh)
				if err != nil {
					b.Fatal(err)
				}
				corpus := cc.cls
				if strings.Contains(mod.src, "ma-sldar") {
					corpus = cc.reg
				}
				src := mod.src
				if extra := os.Getenv("MASLDA_SHAPE_CONFIG"); extra != "" && mod.src != "" {
					src += extra + "\n"
				}
				src += fmt.Sprintf("seed = 1\nworkers = %d\ntopics {\n  k = %d\n  alpha = 0.1\n  tau = 0.1\n%s}\ninference \"batch\" {\n  max_iters = %d\n  min_iters = %d\n  tol = 0\n}\n", workers, sh.spec.K, os.Getenv("MASLDA_SHAPE_TOPICS"), iters, iters)
				cfg, err := models.ParseConfig([]byte(src), mod.name+".hcl")
				if err != nil {
					b.Fatal(err)
				}
				var runs, first3, late, sched, perIter, n, truth, wall float64
				for b.Loop() {
					w0 := time.Now()
					t0 := processCPU()
					run, err := models.Build(cfg, nil, corpus)
					if err != nil {
						b.Fatal(err)
					}
					at := []float64{processCPU()}
					if _, err := run.Fit(context.Background(), func(framework.Progress) error {
						at = append(at, processCPU())
						return nil
					}); err != nil {
						b.Fatal(err)
					}
					wall += time.Since(w0).Seconds()
					it := len(at) - 1
					if os.Getenv("MASLDA_SHAPE_TRACE") != "" {
						for i := 1; i <= it; i++ {
							b.Logf("iteration %d: %.4f cpu-s", i, at[i]-at[i-1])
						}
					}
					runs += at[it] - t0
					first3 += at[min(3, it)] - t0
					perIter += (at[it] - at[0]) / float64(it)
					l := min(5, it)
					late += (at[it] - at[it-l]) / float64(l)
					l = min(iters, it)
					sched += (at[it] - at[it-l]) / float64(l)
					n = float64(it)
					if mod.name != "lda" {
						truth = shapeTruth(run, cc)
					}
				}
				k := float64(b.N)
				b.ReportMetric(runs/k, "run-cpu-s")
				b.ReportMetric(first3/k, "first3-cpu-s")
				b.ReportMetric(perIter/k, "iter-cpu-s")
				b.ReportMetric(late/k, "late-cpu-s")
				b.ReportMetric(sched/k, "sched-cpu-s")
				b.ReportMetric(n, "iters")
				b.ReportMetric(wall/k, "wall-s")
				if mod.name != "lda" {
					b.ReportMetric(truth, "truth")
				}
				if mod.name == "lda" {
					var uniq, tok, ans float64
					for d, doc := range cc.cls.Docs {
						uniq += float64(len(doc.Words))
						tok += doc.N
						ans += float64(len(cc.cls.Answers.ByDoc[d]))
					}
					D := float64(len(cc.cls.Docs))
					b.ReportMetric(uniq/D, "uniq/doc")
					b.ReportMetric(tok/uniq, "tok/uniq")
					b.ReportMetric(ans/D, "ans/doc")
				}
			})
		}
	}
}

// shapeTruth is a trained run's truth accuracy (categorical targets) or
// truth R² (numeric targets) on its shape's training documents.
func shapeTruth(run *models.Run, cc shapeCorpora) float64 {
	if _, ok := run.Model.Target(0).(*framework.Gaussian); ok {
		mean := 0.0
		for _, x := range cc.x {
			mean += x
		}
		mean /= float64(len(cc.x))
		res, tot := 0.0, 0.0
		for d, x := range cc.x {
			m := run.Model.Target(d).(*framework.Gaussian).Mean
			res += (x - m) * (x - m)
			tot += (x - mean) * (x - mean)
		}
		return 1 - res/tot
	}
	return runAccuracy(run, cc.truth)
}

// TestDumpShapes writes every shape of the matrix for the authors' C++
// (docs/performance.md, "Every corpus shape"): with MASLDA_SHAPE_DUMP=DIR,
// DIR/SHAPE/docs.ldac (LDA-C), answers.txt (one row per document, one
// column per annotator: the class index or −1) and labels.txt (the true
// class per line).
func TestDumpShapes(t *testing.T) {
	dir := os.Getenv("MASLDA_SHAPE_DUMP")
	if dir == "" {
		t.Skip("set MASLDA_SHAPE_DUMP=DIR to write the shapes for the C++")
	}
	for _, sh := range shapes() {
		cc, err := shapeCorpus(sh)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, sh.name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		var docs, ans, lab strings.Builder
		R := len(cc.cls.Answers.Annotators)
		row := make([]string, R)
		for d, doc := range cc.cls.Docs {
			docs.WriteString(strconv.Itoa(len(doc.Words)))
			for j, w := range doc.Words {
				fmt.Fprintf(&docs, " %d:%d", w, int(doc.Counts[j]))
			}
			docs.WriteByte('\n')
			for r := range row {
				row[r] = "-1"
			}
			for _, a := range cc.cls.Answers.ByDoc[d] {
				row[a.Annotator] = strconv.Itoa(int(a.Class))
			}
			ans.WriteString(strings.Join(row, " ") + "\n")
			lab.WriteString(strconv.Itoa(cc.truth[d]) + "\n")
		}
		for name, s := range map[string]string{"docs.ldac": docs.String(), "answers.txt": ans.String(), "labels.txt": lab.String()} {
			if err := os.WriteFile(filepath.Join(out, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
