package optim

import (
	"errors"
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestSizeByTokens checks batch_tokens' mini-batch size by hand:
// max(1, round(batch_tokens·D/N)) documents.
func TestSizeByTokens(t *testing.T) {
	for _, c := range []struct {
		tokens float64
		d      int
		n      float64
		want   int
	}{
		{75000, 30000, 600000, 3750}, // 20-word documents: 75,000 tokens are 3,750 of them
		{75000, 10000, 1.5e6, 500},   // 150-token documents: the paper's 500
		{100, 7, 70, 10},             // round(100·7/70) = 10, more than the corpus (the schedule caps it at D)
		{5, 10, 30, 2},               // round(5/3) = 2
		{1, 100, 1e6, 1},             // at least one document
		{0, 30000, 600000, 500},      // off: batch_size stays
		{75000, 30000, 0, 500},       // no tokens: batch_size stays
	} {
		s := DefaultSVI()
		s.BatchTokens = c.tokens
		s.SizeByTokens(c.d, c.n)
		if s.BatchSize != c.want {
			t.Errorf("batch_tokens %v, D %d, N %v: batch_size %d, want %d", c.tokens, c.d, c.n, s.BatchSize, c.want)
		}
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		s := DefaultSVI()
		s.BatchTokens = bad
		if err := s.Validate(); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("batch_tokens %v: Validate = %v, want ErrBadInput", bad, err)
		}
	}
}
