package models

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// crossCheckGolden is testdata/crosscheck/golden.json, written by the
// independent numpy implementation testdata/crosscheck/lda_numpy.py.
type crossCheckGolden struct {
	V          int     `json:"V"`
	K          int     `json:"K"`
	Alpha      float64 `json:"alpha"`
	Tau        float64 `json:"tau"`
	LocalIters int     `json:"local_iters"`
	Iterations int     `json:"iterations"`
	Docs       []struct {
		Words  []int32   `json:"words"`
		Counts []float64 `json:"counts"`
	} `json:"docs"`
	Zeta0 [][]float64 `json:"zeta0"` // K×V
	ELBO  []float64   `json:"elbo"`  // after each iteration's update
	Gamma [][]float64 `json:"gamma"` // D×K, the last E-step's γ
	Zeta  [][]float64 `json:"zeta"`  // K×V, after the last update
}

func loadCrossCheck(t *testing.T) *crossCheckGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crosscheck", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := new(crossCheckGolden)
	if err := json.Unmarshal(b, g); err != nil {
		t.Fatal(err)
	}
	return g
}

// crossCheckRun replays the golden run through topics.Layer and Model with
// the prior α shifted by dAlpha, returning the ELBO trace, the final γ (D×K)
// and the final ζ (K×V).
func crossCheckRun(t *testing.T, g *crossCheckGolden, dAlpha float64) (elbos []float64, gamma, zeta [][]float64) {
	t.Helper()
	c := &framework.Corpus{V: g.V, Docs: make([]framework.Doc, len(g.Docs))}
	for i, d := range g.Docs {
		doc := framework.Doc{ID: strconv.Itoa(i)}
		if len(d.Words) > 0 { // empty documents keep nil slices
			doc.Words, doc.Counts = d.Words, d.Counts
		}
		for j, n := range doc.Counts {
			if j > 0 && doc.Words[j] <= doc.Words[j-1] {
				t.Fatalf("document %d: words not strictly ascending", i)
			}
			doc.N += n
		}
		c.Docs[i] = doc
	}

	cfg := topics.Defaults()
	cfg.K = g.K
	cfg.Alpha = g.Alpha + dAlpha
	cfg.Tau = g.Tau
	cfg.LocalIters = g.LocalIters
	cfg.LocalTol = 0 // exactly LocalIters sweeps
	cfg.LocalInit = "fresh"
	cfg.FreshAccel = "none" // numpy sweeps plainly
	l, err := topics.New(cfg, g.V)
	if err != nil {
		t.Fatal(err)
	}
	K := g.K
	for k, row := range g.Zeta0 {
		for v, z := range row {
			l.Zeta[v*K+k] = z // word-major
		}
	}
	l.Refresh()

	m, err := NewModel(l, nil, nil, c, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := optim.Batch{MaxIters: g.Iterations, MinIters: g.Iterations, Tol: 0}
	obs := func(p framework.Progress) error {
		elbos = append(elbos, p.ELBO)
		return nil
	}
	if _, err := b.Fit(context.Background(), m, nil, obs); err != nil {
		t.Fatal(err)
	}
	for d := range c.Docs {
		gamma = append(gamma, append([]float64(nil), m.Gamma(d)...))
	}
	zeta = make([][]float64, K)
	for k := range zeta {
		zeta[k] = make([]float64, g.V)
		for v := range zeta[k] {
			zeta[k][v] = l.Zeta[v*K+k]
		}
	}
	return elbos, gamma, zeta
}

// maxRelDiff is max |a−b| / max(|b|, floor) over matching elements.
func maxRelDiff(a, b []float64, floor float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i])/max(math.Abs(b[i]), floor))
	}
	return m
}

func flatten(x [][]float64) []float64 {
	var out []float64
	for _, r := range x {
		out = append(out, r...)
	}
	return out
}

// TestCrossCheckNumpy compares the batch LDA run of topics.Layer + Model with
// an independent numpy implementation of MODEL.md §1 and §4 on the same
// corpus, initial topics and schedule: the ELBO after every iteration, the
// final γ and the final ζ must agree to rounding.
func TestCrossCheckNumpy(t *testing.T) {
	t.Parallel()
	g := loadCrossCheck(t)
	elbos, gamma, zeta := crossCheckRun(t, g, 0)

	const (
		elboTol = 1e-9 // relative
		parTol  = 1e-8 // relative to magnitude (γ ≥ α, ζ ≥ τ, so never tiny)
	)
	if len(elbos) != g.Iterations {
		t.Fatalf("observed %d ELBOs, want %d", len(elbos), g.Iterations)
	}
	if diff := cmp.Diff(g.ELBO, elbos, cmpopts.EquateApprox(elboTol, 0)); diff != "" {
		t.Errorf("ELBO trace differs from numpy (-numpy +go):\n%s", diff)
	}
	if diff := cmp.Diff(g.Gamma, gamma, cmpopts.EquateApprox(parTol, parTol)); diff != "" {
		t.Errorf("final γ differs from numpy (-numpy +go):\n%s", diff)
	}
	if diff := cmp.Diff(g.Zeta, zeta, cmpopts.EquateApprox(parTol, parTol)); diff != "" {
		t.Errorf("final ζ differs from numpy (-numpy +go):\n%s", diff)
	}
	t.Logf("max relative ELBO difference %.3g; max relative γ difference %.3g; max relative ζ difference %.3g",
		maxRelDiff(elbos, g.ELBO, 0), maxRelDiff(flatten(gamma), flatten(g.Gamma), 1), maxRelDiff(flatten(zeta), flatten(g.Zeta), 1))

	// The tolerances must be tight enough to see a wrong model: a shift of
	// α by 1e-6 has to be detected.
	pe, pg, _ := crossCheckRun(t, g, 1e-6)
	if cmp.Equal(g.ELBO, pe, cmpopts.EquateApprox(elboTol, 0)) || cmp.Equal(g.Gamma, pg, cmpopts.EquateApprox(parTol, parTol)) {
		t.Errorf("α + 1e-6 still matches the numpy run: the tolerances are too loose to detect a wrong model")
	}
}
