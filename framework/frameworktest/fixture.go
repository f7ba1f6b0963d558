package frameworktest

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/topics"
)

// Kinds of target the kit knows (the framework's two).
const (
	KindCategorical = "categorical" // *framework.Categorical
	KindGaussian    = "gaussian"    // *framework.Gaussian
)

// kindOf names a target's kind, or fails.
func kindOf(t TB, tg framework.Target) string {
	t.Helper()
	switch tg.(type) {
	case *framework.Categorical:
		return KindCategorical
	case *framework.Gaussian:
		return KindGaussian
	}
	t.Fatalf("target %T: the kit knows *framework.Categorical and *framework.Gaussian", tg)
	return ""
}

// fixture is the small setup of the unit checks: a corpus of a dozen
// documents (one of a single token, one empty) with answers of 4
// annotators (0 to 3 per document, one document without any), and one
// local state per document with random γ, φ and q(target).
type fixture struct {
	kind   string
	tt     *TargetType // the target type of KindCustom (nil otherwise)
	K, C   int
	corpus *framework.Corpus
	setup  *framework.Setup
	docs   []*framework.DocState
	rng    *rand.Rand
}

const (
	fixtureDocs    = 12
	fixtureV       = 15
	fixtureWorkers = 4
)

// newFixture draws the fixture; target returns a fresh q(target) of the
// kind under test.
func newFixture(t TB, kind string, tt *TargetType, K, C int, seed uint64, target func() framework.Target) *fixture {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x6b6974))
	f := &fixture{kind: kind, tt: tt, K: K, C: C, rng: rng}
	c := &framework.Corpus{V: fixtureV, Docs: make([]framework.Doc, fixtureDocs)}
	workers := make([]string, fixtureWorkers)
	for r := range workers {
		workers[r] = "w" + strconv.Itoa(r)
	}
	var classes []string
	if kind == KindCategorical || kind == KindCustom && C > 0 {
		classes = make([]string, C)
		for l := range classes {
			classes[l] = "c" + strconv.Itoa(l)
		}
	}
	byDoc := make([][]framework.Answer, fixtureDocs)
	for i := range c.Docs {
		d := &c.Docs[i]
		d.ID = "d" + strconv.Itoa(i)
		L := 1 + rng.IntN(6)
		switch i {
		case 0:
			L = 1 // one token: the largest supervision terms (1/N_d)
		case fixtureDocs - 1:
			L = 0 // empty: φ̄ = 0
		}
		for _, w := range rng.Perm(fixtureV)[:L] {
			n := float64(1 + rng.IntN(4))
			if i == 0 {
				n = 1
			}
			d.Words = append(d.Words, int32(w))
			d.Counts = append(d.Counts, n)
			d.N += n
		}
		na := rng.IntN(4)
		switch i {
		case 0:
			na = 3
		case 1:
			na = 0
		}
		for _, r := range rng.Perm(fixtureWorkers)[:na] {
			a := framework.Answer{Annotator: int32(r)}
			if kind == KindCustom {
				a = tt.Answer(rng)
				a.Annotator = int32(r)
			} else if kind == KindCategorical {
				a.Class = int32(rng.IntN(C))
				a.Value = float64(a.Class)
			} else {
				a.Value = 2 * rng.NormFloat64()
			}
			byDoc[i] = append(byDoc[i], a)
		}
	}
	c.Answers = &framework.Answers{Annotators: workers, Classes: classes, ByDoc: byDoc}
	if err := c.Validate(); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	f.corpus = c
	f.setup = &framework.Setup{K: K, V: fixtureV, Classes: classes, Annotators: workers, Corpus: c, Rand: rand.New(rand.NewPCG(seed, 1))}
	for i := range c.Docs {
		d := &c.Docs[i]
		ds := framework.NewDocState(K, d.Len())
		ds.Bind(i, d, byDoc[i])
		for k := range ds.Gamma {
			ds.Gamma[k] = 0.2 + 3*rng.Float64()
		}
		topics.ElogDirichlet(ds.ElogTheta, ds.Gamma)
		for j := range d.Words {
			randomRow(ds.PhiRow(j), rng)
		}
		ds.UpdatePhiBar()
		ds.Target = target()
		f.randomTarget(ds.Target, rng)
		f.docs = append(f.docs, ds)
	}
	return f
}

// randomRow draws a φ row from Dirichlet(0.5), each entry rounded to
// float32 (so that components storing φ as float32 see the same values).
func randomRow(row []float64, rng *rand.Rand) {
	synth.Dirichlet(row, 0.5, rng)
	for k, p := range row {
		row[k] = float64(float32(max(p, 1e-6)))
	}
}

// randomTarget sets random natural parameters and finalises.
func (f *fixture) randomTarget(tg framework.Target, rng *rand.Rand) {
	if f.tt != nil {
		f.tt.set(tg, f.tt.Random(rng))
		return
	}
	tg.Reset()
	switch t := tg.(type) {
	case *framework.Categorical:
		for l := range t.Log {
			t.Log[l] = 1.5 * rng.NormFloat64()
		}
	case *framework.Gaussian:
		t.Prec = 0.5 + 2*rng.Float64()
		t.PrecMean = t.Prec * rng.NormFloat64()
	}
	tg.Finalize()
}

// newTarget is a fresh target of a kind.
func newTarget(kind string, C int) framework.Target {
	if kind == KindCategorical {
		return framework.NewCategorical(C)
	}
	return &framework.Gaussian{}
}

// half splits the fixture's documents: the first half, the second.
func (f *fixture) half() (a, b []*framework.DocState) {
	n := len(f.docs) / 2
	return f.docs[:n], f.docs[n:]
}

// accumulate returns g's statistics of docs.
func accumulate(g framework.Global, docs []*framework.DocState) framework.Stats {
	s := g.NewStats()
	for _, d := range docs {
		g.Accumulate(s, d)
	}
	return s
}

func checkKind(kind string) error {
	if kind != KindCategorical && kind != KindGaussian {
		return fmt.Errorf("frameworktest: target kind %q, want %q or %q", kind, KindCategorical, KindGaussian)
	}
	return nil
}
