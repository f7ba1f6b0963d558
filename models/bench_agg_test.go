package models_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"gonum.org/v1/gonum/mathext"
)

// aggCrowds are the simulated crowds of TestExploreAggregators (issue 16,
// docs/results.md): synth.CrowdBase's truth (1,500 tasks, 4 classes), 5
// answers a task from each kind of synth.AggregatorAnswers, seed 1, as
// documents without words (train --answers without --docs).
var aggCrowds = sync.OnceValues(func() (map[string]*framework.Corpus, error) {
	cr, err := aggTruth()
	if err != nil {
		return nil, err
	}
	out := map[string]*framework.Corpus{}
	for _, kind := range synth.AggregatorKinds {
		a, _, err := synth.AggregatorAnswers(kind, cr.Truth, cr.Train.Answers.Classes, 5, rand.New(rand.NewPCG(1, 17)))
		if err != nil {
			return nil, err
		}
		c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, len(a.ByDoc)), Answers: a}
		for d := range c.Docs {
			c.Docs[d].ID = strconv.Itoa(d)
		}
		out[kind] = c
	}
	return out, nil
})

// aggTruth is the crowd problem behind aggCrowds (its Truth).
var aggTruth = sync.OnceValues(func() (*synth.Crowd, error) {
	return synth.NewCrowd(synth.CrowdBase(), rand.New(rand.NewPCG(1, 16)))
})

// BenchmarkAggregatorFit is one whole fit of each label aggregator preset
// (Build and Fit, workers = 1) on each simulated crowd; iters/op is the
// schedule's iterations.
//
//	go test ./models -run '^$' -bench AggregatorFit -benchtime 5x
func BenchmarkAggregatorFit(b *testing.B) {
	crowds, err := aggCrowds()
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range synth.AggregatorKinds {
		for _, m := range []string{"majority-vote", "wawa", "dawid-skene", "dawid-skene(bayes)", "one-coin", "mace", "glad"} {
			b.Run(fmt.Sprintf("crowd=%s/model=%s", kind, m), func(b *testing.B) {
				cfg, err := models.ParseConfig([]byte("model = \""+m+"\"\nworkers = 1\n"), m+".hcl")
				if err != nil {
					b.Fatal(err)
				}
				iters := 0
				for b.Loop() {
					run, err := models.Build(cfg, nil, crowds[kind])
					if err != nil {
						b.Fatal(err)
					}
					res, err := run.Fit(context.Background(), nil)
					if err != nil {
						b.Fatal(err)
					}
					iters += res.Iters
				}
				b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
			})
		}
	}
}

// inlineGLAD is a minimal EM of GLAD's model (Whitehill et al. 2009, the
// MAP objective of annotators/glad: a_r ~ N(1, 1), b_d = log β_d ~ N(1,
// 1), an answer right with probability σ(a_r e^{b_d}), each wrong class
// with the rest over C − 1; a point-estimated class prior), written on
// flat arrays as block coordinate ascent of the one objective
//
//	J = Σ_d [log Σ_l π_l exp(M_l(b_d)) + log N(b_d)] + Σ_r log N(a_r),
//
// one block per pass: λ_d given (a, b, π) with J's value (the E-step),
// then π, one Newton step per b_d (a safeguarded 1-D step) and one
// Newton step per a_r (concave given b): a generalised EM, stopped as
// batch EM stops (relative change of J ≤ 1e-5, at least 2 iterations, at
// most 100). It starts as the glad plug-in does, from a one-coin fit (50
// iterations) with b_d = μ_b. The floor a GLAD fit is measured against.
type inlineGLAD struct {
	C, R, D       int
	off           []int32 // task d's answers are [off[d], off[d+1])
	ann, cls      []int32 // by task
	byR           []int32 // answers by annotator: byR[rOff[r]:rOff[r+1]] index the arrays above
	rOff          []int32
	taskOf        []int32
	a, b, pi, lam []float64 // abilities, log inverse difficulties, class prior, D×C posteriors
	pRight, lsBuf []float64
	logC1         float64
	iters         int
	objective     float64
}

