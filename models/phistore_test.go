package models

import (
	"context"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/softmax"
)

// The model's φ store serves the softmax's product-bound M-step: after a
// joint E-step the response's statistics list every document by index (no
// copy of φ), the store holds 4·K·Σ_d L_d bytes; in the two-stage
// schedule's response phase the softmax copies the renormalised rows
// instead (Model.bindPhi).
func TestPhiStoreServesSoftmax(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, err := Build(mustConfig(t, evalCrowd), nil, crowdTrain(t))
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	D := m.NumDocs()
	s, err := m.EStep(ctx, docRange(0, D))
	if err != nil {
		t.Fatal(err)
	}
	rs := s.(*stats).resp.(*softmax.Stats)
	if len(rs.Index) != D || rs.Docs() != D {
		t.Errorf("joint E-step: %d documents served by the store of %d in the statistics, want all %d", len(rs.Index), rs.Docs(), D)
	}
	if want := 4 * m.Topics.K * corpusUnique(m.corpus); m.PhiBytes() != want {
		t.Errorf("φ store %d bytes, want %d", m.PhiBytes(), want)
	}
	if err := m.SetPhase(framework.PhaseTopics); err != nil {
		t.Fatal(err)
	}
	if _, err := m.EStep(ctx, docRange(0, D)); err != nil {
		t.Fatal(err)
	}
	if err := m.SetPhase(framework.PhaseResponse); err != nil {
		t.Fatal(err)
	}
	s, err = m.EStep(ctx, docRange(0, D))
	if err != nil {
		t.Fatal(err)
	}
	rs = s.(*stats).resp.(*softmax.Stats)
	if len(rs.Index) != 0 || rs.Docs() != D {
		t.Errorf("response phase: %d documents by index of %d, want 0 (the renormalised rows are copied)", len(rs.Index), rs.Docs())
	}
	if err := m.SetPhase(framework.PhaseJoint); err != nil {
		t.Fatal(err)
	}
	s, err = m.EStep(ctx, docRange(0, D))
	if err != nil {
		t.Fatal(err)
	}
	if rs = s.(*stats).resp.(*softmax.Stats); len(rs.Index) != D {
		t.Errorf("joint again: %d documents by index, want %d", len(rs.Index), D)
	}
}
