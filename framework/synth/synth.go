// Package synth generates planted data for tests, benchmarks and the demo:
// corpora drawn from the LDA generative model (MODEL.md §1) with known
// topics and topic proportions. Annotator simulators live with their noise
// models (MODEL.md §7).
package synth

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/stat/distuv"
)

// LDASpec describes a planted LDA corpus.
type LDASpec struct {
	D, V, K    int
	DocLen     float64 // mean tokens per document (Poisson; at least 1)
	Alpha      float64 // Dirichlet concentration of θ_d
	TopicConc  float64 // Dirichlet concentration of β_k over V (small = sparse, distinct topics)
	NamedVocab bool    // give the vocabulary terms "w0", "w1", ...
}

// Planted is the truth behind a generated corpus.
type Planted struct {
	Beta  [][]float64 // K × V topics
	Theta [][]float64 // D × K topic proportions
	ZBar  [][]float64 // D × K empirical topic frequencies z̄_d
}

// Dirichlet fills dst with a draw from Dir(a·1).
func Dirichlet(dst []float64, a float64, rng *rand.Rand) {
	g := distuv.Gamma{Alpha: a, Beta: 1, Src: rng}
	s := 0.0
	for i := range dst {
		dst[i] = g.Rand()
		s += dst[i]
	}
	if s == 0 || math.IsNaN(s) { // tiny a can underflow every draw
		for i := range dst {
			dst[i] = 0
		}
		dst[rng.IntN(len(dst))] = 1
		return
	}
	for i := range dst {
		dst[i] /= s
	}
}

// Categorical draws an index from probabilities p (summing to 1).
func Categorical(p []float64, rng *rand.Rand) int {
	u := rng.Float64()
	c := 0.0
	for i, x := range p {
		c += x
		if u < c {
			return i
		}
	}
	return len(p) - 1
}

// LDA draws a corpus from spec.
func LDA(spec LDASpec, rng *rand.Rand) (*framework.Corpus, *Planted, error) {
	if spec.D < 1 || spec.V < 1 || spec.K < 1 || !(spec.DocLen >= 1) || !(spec.Alpha > 0) || !(spec.TopicConc > 0) {
		return nil, nil, fmt.Errorf("%w: synth.LDASpec %+v", framework.ErrBadInput, spec)
	}
	pl := &Planted{Beta: make([][]float64, spec.K), Theta: make([][]float64, spec.D), ZBar: make([][]float64, spec.D)}
	for k := range pl.Beta {
		pl.Beta[k] = make([]float64, spec.V)
		Dirichlet(pl.Beta[k], spec.TopicConc, rng)
	}
	// Cumulative tables for fast word sampling.
	cum := make([][]float64, spec.K)
	for k, b := range pl.Beta {
		cum[k] = make([]float64, spec.V)
		c := 0.0
		for v, x := range b {
			c += x
			cum[k][v] = c
		}
	}
	pois := distuv.Poisson{Lambda: spec.DocLen, Src: rng}
	c := &framework.Corpus{V: spec.V, Docs: make([]framework.Doc, spec.D)}
	counts := make(map[int32]float64)
	for d := 0; d < spec.D; d++ {
		th := make([]float64, spec.K)
		Dirichlet(th, spec.Alpha, rng)
		pl.Theta[d] = th
		n := int(math.Max(1, pois.Rand()))
		zb := make([]float64, spec.K)
		clear(counts)
		for i := 0; i < n; i++ {
			k := Categorical(th, rng)
			zb[k]++
			u := rng.Float64() * cum[k][spec.V-1]
			v := searchCum(cum[k], u)
			counts[int32(v)]++
		}
		for k := range zb {
			zb[k] /= float64(n)
		}
		pl.ZBar[d] = zb
		doc := framework.Doc{ID: strconv.Itoa(d), N: float64(n)}
		doc.Words = slices.Sorted(maps.Keys(counts))
		doc.Counts = make([]float64, len(doc.Words))
		for j, w := range doc.Words {
			doc.Counts[j] = counts[w]
		}
		c.Docs[d] = doc
	}
	if spec.NamedVocab {
		c.Vocab = make([]string, spec.V)
		for v := range c.Vocab {
			c.Vocab[v] = "w" + strconv.Itoa(v)
		}
	}
	return c, pl, nil
}

func searchCum(cum []float64, u float64) int {
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// PlantedEta draws a C×K response matrix with entries N(0, scale²): the
// "known η" of planted supervised data.
func PlantedEta(c, k int, scale float64, rng *rand.Rand) [][]float64 {
	eta := make([][]float64, c)
	for l := range eta {
		eta[l] = make([]float64, k)
		for j := range eta[l] {
			eta[l][j] = scale * rng.NormFloat64()
		}
	}
	return eta
}

// Classes draws c_d ~ Softmax(η z̄_d) for every document (MODEL.md §2's
// generative model).
func Classes(zbar, eta [][]float64, rng *rand.Rand) []int {
	out := make([]int, len(zbar))
	p := make([]float64, len(eta))
	for d, z := range zbar {
		m := math.Inf(-1)
		for l, row := range eta {
			s := 0.0
			for k, x := range row {
				s += x * z[k]
			}
			p[l] = s
			m = math.Max(m, s)
		}
		sum := 0.0
		for l := range p {
			p[l] = math.Exp(p[l] - m)
			sum += p[l]
		}
		for l := range p {
			p[l] /= sum
		}
		out[d] = Categorical(p, rng)
	}
	return out
}

// Targets draws x_d ~ N(η·z̄_d, σ²) for every document (MODEL.md §3).
func Targets(zbar [][]float64, eta []float64, sigma2 float64, rng *rand.Rand) []float64 {
	out := make([]float64, len(zbar))
	sd := math.Sqrt(sigma2)
	for d, z := range zbar {
		s := 0.0
		for k, x := range z {
			s += eta[k] * x
		}
		out[d] = s + sd*rng.NormFloat64()
	}
	return out
}
