package classprior

import (
	"fmt"
	"io"

	"github.com/maslda/maslda/framework"
)

// stateMagic starts the response's checkpoint state: its running SVI
// statistics of the point estimate (framework.SaveRunning: Σ λ).
const stateMagic = "MASLDAP1"

var _ framework.Checkpointer = (*Response)(nil)

// SaveState writes the running statistics of SVI (framework.Checkpointer).
func (r *Response) SaveState(w io.Writer) error {
	if r.run == nil {
		return framework.SaveRunning(w, stateMagic, false, 0)
	}
	return framework.SaveRunning(w, stateMagic, true, r.runW, r.run)
}

// LoadState restores what SaveState wrote into a response initialised
// over the same classes.
func (r *Response) LoadState(rd io.Reader) error {
	if r.C == 0 {
		return fmt.Errorf("%w: response %s: LoadState before Init", framework.ErrNotTrained, Name)
	}
	run := make([]float64, r.C)
	ok, w, err := framework.LoadRunning(rd, stateMagic, run)
	if err != nil {
		return err
	}
	r.run, r.runW = nil, 0
	if ok {
		r.run, r.runW = run, w
	}
	return nil
}
