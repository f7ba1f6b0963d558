package confusion

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
)

// sviCommState is communitiesState with ξ = ᾱ + random counts (every
// annotator's counts above its prior row non-negative, as after Init or
// any update).
func sviCommState(t *testing.T, seed uint64, membership string) *Model {
	t.Helper()
	const R, C, M = 7, 3, 2
	m := communitiesState(t, R, C, M, seed)
	m.cfg.Membership, m.family = membership, membership
	rng := rand.New(rand.NewPCG(seed, 23))
	for i := range m.xi {
		m.xi[i] = m.comm.pri[i] + 6*rng.Float64()
	}
	m.refresh()
	return m
}

// commParams is the communities' state (α, w, q, ᾱ) as one slice.
func commParams(m *Model) []float64 {
	cm := m.comm
	return slices.Concat(cm.alpha, cm.w, cm.q, cm.pri)
}

// TestCommunitiesSVIEpoch: under SVI with mini-batches (a step that is not
// Full) the communities are refitted only at the update that ends an
// epoch (docs/design.md, "Communities of annotators").
//
//   - Within an epoch α, w, q and ᾱ keep their bits and ξ takes the fixed
//     prior's step with ᾱ: (1 − ρ)·ξ + ρ·(ᾱ + S·Counts); the bound's global
//     terms are those of the new ξ (GlobalELBO against a refresh by hand).
//   - At the epoch's end the step is the same, then the communities and ξ
//     are exactly batch EM's update from the counts n̂ = ξ − ᾱ (the same
//     state, BatchStep, statistics n̂): ξ − ᾱ_new = n̂.
//   - A Full step (batch, or SVI whose mini-batch is the corpus) refits at
//     every update, as before.
//
// Under either family of the memberships (Config.Membership).
func TestCommunitiesSVIEpoch(t *testing.T) {
	for _, mem := range []string{MembershipMeanField, MembershipStructured} {
		t.Run(mem, func(t *testing.T) {
			ctx := context.Background()
			const rho, S = 0.3, 2.5
			counts := overdispersed(7, 3, 5)
			for i := range counts {
				counts[i] /= 4 // a mini-batch's share
			}

			// Within an epoch.
			m := sviCommState(t, 1, mem)
			xi0, comm0 := slices.Clone(m.xi), commParams(m)
			if err := m.Update(ctx, statsOf(m, counts), framework.Step{Rho: rho, Scale: S, Iter: 4}); err != nil {
				t.Fatal(err)
			}
			if got := commParams(m); !slices.Equal(got, comm0) {
				t.Errorf("a mini-batch's update within an epoch changed the communities (α, w, q, ᾱ): they must hold until the epoch's end")
			}
			for i, x := range m.xi {
				want := (1-rho)*xi0[i] + rho*(comm0[len(comm0)-len(m.xi)+i]+S*counts[i])
				if math.Abs(x-want) > 1e-12*math.Abs(want) {
					t.Fatalf("ξ[%d] = %.15g after a mini-batch's update, want (1−ρ)ξ + ρ(ᾱ + S·n) = %.15g", i, x, want)
				}
			}
			kl := m.GlobalELBO()
			m.refresh()
			if m.GlobalELBO() != kl {
				t.Errorf("GlobalELBO %.15g after the update, %.15g refreshed: the bound's terms are stale", kl, m.GlobalELBO())
			}

			// At the epoch's end, against batch's update from n̂.
			a, b := sviCommState(t, 2, mem), sviCommState(t, 2, mem)
			pri0 := slices.Clone(a.comm.pri)
			if err := a.Update(ctx, statsOf(a, counts), framework.Step{Rho: rho, Scale: S, Iter: 8, EpochEnd: true}); err != nil {
				t.Fatal(err)
			}
			nhat := make([]float64, len(b.xi))
			for i, x := range b.xi {
				nhat[i] = (1-rho)*x + rho*(pri0[i]+S*counts[i]) - pri0[i]
			}
			if err := b.Update(ctx, statsOf(b, nhat), framework.BatchStep(3)); err != nil {
				t.Fatal(err)
			}
			if slices.Equal(commParams(a), commParams(sviCommState(t, 2, mem))) {
				t.Fatalf("the update at the epoch's end left the communities as they were: no refit")
			}
			if d := maxAbsDiff(commParams(a), commParams(b)); d > 1e-9 {
				t.Errorf("the communities after the epoch's last mini-batch differ by %.3g from batch's update from n̂ = ξ − ᾱ", d)
			}
			if d := maxAbsDiff(a.xi, b.xi); d > 1e-9 {
				t.Errorf("ξ after the epoch's last mini-batch differs by %.3g from batch's update from n̂", d)
			}
			for i, x := range a.xi {
				if d := x - a.comm.pri[i] - nhat[i]; math.Abs(d) > 1e-9*math.Max(1, nhat[i]) {
					t.Fatalf("ξ[%d] − ᾱ_new = %.12g, want n̂ = %.12g: the refit must keep each annotator's counts", i, x-a.comm.pri[i], nhat[i])
				}
			}
			if e, f := a.GlobalELBO(), b.GlobalELBO(); math.Abs(e-f) > 1e-9*math.Abs(f) {
				t.Errorf("GlobalELBO %.15g after the epoch's end, %.15g after batch's update from n̂", e, f)
			}

			// A Full step with ρ < 1 (SVI whose mini-batch is the corpus) refits
			// at once, from its own statistics: the communities move.
			c := sviCommState(t, 3, mem)
			comm0 = commParams(c)
			if err := c.Update(ctx, statsOf(c, counts), framework.Step{Rho: rho, Scale: 1, Full: true, Iter: 2}); err != nil {
				t.Fatal(err)
			}
			if slices.Equal(commParams(c), comm0) {
				t.Errorf("a Full step left the communities as they were")
			}

		})
	}
}

func maxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestCommunitiesPriorRareSVI: prior_rare under SVI with mini-batches
// (0 < ρ < 1, S ≠ 1). At the epoch's end the communities are batch EM's
// update from n̂ = ξ − ᾱ with the rare class's rows held at their start,
// whichever the scale of the counts: which classes are rare depends on
// their shares of the answers only (rareClasses of S·n is that of n).
func TestCommunitiesPriorRareSVI(t *testing.T) {
	ctx := context.Background()
	const rho, S, C = 0.3, 2.5, 3
	counts := overdispersed(7, C, 5)
	for r := range 7 {
		for l := range C {
			counts[(r*C+2)*C+l] *= 0.02 // class 2 rare in the mini-batch
		}
	}
	state := func() *Model {
		m := sviCommState(t, 5, MembershipStructured)
		m.cfg.PriorRare = 0.25
		for r := range 7 {
			for l := range C {
				i := (r*C+2)*C + l
				m.xi[i] = m.comm.pri[i] + 0.01*float64(l+1) // and in ξ's counts
			}
		}
		m.refresh()
		return m
	}
	a, b := state(), state()
	pri0 := slices.Clone(a.comm.pri)
	if err := a.Update(ctx, statsOf(a, counts), framework.Step{Rho: rho, Scale: S, Iter: 8, EpochEnd: true}); err != nil {
		t.Fatal(err)
	}
	nhat := make([]float64, len(b.xi))
	for i, x := range b.xi {
		nhat[i] = (1-rho)*x + rho*(pri0[i]+S*counts[i]) - pri0[i]
	}
	if err := b.Update(ctx, statsOf(b, nhat), framework.BatchStep(3)); err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(commParams(a), commParams(b)); d > 1e-9 {
		t.Errorf("the communities after the epoch's last mini-batch differ by %.3g from batch's update from n̂", d)
	}
	M := a.comm.m
	for k := range M {
		want := make([]float64, C)
		startRow(a.cfg, want, M, k, 2)
		if got := a.comm.alpha[(k*C+2)*C:][:C]; !slices.Equal(got, want) {
			t.Errorf("community %d's row of the rare class after the epoch's end: %v, want its start %v", k, got, want)
		}
	}
	scaled := make([]float64, len(nhat))
	for i, x := range nhat {
		scaled[i] = S * x
	}
	if got, want := a.rareClasses(scaled), a.rareClasses(nhat); !slices.Equal(got, want) || !want[2] || want[0] || want[1] {
		t.Errorf("rare classes of S·n̂ %v, of n̂ %v; want class 2 alone for both", got, want)
	}
}
