package mace

import (
	"fmt"
	"io"

	"github.com/maslda/maslda/framework"
)

// stateMagic starts MACE's checkpoint state: its running SVI statistics
// (framework.SaveRunning: A and B).
const stateMagic = "MASLDAM1"

var _ framework.Checkpointer = (*Model)(nil)

// SaveState writes the running statistics of SVI (framework.Checkpointer),
// which carry over from one update to the next (under batch EM each
// update replaces them), so that a resumed SVI fit continues
// bit-identically.
func (m *Model) SaveState(w io.Writer) error {
	if m.run == nil {
		return framework.SaveRunning(w, stateMagic, false, 0)
	}
	return framework.SaveRunning(w, stateMagic, true, m.runW, m.run.A, m.run.B)
}

// LoadState restores what SaveState wrote into a model initialised over
// the same annotators and classes.
func (m *Model) LoadState(rd io.Reader) error {
	if m.Xi == nil {
		return fmt.Errorf("%w: annotators %s: LoadState before Init", framework.ErrNotTrained, Name)
	}
	s := m.NewStats().(*Stats)
	ok, w, err := framework.LoadRunning(rd, stateMagic, s.A, s.B)
	if err != nil {
		return err
	}
	m.run, m.runW = nil, 0
	if ok {
		m.run, m.runW = s, w
	}
	return nil
}