func newInlineGLAD(c *framework.Corpus) *inlineGLAD {
	as := c.Answers
	g := &inlineGLAD{C: len(as.Classes), R: len(as.Annotators), D: len(as.ByDoc)}
	g.off = make([]int32, g.D+1)
	for d, xs := range as.ByDoc {
		for _, x := range xs {
			g.ann = append(g.ann, x.Annotator)
			g.cls = append(g.cls, x.Class)
			g.taskOf = append(g.taskOf, int32(d))
		}
		g.off[d+1] = int32(len(g.ann))
	}
	g.rOff = make([]int32, g.R+1)
	for _, r := range g.ann {
		g.rOff[r+1]++
	}
	for r := range g.R {
		g.rOff[r+1] += g.rOff[r]
	}
	next := append([]int32(nil), g.rOff[:g.R]...)
	g.byR = make([]int32, len(g.ann))
	for j, r := range g.ann {
		g.byR[next[r]] = int32(j)
		next[r]++
	}
	g.a, g.b, g.pi = make([]float64, g.R), make([]float64, g.D), make([]float64, g.C)
	g.lam, g.pRight = make([]float64, g.D*g.C), make([]float64, len(g.ann))
	g.logC1 = math.Log(float64(g.C - 1))
	return g
}

// start is the one-coin start of the glad plug-in: accuracies from 50
// EM iterations of one-coin (flat class prior, Beta(2, 2)), a_r =
// logit(acc_r)/e^{μ_b}; b_d = μ_b; π uniform.
func (g *inlineGLAD) start() {
	acc := make([]float64, g.R)
	for r := range acc {
		acc[r] = 0.7
	}
	right, wrong, cor, n, lp := make([]float64, g.R), make([]float64, g.R), make([]float64, g.R), make([]float64, g.R), make([]float64, g.C)
	for range 50 {
		for r := range acc {
			right[r], wrong[r] = math.Log(acc[r]), math.Log((1-acc[r])/float64(g.C-1))
		}
		clear(cor)
		clear(n)
		for d := range g.D {
			clear(lp)
			for j := g.off[d]; j < g.off[d+1]; j++ {
				r := g.ann[j]
				for l := range lp {
					if int32(l) == g.cls[j] {
						lp[l] += right[r]
					} else {
						lp[l] += wrong[r]
					}
				}
			}
			mx := math.Inf(-1)
			for _, x := range lp {
				mx = math.Max(mx, x)
			}
			z := 0.0
			for l := range lp {
				lp[l] = math.Exp(lp[l] - mx)
				z += lp[l]
			}
			for j := g.off[d]; j < g.off[d+1]; j++ {
				cor[g.ann[j]] += lp[g.cls[j]] / z
				n[g.ann[j]]++
			}
		}
		for r := range acc {
			acc[r] = (cor[r] + 1) / (n[r] + 2)
		}
	}
	for r, x := range acc {
		g.a[r] = math.Log(x/(1-x)) / math.E
	}
	for d := range g.b {
		g.b[d] = 1
	}
	for l := range g.pi {
		g.pi[l] = 1 / float64(g.C)
	}
}

// logSig returns log σ(t), log σ(−t) and σ(t).
func logSig(t float64) (ls, lsn, s float64) {
	e := math.Exp(-math.Abs(t))
	l := math.Log1p(e)
	if t >= 0 {
		return -l, -t - l, 1 / (1 + e)
	}
	return t - l, -l, e / (1 + e)
}

// estep sets λ and the probabilities that each answer is right, and
// returns J.
func (g *inlineGLAD) estep() float64 {
	C := g.C
	lp := make([]float64, C)
	logPi := make([]float64, C)
	for l, p := range g.pi {
		logPi[l] = math.Log(p)
	}
	J := 0.0
	for d := range g.D {
		copy(lp, logPi)
		eb := math.Exp(g.b[d])
		for j := g.off[d]; j < g.off[d+1]; j++ {
			ls, lsn, _ := logSig(g.a[g.ann[j]] * eb)
			lsn -= g.logC1
			for l := range lp {
				if int32(l) == g.cls[j] {
					lp[l] += ls
				} else {
					lp[l] += lsn
				}
			}
		}
		mx := math.Inf(-1)
		for _, x := range lp {
			mx = math.Max(mx, x)
		}
		z := 0.0
		lam := g.lam[d*C : (d+1)*C]
		for l, x := range lp {
			lam[l] = math.Exp(x - mx)
			z += lam[l]
		}
		for l := range lam {
			lam[l] /= z
		}
		for j := g.off[d]; j < g.off[d+1]; j++ {
			g.pRight[j] = lam[g.cls[j]]
		}
		zb := g.b[d] - 1
		J += mx + math.Log(z) - 0.5*zb*zb
	}
	for _, x := range g.a {
		za := x - 1
		J -= 0.5 * za * za
	}
	return J
}

