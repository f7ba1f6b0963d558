package biasprecision

import (
	"fmt"
	"io"

	"github.com/maslda/maslda/framework"
)

// stateMagic starts the model's checkpoint state: its running SVI
// statistics (framework.SaveRunning: N, SY, SQ).
const stateMagic = "MASLDAB1"

var _ framework.Checkpointer = (*Model)(nil)

// SaveState writes the running statistics of SVI (framework.Checkpointer).
func (m *Model) SaveState(w io.Writer) error {
	if m.run == nil {
		return framework.SaveRunning(w, stateMagic, false, 0)
	}
	return framework.SaveRunning(w, stateMagic, true, m.runW, m.run.N, m.run.SY, m.run.SQ)
}

// LoadState restores what SaveState wrote into a model initialised over
// the same annotators.
func (m *Model) LoadState(r io.Reader) error {
	if m.Prec == nil {
		return fmt.Errorf("%w: annotators %s: LoadState before Init", framework.ErrNotTrained, Name)
	}
	s := newStats(len(m.Prec))
	ok, w, err := framework.LoadRunning(r, stateMagic, s.N, s.SY, s.SQ)
	if err != nil {
		return err
	}
	m.run, m.runW = nil, 0
	if ok {
		m.run, m.runW = s, w
	}
	return nil
}
