package cli

import (
	"container/heap"
	"math"
	"strconv"
)

// topicExplorer is the data of the report's interactive topic view (in
// the spirit of pyLDAvis, Sievert & Shirley 2014): for each topic the
// terms that are among its most relevant for some λ, with p(w|k), and
// each term's overall probability p(w), so that the page's script ranks
// them by relevance λ·log p(w|k) + (1 − λ)·log(p(w|k)/p(w)) for the λ of
// its slider.
type topicExplorer struct {
	Terms  []string        `json:"terms"`  // the candidate terms
	PW     []float64       `json:"pw"`     // p(w) of each candidate
	Topics []explorerTopic `json:"topics"` // in topic order
	Shown  int             `json:"shown"`  // terms drawn per topic
}

type explorerTopic struct {
	Label string    `json:"label"`
	Share float64   `json:"share"` // of the words; NaN-free: 0 when unknown
	Terms []int     `json:"terms"` // indices into topicExplorer.Terms
	P     []float64 `json:"p"`     // p(w|k) of each
}

// explorerLambdas are the λ at which each topic's candidates are chosen:
// the terms among the top `shown` for one of them.
var explorerLambdas = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// buildExplorer chooses the candidates. beta are the topics (K × V),
// share their shares of the words (nil or all 0: equal), vocab the terms
// (nil: ids), labels the topics' names.
func buildExplorer(beta [][]float64, share []float64, vocab, labels []string, shown int) *topicExplorer {
	K := len(beta)
	if K == 0 {
		return nil
	}
	V := len(beta[0])
	w := make([]float64, K)
	total := 0.0
	for k := range w {
		if k < len(share) {
			w[k] = math.Max(0, share[k])
		}
		total += w[k]
	}
	for k := range w {
		if total > 0 {
			w[k] /= total
		} else {
			w[k] = 1 / float64(K)
		}
	}
	pw := make([]float64, V)
	for k, b := range beta {
		for v, p := range b {
			pw[v] += w[k] * p
		}
	}
	ex := &topicExplorer{Shown: shown}
	index := map[int]int{}
	for k, b := range beta {
		t := explorerTopic{Label: labels[k], Share: w[k]}
		seen := map[int]bool{}
		for _, lambda := range explorerLambdas {
			h := &minHeap{}
			for v, p := range b {
				if !(p > 0) || !(pw[v] > 0) {
					continue
				}
				rel := lambda*math.Log(p) + (1-lambda)*math.Log(p/pw[v])
				if h.Len() < shown {
					heap.Push(h, scored{v, rel})
				} else if rel > (*h)[0].s {
					(*h)[0] = scored{v, rel}
					heap.Fix(h, 0)
				}
			}
			for _, x := range *h {
				seen[x.v] = true
			}
		}
		for v := range V {
			if !seen[v] {
				continue
			}
			i, ok := index[v]
			if !ok {
				i = len(ex.Terms)
				index[v] = i
				term := strconv.Itoa(v)
				if vocab != nil {
					term = vocab[v]
				}
				ex.Terms = append(ex.Terms, term)
				ex.PW = append(ex.PW, pw[v])
			}
			t.Terms = append(t.Terms, i)
			t.P = append(t.P, b[v])
		}
		ex.Topics = append(ex.Topics, t)
	}
	return ex
}

type scored struct {
	v int
	s float64
}

// minHeap keeps the best scores with the worst on top.
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].s < h[j].s || h[i].s == h[j].s && h[i].v > h[j].v }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