// mstep updates π, then each b_d (one safeguarded Newton step), then
// each a_r (one Newton step).
func (g *inlineGLAD) mstep() {
	clear(g.pi)
	for d := range g.D {
		for l := range g.C {
			g.pi[l] += g.lam[d*g.C+l]
		}
	}
	for l := range g.pi {
		g.pi[l] /= float64(g.D)
	}
	for d := range g.D {
		eb := math.Exp(g.b[d])
		d1, d2 := -(g.b[d] - 1), -1.0
		for j := g.off[d]; j < g.off[d+1]; j++ {
			t := g.a[g.ann[j]] * eb
			_, _, s := logSig(t)
			gr := t * (g.pRight[j] - s)
			d1 += gr
			d2 += gr - t*t*s*(1-s)
		}
		step := 2 * math.Copysign(1, d1)
		if d2 < 0 {
			step = math.Max(-2, math.Min(2, -d1/d2))
		}
		g.b[d] += step
	}
	for r := range g.R {
		d1, d2 := -(g.a[r] - 1), -1.0
		for _, j := range g.byR[g.rOff[r]:g.rOff[r+1]] {
			eb := math.Exp(g.b[g.taskOf[j]])
			_, _, s := logSig(g.a[r] * eb)
			d1 += eb * (g.pRight[j] - s)
			d2 -= eb * eb * s * (1 - s)
		}
		g.a[r] -= d1 / d2
	}
}

// fit runs the EM from the start to convergence.
func (g *inlineGLAD) fit() {
	g.start()
	prev := math.Inf(-1)
	for g.iters = 1; g.iters <= 100; g.iters++ {
		J := g.estep()
		g.objective = J
		if g.iters >= 2 && math.Abs(J-prev) <= 1e-5*math.Abs(prev) {
			return
		}
		prev = J
		g.mstep()
	}
}

// accuracy is the share of tasks whose argmax λ_d is the truth.
func (g *inlineGLAD) accuracy(truth []int) float64 {
	right := 0
	for d, tr := range truth {
		lam := g.lam[d*g.C : (d+1)*g.C]
		best := 0
		for l := range lam {
			if lam[l] > lam[best] {
				best = l
			}
		}
		if best == tr {
			right++
		}
	}
	return float64(right) / float64(len(truth))
}

// BenchmarkGLAD is one whole GLAD fit (the `glad` preset, workers = 1,
// Build and Fit) against inlineGLAD on the same answers, on each
// simulated crowd of aggCrowds; acc is the truth accuracy each reaches and
// iters/op the iterations:
//
//	go test ./models -run '^$' -bench GLAD -count 3
func BenchmarkGLAD(b *testing.B) {
	benchPresetVsInline(b, "glad", func(c *framework.Corpus) (int, func([]int) float64) {
		g := newInlineGLAD(c)
		g.fit()
		return g.iters, g.accuracy
	})
}

// inlineOneCoin is a minimal variational EM of the one-coin model of
// annotators/onecoin with the preset's point-estimated class prior: q(a_r)
// = Beta(A_r, B_r) with prior Beta(2, 1), started at the plug-in's start
// (A = 2 + 10·0.7, B = 1 + 10·0.3), π uniform; per iteration one pass over
// the answers for λ (the E-step, whose log normalisers give the bound
// minus the KL terms) and one for the counts; stopped as batch EM stops
// (relative change 1e-5, at least 2 iterations, at most 100).
type inlineOneCoin struct {
	g          *inlineGLAD // the answers' layout
	A, B, pi   []float64
	right, wrg []float64
	iters      int
}

func newInlineOneCoin(c *framework.Corpus) *inlineOneCoin {
	g := newInlineGLAD(c)
	o := &inlineOneCoin{g: g, A: make([]float64, g.R), B: make([]float64, g.R), pi: make([]float64, g.C), right: make([]float64, g.R), wrg: make([]float64, g.R)}
	for r := range o.A {
		o.A[r], o.B[r] = 2+10*0.7, 1+10*0.3
	}
	for l := range o.pi {
		o.pi[l] = 1 / float64(g.C)
	}
	return o
}

