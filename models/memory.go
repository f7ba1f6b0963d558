package models

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// Memory is an estimate of the memory a run allocates, in bytes, before
// it allocates it.
type Memory struct {
	Topics  float64 // ζ, E[log β], exp(E[log β]): 3·K·V float64
	Stats   float64 // the E-step's statistics: the larger of the float64 merge's (2·workers + 1)·K·V float64 and the exact E-step's 32.5·K·V bytes a worker at most (framework.ExactSums' sums, every block touched, and a document's float64) plus the rounded total
	PerDoc  float64 // γ (D·K float64) and per-word stores (softmax φ, frozen φ: K·ΣL_d float32 each)
	Workers int
}

// fixedBytes is the most memory framework.ExactSums take per number, the
// exact E-step's sum of one number (seam.go): three 64-bit words (two and
// an extension) and a share of the index of the blocks touched.
const fixedBytes = framework.ExactBytesPerNumber

// Total is the sum of the parts.
func (m Memory) Total() float64 { return m.Topics + m.Stats + m.PerDoc }

// EstimateMemory estimates the memory of a run with k topics over a
// vocabulary of v words, on docs documents with uniq distinct words in all
// (Σ_d L_d; 0 without a corpus), workers E-step goroutines (≤ 0: all
// cores) and phiStores per-word φ stores (the softmax response, the
// gaussian with a supervision weight > 1 and the two-stage schedule keep
// one each). Products are in float64, so absurd
// sizes do not overflow.
func EstimateMemory(k, v, docs int, uniq int64, workers, phiStores int) Memory {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	kv := float64(k) * float64(v)
	return Memory{
		Topics:  3 * 8 * kv,
		Stats:   max(float64(2*workers+1)*8, float64(workers)*(fixedBytes+8)+8) * kv,
		PerDoc:  8*float64(docs)*float64(k) + float64(phiStores)*4*float64(k)*float64(uniq),
		Workers: workers,
	}
}

// memoryLimit returns the memory a run may use and where the figure comes
// from (0: unknown); replaced in tests.
var memoryLimit = systemMemoryLimit

// CheckMemory refuses an estimate above the memory available, with the
// estimate, its parts and the limit (framework.ErrBadInput).
func CheckMemory(m Memory) error {
	limit, source := memoryLimit()
	if limit <= 0 || m.Total() <= limit {
		return nil
	}
	return fmt.Errorf("%w: the run needs about %s (topics K·V %s, E-step statistics for %d workers %s, per-document state %s) but %s is available (%s): lower k, the vocabulary size V (1 + the largest word id, or --vocab-size) or the workers; with the softmax response, bound = \"quadratic\" keeps no per-word φ",
		framework.ErrBadInput, bytesText(m.Total()), bytesText(m.Topics), m.Workers, bytesText(m.Stats), bytesText(m.PerDoc), bytesText(limit), source)
}

func bytesText(b float64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(b/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(b/(1<<10), 'f', 1, 64) + " KiB"
}

// systemMemoryLimit is the smallest of GOMEMLIMIT (when set), the cgroup
// v2 limit (memory.max) and MemAvailable from /proc/meminfo; 0 when none
// is known.
func systemMemoryLimit() (float64, string) {
	limit, source := 0.0, ""
	take := func(v float64, s string) {
		if v > 0 && (limit == 0 || v < limit) {
			limit, source = v, s
		}
	}
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		take(float64(l), "GOMEMLIMIT")
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil {
			take(v, "the cgroup's memory.max")
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 2 && f[0] == "MemAvailable:" {
				if v, err := strconv.ParseFloat(f[1], 64); err == nil {
					take(v*1024, "MemAvailable in /proc/meminfo")
				}
			}
		}
	}
	return limit, source
}

// runMemory estimates the memory of cfg on corpus c (nil: a loaded model,
// topics only); reg builds the response to ask whether its M-step reads
// every document's φ (framework.PhiUser).
func runMemory(cfg *Config, reg *framework.Registry, v int, c *framework.Corpus) Memory {
	docs, uniq := 0, int64(0)
	stores := 0
	if c != nil {
		docs = len(c.Docs)
		for i := range c.Docs {
			uniq += int64(len(c.Docs[i].Words))
		}
		// The model keeps at most one φ store (phiStore), for any of three
		// uses: the two-stage schedule's frozen φ, a response whose M-step
		// reads φ (the softmax under its product bound) and warm starts
		// with the gaussian's default supervision weight (> 1; with
		// weight = 1 this over-estimates). A response that cannot be
		// built is reported later, by assemble.
		// Under two-stage, such a response copies the renormalised φ into
		// its statistics in stage 2 (Model.bindPhi): one copy more.
		two := cfg.Inference.Name == "two-stage"
		user := false
		if cfg.Response != nil {
			if cfg.Response.Name == "gaussian" {
				stores = 1
			} else if reg != nil {
				if l, err := reg.Likelihood(cfg.Response.Name, cfg.Response.Params); err == nil {
					if pu, ok := l.(framework.PhiUser); ok && pu.NeedsPhi() {
						user = true
					}
				}
			}
		}
		switch {
		case two && user:
			stores = 2
		case two || user:
			stores = 1
		}
	}
	return EstimateMemory(cfg.Topics.K, v, docs, uniq, cfg.Workers, stores)
}
