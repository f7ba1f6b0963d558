package ordinalshift

import (
	"fmt"
	"io"

	"github.com/maslda/maslda/framework"
)

// stateMagic starts the model's checkpoint state: its running SVI
// statistics (framework.SaveRunning: N).
const stateMagic = "MASLDAO1"

var _ framework.Checkpointer = (*Model)(nil)

// SaveState writes the running statistics of SVI (framework.Checkpointer).
func (m *Model) SaveState(w io.Writer) error {
	if m.run == nil {
		return framework.SaveRunning(w, stateMagic, false, 0)
	}
	return framework.SaveRunning(w, stateMagic, true, m.runW, m.run.N)
}

// LoadState restores what SaveState wrote into a model initialised over
// the same annotators and levels.
func (m *Model) LoadState(r io.Reader) error {
	if m.C == 0 {
		return fmt.Errorf("%w: annotators %s: LoadState before Init", framework.ErrNotTrained, Name)
	}
	s := m.NewStats().(*Stats)
	ok, w, err := framework.LoadRunning(r, stateMagic, s.N)
	if err != nil {
		return err
	}
	m.run, m.runW = nil, 0
	if ok {
		m.run, m.runW = s, w
	}
	return nil
}
