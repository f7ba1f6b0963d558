package models_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/plugins/std"
)

// The label-only Dawid–Skene benchmark (issue 16, docs/performance.md):
// 8,000 tasks, 2 classes, 25,000 answers from 100 annotators of accuracy
// 0.55–0.95, as `train --answers` without `--docs` builds them (documents
// without words, V = 1).
const (
	dsTasks   = 8000
	dsClasses = 2
	dsWorkers = 100
	dsAnswers = 25000
)

func dsCorpus() *framework.Corpus {
	rng := rand.New(rand.NewPCG(16, 1))
	acc := make([]float64, dsWorkers)
	workers := make([]string, dsWorkers)
	for r := range acc {
		acc[r] = 0.55 + 0.4*rng.Float64()
		workers[r] = "w" + strconv.Itoa(r)
	}
	truth := make([]int, dsTasks)
	for d := range truth {
		truth[d] = rng.IntN(dsClasses)
	}
	byDoc := make([][]framework.Answer, dsTasks)
	for i := 0; i < dsAnswers; i++ {
		d := i % dsTasks // every task answered, 3 or 4 answers each
		r := rng.IntN(dsWorkers)
		y := truth[d]
		if rng.Float64() >= acc[r] {
			y = (y + 1 + rng.IntN(dsClasses-1)) % dsClasses
		}
		byDoc[d] = append(byDoc[d], framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)})
	}
	docs := make([]framework.Doc, dsTasks)
	for d := range docs {
		docs[d].ID = strconv.Itoa(d)
	}
	return &framework.Corpus{Docs: docs, V: 1, Answers: &framework.Answers{Annotators: workers, Classes: []string{"0", "1"}, ByDoc: byDoc}}
}

// inlineDS is a minimal Dawid–Skene EM on flat arrays: answers sorted by
// task (off[d]..off[d+1]), q[d*C+c] the posteriors, logPi[(r*C+c)*C+y]
// and logPrior[c] the point estimates.
type inlineDS struct {
	C, R             int
	off              []int32
	worker, class    []int32
	q, logPi, counts []float64
	logPrior, prior  []float64
}

func newInlineDS(c *framework.Corpus) *inlineDS {
	a := c.Answers
	m := &inlineDS{C: len(a.Classes), R: len(a.Annotators), off: make([]int32, len(a.ByDoc)+1)}
	for d, as := range a.ByDoc {
		for _, x := range as {
			m.worker = append(m.worker, x.Annotator)
			m.class = append(m.class, x.Class)
		}
		m.off[d+1] = int32(len(m.worker))
	}
	C, R, D := m.C, m.R, len(a.ByDoc)
	m.q = make([]float64, D*C)
	m.logPi = make([]float64, R*C*C)
	m.counts = make([]float64, R*C*C)
	m.logPrior = make([]float64, C)
	m.prior = make([]float64, C)
	// Start from the majority vote (as the preset's init = "majority").
	for d := 0; d < D; d++ {
		q := m.q[d*C : (d+1)*C]
		for i := m.off[d]; i < m.off[d+1]; i++ {
			q[m.class[i]]++
		}
		s := 0.0
		for _, x := range q {
			s += x
		}
		for c := range q {
			q[c] /= s
		}
	}
	m.mstep()
	return m
}

// mstep: one pass over the answers for the counts, then normalise.
func (m *inlineDS) mstep() {
	C := m.C
	clear(m.counts)
	clear(m.prior)
	D := len(m.off) - 1
	for d := 0; d < D; d++ {
		q := m.q[d*C : (d+1)*C]
		for c, p := range q {
			m.prior[c] += p
		}
		for i := m.off[d]; i < m.off[d+1]; i++ {
			base := int(m.worker[i]) * C * C
			y := int(m.class[i])
			for c, p := range q {
				m.counts[base+c*C+y] += p
			}
		}
	}
	for rc := 0; rc < m.R*C; rc++ {
		row := m.counts[rc*C : (rc+1)*C]
		s := 0.0
		for _, x := range row {
			s += x
		}
		for y, x := range row {
			m.logPi[rc*C+y] = math.Log(x / s)
		}
	}
	for c, x := range m.prior {
		m.logPrior[c] = math.Log(x / float64(D))
	}
}

// estep: one pass over the answers; returns the log-likelihood.
func (m *inlineDS) estep() float64 {
	C := m.C
	D := len(m.off) - 1
	ll := 0.0
	for d := 0; d < D; d++ {
		q := m.q[d*C : (d+1)*C]
		copy(q, m.logPrior)
		for i := m.off[d]; i < m.off[d+1]; i++ {
			base := int(m.worker[i])*C*C + int(m.class[i])
			for c := range q {
				q[c] += m.logPi[base+c*C]
			}
		}
		mx := q[0]
		for _, x := range q {
			mx = max(mx, x)
		}
		s := 0.0
		for c, x := range q {
			q[c] = math.Exp(x - mx)
			s += q[c]
		}
		for c := range q {
			q[c] /= s
		}
		ll += mx + math.Log(s)
	}
	return ll
}

// BenchmarkDawidSkene is one EM iteration (E-step over every task, then
// the M-step) of the `dawid-skene` preset on answers alone (workers = 1)
// against inlineDS on the same answers. docs/performance.md reports the
// ratio:
//
//	go test ./models -run '^$' -bench DawidSkene -count 5
func BenchmarkDawidSkene(b *testing.B) {
	c := dsCorpus()
	b.Run("maslda", func(b *testing.B) {
		cfg, err := models.ParseConfig([]byte("model = \"dawid-skene\"\nworkers = 1\n"), "ds.hcl")
		if err != nil {
			b.Fatal(err)
		}
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			b.Fatal(err)
		}
		m := run.Model
		all := make([]int, len(c.Docs))
		for d := range all {
			all[d] = d
		}
		ctx := context.Background()
		it := 0
		for b.Loop() {
			it++
			s, err := m.EStep(ctx, all)
			if err != nil {
				b.Fatal(err)
			}
			st := framework.BatchStep(it)
			if err := m.Update(ctx, s, st); err != nil {
				b.Fatal(err)
			}
			_ = m.ELBO(s, st)
		}
	})
	b.Run("inline", func(b *testing.B) {
		m := newInlineDS(c)
		for b.Loop() {
			_ = m.estep()
			m.mstep()
		}
	})
}
