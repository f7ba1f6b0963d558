package models

import (
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/topics"
)

// countedSoftmax records what the model tells it through framework.Parallel.
type countedSoftmax struct {
	*softmax.Softmax
	got []int
}

func (c *countedSoftmax) SetWorkers(n int) {
	c.got = append(c.got, n)
	c.Softmax.SetWorkers(n)
}

// The model passes its number of workers to a component whose update is
// parallel (framework.Parallel), at construction and on SetWorkers, so that
// workers = 1 means one core in the M-step too.
func TestModelSetsComponentWorkers(t *testing.T) {
	l, err := topics.New(topics.Defaults(), 10)
	if err != nil {
		t.Fatal(err)
	}
	r, err := softmax.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &countedSoftmax{Softmax: r.(*softmax.Softmax)}
	noise, err := confusion.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var _ framework.Parallel = resp
	m, err := NewModel(l, resp, noise, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.SetWorkers(3)
	if len(resp.got) != 2 || resp.got[0] != 1 || resp.got[1] != 3 {
		t.Errorf("SetWorkers calls %v, want [1 3]", resp.got)
	}
}