func (o *inlineOneCoin) fit() {
	g := o.g
	C := g.C
	lp, logPi := make([]float64, C), make([]float64, C)
	prev := math.Inf(-1)
	for o.iters = 1; o.iters <= 100; o.iters++ {
		kl := 0.0
		for r := range o.A {
			s := mathext.Digamma(o.A[r] + o.B[r])
			ea, eb := mathext.Digamma(o.A[r])-s, mathext.Digamma(o.B[r])-s
			o.right[r], o.wrg[r] = ea, eb-g.logC1
			// KL(Beta(A, B) ‖ Beta(2, 1)).
			la, _ := math.Lgamma(o.A[r])
			lb, _ := math.Lgamma(o.B[r])
			lab, _ := math.Lgamma(o.A[r] + o.B[r])
			kl += lab - la - lb - math.Log(2) + (o.A[r]-2)*ea + (o.B[r]-1)*eb
		}
		for l, p := range o.pi {
			logPi[l] = math.Log(p)
		}
		J := -kl
		for d := range g.D {
			copy(lp, logPi)
			for j := g.off[d]; j < g.off[d+1]; j++ {
				r := g.ann[j]
				for l := range lp {
					if int32(l) == g.cls[j] {
						lp[l] += o.right[r]
					} else {
						lp[l] += o.wrg[r]
					}
				}
			}
			mx := math.Inf(-1)
			for _, x := range lp {
				mx = math.Max(mx, x)
			}
			z := 0.0
			lam := g.lam[d*C : (d+1)*C]
			for l, x := range lp {
				lam[l] = math.Exp(x - mx)
				z += lam[l]
			}
			for l := range lam {
				lam[l] /= z
			}
			J += mx + math.Log(z)
		}
		if o.iters >= 2 && math.Abs(J-prev) <= 1e-5*math.Abs(prev) {
			return
		}
		prev = J
		for r := range o.A {
			o.A[r], o.B[r] = 2, 1
		}
		clear(o.pi)
		for d := range g.D {
			lam := g.lam[d*C : (d+1)*C]
			for l, p := range lam {
				o.pi[l] += p
			}
			for j := g.off[d]; j < g.off[d+1]; j++ {
				p := lam[g.cls[j]]
				o.A[g.ann[j]] += p
				o.B[g.ann[j]] += 1 - p
			}
		}
		for l := range o.pi {
			o.pi[l] /= float64(g.D)
		}
	}
}

// BenchmarkOneCoin is one whole fit of the `one-coin` preset (workers = 1,
// Build and Fit) against inlineOneCoin on each simulated crowd of
// aggCrowds, as BenchmarkGLAD:
//
//	go test ./models -run '^$' -bench OneCoin -benchtime 20x
func BenchmarkOneCoin(b *testing.B) {
	benchPresetVsInline(b, "one-coin", func(c *framework.Corpus) (int, func([]int) float64) {
		o := newInlineOneCoin(c)
		o.fit()
		return o.iters, o.g.accuracy
	})
}

// runAccuracy is a trained run's truth accuracy (argmax of q(c_d)).
func runAccuracy(run *models.Run, truth []int) float64 {
	right := 0
	for d, tr := range truth {
		if run.Model.Target(d).(*framework.Categorical).Argmax() == tr {
			right++
		}
	}
	return float64(right) / float64(len(truth))
}

// inlineMACE is a minimal EM of MACE (annotators/mace: p(y | l) = θ_r[y =
// l] + (1 − θ_r)ξ_ry, MAP with Beta(2, 2) and Dir(1.01), the spam
// indicators marginalised) with the preset's point-estimated class prior,
// started as the plug-in (θ 0.8, ξ uniform, π uniform): per iteration one
// pass over the answers for λ and J (the E-step) and one for the
// statistics A_ry = Σ λ_{d,y}, B_ry = Σ (1 − λ_{d,y}) over r's answers y,
// then θ, ξ by the plug-in's inner EM rounds (until nothing moves by
// 1e-13, at most 5000 rounds); stopped as batch EM stops.
type inlineMACE struct {
	g                  *inlineGLAD
	theta, xi, pi      []float64
	right, wrong, A, B []float64 // R×C
	iters              int
}

func newInlineMACE(c *framework.Corpus) *inlineMACE {
	g := newInlineGLAD(c)
	R, C := g.R, g.C
	m := &inlineMACE{g: g, theta: make([]float64, R), xi: make([]float64, R*C), pi: make([]float64, C),
		right: make([]float64, R*C), wrong: make([]float64, R*C), A: make([]float64, R*C), B: make([]float64, R*C)}
	for r := range m.theta {
		m.theta[r] = 0.8
	}
	for i := range m.xi {
		m.xi[i] = 1 / float64(C)
	}
	for l := range m.pi {
		m.pi[l] = 1 / float64(C)
	}
	return m
}

