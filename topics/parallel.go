package topics

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mathext"

	"github.com/maslda/maslda/framework"
)

// The topic layer's passes over every (word, topic) pair (Update's blend
// of ζ, Refresh's digammas and exponentials, GlobalELBO's log-gammas:
// O(K·V) per iteration, the serial part of an iteration that the E-step's
// workers do not share) run on the model's number of workers
// (SetWorkers). Every element is computed as by one goroutine, and a sum
// is taken over chunks of a fixed size, each in index order, whose sums
// are added in index order, so the results are the same bits for any
// number of workers.

// parallelMin is the number of elements below which a pass runs on the
// calling goroutine.
const parallelMin = 1 << 14

// SetWorkers sets the number of goroutines of the passes over ζ
// (framework.Parallel; n ≤ 1: the calling goroutine only).
func (l *Layer) SetWorkers(n int) { l.workers = n }

// forRange calls f on consecutive parts [lo, hi) of [0, n) that cover it,
// on up to l.workers goroutines at once (the calling one among them), and
// returns when every call has. The parts are chunks of at least
// parallelMin/4 elements, about 8 per goroutine, taken in turn by
// whichever goroutine is free: a goroutine that is slowed (by the
// elements' cost, or by the machine's other work) leaves its share to the
// others instead of keeping them waiting at the end.
func (l *Layer) forRange(n int, f func(lo, hi int)) { forRange(l.workers, n, f) }

// forRange is Layer.forRange on w goroutines.
func forRange(w, n int, f func(lo, hi int)) {
	if w <= 1 || n < parallelMin {
		f(0, n)
		return
	}
	framework.ForRange(w, n, parallelMin/4, f)
}

// refreshElog sets E[log β] and exp(E[log β]) from ζ and the digammas of
// the topics' sums, psiSum; lazy sets E[log β] alone and leaves the
// exponentials to ensureExp.
func (l *Layer) refreshElog(psiSum []float64, lazy bool) {
	K := l.K
	l.version = versions.Add(1)
	if lazy {
		if len(l.expStamp) != l.V {
			l.expStamp = make([]atomic.Uint64, l.V)
		}
		l.forRange(len(l.Zeta), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				l.ElogBeta[i] = mathext.Digamma(l.Zeta[i]) - psiSum[i%K]
			}
		})
		return
	}
	l.forRange(len(l.Zeta), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := mathext.Digamma(l.Zeta[i]) - psiSum[i%K]
			l.ElogBeta[i] = e
			l.ExpElogBeta[i] = math.Exp(e)
		}
	})
	l.expVer = l.version
}

// expBusy marks a word's expStamp while one goroutine fills its row.
const expBusy = 1 << 63

// ensureExp fills the rows of ExpElogBeta of the given words that the last
// refresh left stale (a lazy one): exp(E[log β_kv]), the numbers an eager
// refresh computes. Safe on the E-step's goroutines at once: a word's row
// is filled by the goroutine that claims its stamp, and the others wait
// for it (the stamp's atomic store orders the row before their reads).
func (l *Layer) ensureExp(words []int32) {
	v := l.version
	if l.expVer == v {
		return
	}
	K := l.K
	for _, w := range words {
		st := &l.expStamp[w]
		for {
			s := st.Load()
			if s == v {
				break
			}
			if s == v|expBusy {
				runtime.Gosched()
				continue
			}
			if st.CompareAndSwap(s, v|expBusy) {
				row, eb := l.ExpElogBeta[int(w)*K:][:K], l.ElogBeta[int(w)*K:][:K]
				for k, e := range eb {
					row[k] = math.Exp(e)
				}
				st.Store(v)
				break
			}
		}
	}
}

