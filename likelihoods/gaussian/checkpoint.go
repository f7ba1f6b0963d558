package gaussian

import (
	"fmt"
	"io"

	"github.com/maslda/maslda/framework"
)

// stateMagic starts the response's checkpoint state: its running SVI
// statistics (framework.SaveRunning: ZZ, PhiM, PhiSum and M, MM, Docs,
// Entropy).
const stateMagic = "MASLDAG1"

var _ framework.Checkpointer = (*Response)(nil)

// SaveState writes the running statistics of SVI (framework.Checkpointer),
// which carry over from one update to the next (under batch EM each update
// replaces them).
func (r *Response) SaveState(w io.Writer) error {
	s := r.run
	if s == nil {
		return framework.SaveRunning(w, stateMagic, false, 0)
	}
	return framework.SaveRunning(w, stateMagic, true, r.runW, s.ZZ, s.PhiM, s.PhiSum, []float64{s.M, s.MM, s.Docs, s.Entropy})
}

// LoadState restores what SaveState wrote into a response initialised
// with the same K.
func (r *Response) LoadState(rd io.Reader) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: LoadState before Init", framework.ErrNotTrained, r.name)
	}
	s := newStats(r.K)
	sc := make([]float64, 4)
	ok, w, err := framework.LoadRunning(rd, stateMagic, s.ZZ, s.PhiM, s.PhiSum, sc)
	if err != nil {
		return err
	}
	r.run, r.runW = nil, 0
	if ok {
		s.M, s.MM, s.Docs, s.Entropy = sc[0], sc[1], sc[2], sc[3]
		r.run, r.runW = s, w
	}
	return nil
}