func (m *inlineMACE) fit() {
	g := m.g
	C := g.C
	lp, logPi := make([]float64, C), make([]float64, C)
	spam := make([]float64, C)
	prev := math.Inf(-1)
	for m.iters = 1; m.iters <= 100; m.iters++ {
		J := 0.0
		for r, th := range m.theta {
			J += math.Log(th) + math.Log(1-th) // Beta(2, 2), constants left out
			for y := range C {
				x := m.xi[r*C+y]
				m.right[r*C+y] = math.Log(th + (1-th)*x)
				m.wrong[r*C+y] = math.Log((1 - th) * x)
				J += 0.01 * math.Log(x)
			}
		}
		for l, p := range m.pi {
			logPi[l] = math.Log(p)
		}
		for d := range g.D {
			copy(lp, logPi)
			for j := g.off[d]; j < g.off[d+1]; j++ {
				i := int(g.ann[j])*C + int(g.cls[j])
				for l := range lp {
					if int32(l) == g.cls[j] {
						lp[l] += m.right[i]
					} else {
						lp[l] += m.wrong[i]
					}
				}
			}
			mx := math.Inf(-1)
			for _, x := range lp {
				mx = math.Max(mx, x)
			}
			z := 0.0
			lam := g.lam[d*C : (d+1)*C]
			for l, x := range lp {
				lam[l] = math.Exp(x - mx)
				z += lam[l]
			}
			for l := range lam {
				lam[l] /= z
			}
			J += mx + math.Log(z)
		}
		if m.iters >= 2 && math.Abs(J-prev) <= 1e-5*math.Abs(prev) {
			return
		}
		prev = J
		clear(m.A)
		clear(m.B)
		clear(m.pi)
		for d := range g.D {
			lam := g.lam[d*C : (d+1)*C]
			for l, p := range lam {
				m.pi[l] += p
			}
			for j := g.off[d]; j < g.off[d+1]; j++ {
				i := int(g.ann[j])*C + int(g.cls[j])
				p := lam[g.cls[j]]
				m.A[i] += p
				m.B[i] += 1 - p
			}
		}
		for l := range m.pi {
			m.pi[l] /= float64(g.D)
		}
		for r := range m.theta {
			A, B, xi := m.A[r*C:(r+1)*C], m.B[r*C:(r+1)*C], m.xi[r*C:(r+1)*C]
			n := 0.0
			for y := range C {
				n += A[y] + B[y]
			}
			th := m.theta[r]
			for range 5000 {
				comp, tot := 0.0, 0.0
				for y := range C {
					w := th / (th + (1-th)*xi[y])
					comp += A[y] * w
					spam[y] = A[y]*(1-w) + B[y] + 0.01
					tot += spam[y]
				}
				nth := (comp + 1) / (n + 2)
				move := math.Abs(nth - th)
				th = nth
				for y := range xi {
					x := spam[y] / tot
					move = math.Max(move, math.Abs(x-xi[y]))
					xi[y] = x
				}
				if !(move > 1e-13) {
					break
				}
			}
			m.theta[r] = th
		}
	}
}

// BenchmarkMACE is one whole fit of the `mace` preset (workers = 1, Build
// and Fit) against inlineMACE on each simulated crowd of aggCrowds, as
// BenchmarkGLAD:
//
//	go test ./models -run '^$' -bench MACE -benchtime 20x
func BenchmarkMACE(b *testing.B) {
	benchPresetVsInline(b, "mace", func(c *framework.Corpus) (int, func([]int) float64) {
		m := newInlineMACE(c)
		m.fit()
		return m.iters, m.g.accuracy
	})
}

// benchPresetVsInline runs, on each simulated crowd of aggCrowds, one
// whole fit of preset (workers = 1, Build and Fit) as
// "crowd=KIND/impl=maslda" and the inline EM as "crowd=KIND/impl=inline",
// reporting iterations per fit and truth accuracy for both.
func benchPresetVsInline(b *testing.B, preset string, inline func(c *framework.Corpus) (iters int, accuracy func(truth []int) float64)) {
	crowds, err := aggCrowds()
	if err != nil {
		b.Fatal(err)
	}
	cr, err := aggTruth()
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range synth.AggregatorKinds {
		b.Run("crowd="+kind+"/impl=maslda", func(b *testing.B) {
			cfg, err := models.ParseConfig([]byte("model = \""+preset+"\"\nworkers = 1\n"), preset+".hcl")
			if err != nil {
				b.Fatal(err)
			}
			var run *models.Run
			iters := 0
			for b.Loop() {
				if run, err = models.Build(cfg, nil, crowds[kind]); err != nil {
					b.Fatal(err)
				}
				res, err := run.Fit(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				iters += res.Iters
			}
			b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
			b.ReportMetric(runAccuracy(run, cr.Truth), "acc")
		})
		b.Run("crowd="+kind+"/impl=inline", func(b *testing.B) {
			var acc func([]int) float64
			iters := 0
			for b.Loop() {
				n, a := inline(crowds[kind])
				iters += n
				acc = a
			}
			b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
			b.ReportMetric(acc(cr.Truth), "acc")
		})
	}
}