// pipeline calls work(c, lo, hi) on the chunks [lo, hi) = [c·size,
// min(n, (c+1)·size)) of [0, n) on up to l.workers goroutines (the
// calling one among them), at most ahead chunks beyond the first one not
// yet consumed, and consume(c, lo, hi) on every chunk in index order, on
// the calling goroutine, as soon as its work is done: a serial pass in
// index order (a sum whose bits depend on its order) overlaps the
// parallel work instead of following it. The calling goroutine consumes
// the next chunk when it is done and otherwise works on one, so there are
// never more goroutines than workers. A goroutine takes one of the ahead
// slots before the number of its chunk (as the E-step's shards take their
// buffers), so the chunk next in order always has one. With one worker or
// a short range: work and then consume on each chunk in turn.
func (l *Layer) pipeline(n, size, ahead int, work, consume func(c, lo, hi int)) {
	chunks := (n + size - 1) / size
	w := min(l.workers, chunks)
	if w <= 1 || n < parallelMin {
		for c := range chunks {
			lo, hi := c*size, min(n, (c+1)*size)
			work(c, lo, hi)
			consume(c, lo, hi)
		}
		return
	}
	free := make(chan struct{}, ahead)
	for range ahead {
		free <- struct{}{}
	}
	ready := make([]chan struct{}, chunks)
	for c := range ready {
		ready[c] = make(chan struct{}, 1)
	}
	var next atomic.Int64
	take := func() int { // with a slot held: the chunk to work on, or −1 (the slot given back)
		c := int(next.Add(1) - 1)
		if c >= chunks {
			free <- struct{}{}
			return -1
		}
		return c
	}
	do := func(c int) {
		work(c, c*size, min(n, (c+1)*size))
		ready[c] <- struct{}{}
	}
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(func() {
			for {
				<-free
				c := take()
				if c < 0 {
					return
				}
				do(c)
			}
		})
	}
	for c := 0; c < chunks; {
		select {
		case <-ready[c]:
		default:
			select {
			case <-free:
				if d := take(); d >= 0 {
					do(d)
					continue
				}
			default:
			}
			<-ready[c]
		}
		consume(c, c*size, min(n, (c+1)*size))
		free <- struct{}{}
		c++
	}
	wg.Wait()
}

// zetaChunk is the number of ζ terms that sumZetaTerms sums apart before
// adding the parts in order: a fixed size, so that the sum's bits do not
// depend on the number of workers.
const zetaChunk = 1 << 13

// sumZetaTerms returns e + Σ_i [log Γ(ζ_i) + (τ − ζ_i) E[log β]_i]
// (GlobalELBO's sum): each chunk of zetaChunk terms summed in index order
// on whichever worker takes it (pipeline), and the chunks' sums added to e
// in index order on the calling goroutine as they finish.
func (l *Layer) sumZetaTerms(e float64) float64 {
	n := len(l.Zeta)
	part := make([]float64, (n+zetaChunk-1)/zetaChunk)
	l.pipeline(n, zetaChunk, 4*max(1, l.workers), func(c, lo, hi int) {
		p := 0.0
		for i := lo; i < hi; i++ {
			p += zetaTerm(l.Zeta[i], l.Tau, l.ElogBeta[i])
		}
		part[c] = p
	}, func(c, _, _ int) { e += part[c] })
	return e
}

// blendRefresh is Update's blend of ζ toward τ + sc·word (weight r) and
// then Refresh, with Refresh's sums of the topics (word by word, in index
// order: the same bits) taken on the calling goroutine chunk by chunk as
// the workers finish blending them (pipeline).
func (l *Layer) blendRefresh(word []float64, r, sc float64, lazy bool) {
	K := l.K
	clear(l.TopicSum)
	size := K * max(1, (1<<13)/K) // whole rows
	l.pipeline(len(l.Zeta), size, 4*max(1, l.workers), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			l.Zeta[i] = (1-r)*l.Zeta[i] + r*(l.Tau+sc*word[i])
		}
	}, func(_, lo, hi int) {
		ts := l.TopicSum[:K]
		for v := lo; v < hi; v += K {
			for k, z := range l.Zeta[v : v+K] {
				ts[k] += z
			}
		}
	})
	l.refreshFromSums(lazy)
}

// refreshUniform is Refresh for ζ = τ everywhere (New): E[log β_kv] =
// ψ(τ) − ψ(Σ_v ζ_kv) is the same for every word of topic k, so it takes
// K digammas and exponentials instead of K·V, with Refresh's bits (each
// topic's sum is τ added V times, as Refresh adds ζ word by word; the
// rows are filled on the workers, forRange).
func (l *Layer) refreshUniform() {
	K := l.K
	l.version = versions.Add(1)
	sum := 0.0
	for range l.V {
		sum += l.Tau
	}
	for k := range l.TopicSum {
		l.TopicSum[k] = sum
	}
	e, x := make([]float64, K), make([]float64, K)
	for k, s := range l.TopicSum {
		e[k] = mathext.Digamma(l.Tau) - mathext.Digamma(s)
		x[k] = math.Exp(e[k])
	}
	l.forRange(len(l.Zeta), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			l.ElogBeta[i], l.ExpElogBeta[i] = e[i%K], x[i%K]
		}
	})
	l.expVer = l.version
	l.refreshEmpty()
}

// zetaTerm is log Γ(z) + (τ − z)·eb.
func zetaTerm(z, tau, eb float64) float64 {
	v, _ := math.Lgamma(z)
	return v + (tau-z)*eb
}
