package softmax

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/maslda/maslda/framework"
)

// stateMagic starts the per-document store of a checkpoint: then D, K and
// C as uint64, λ (D×C float64), φ̄ (D×K float64) and one byte per document
// (1: the slot holds a document's last local step), all little-endian. φ
// is in the model's state (framework.PhiStore). oldStateMagic is that of
// checkpoints written when the response kept φ itself.
const (
	stateMagic    = "MASLDAS2"
	oldStateMagic = "MASLDAS1"
)

var _ framework.Checkpointer = (*Softmax)(nil)

// SaveState writes the per-document store (framework.Checkpointer): what
// RestoreTarget and the M-step read between iterations besides η and the
// model's φ.
func (s *Softmax) SaveState(w io.Writer) error {
	st := s.st
	if st == nil {
		return fmt.Errorf("%w: softmax: nothing to save before Init", framework.ErrNotTrained)
	}
	if _, err := io.WriteString(w, stateMagic); err != nil {
		return err
	}
	D := len(st.doc)
	if err := binary.Write(w, binary.LittleEndian, [3]uint64{uint64(D), uint64(st.K), uint64(st.C)}); err != nil {
		return err
	}
	for _, v := range []any{st.lam, st.bar} {
		if err := binary.Write(w, binary.LittleEndian, v); err != nil {
			return err
		}
	}
	done := make([]byte, D)
	for i, d := range st.doc {
		if d != nil {
			done[i] = 1
		}
	}
	_, err := w.Write(done)
	return err
}

// LoadState restores what SaveState wrote into a response initialised
// over the same training corpus.
func (s *Softmax) LoadState(r io.Reader) error {
	st := s.st
	if st == nil {
		return fmt.Errorf("%w: softmax: LoadState before Init", framework.ErrNotTrained)
	}
	magic := make([]byte, len(stateMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != stateMagic {
		if string(magic) == oldStateMagic {
			return fmt.Errorf("%w: a softmax checkpoint state of an earlier maslda (φ kept by the response); train again without --resume", framework.ErrBadInput)
		}
		return fmt.Errorf("%w: not a softmax checkpoint state (bad header)", framework.ErrBadInput)
	}
	var dims [3]uint64
	if err := binary.Read(r, binary.LittleEndian, &dims); err != nil {
		return fmt.Errorf("%w: softmax state: truncated header: %v", framework.ErrBadInput, err)
	}
	D := len(st.doc)
	if dims != [3]uint64{uint64(D), uint64(st.K), uint64(st.C)} {
		return fmt.Errorf("%w: softmax state: %d documents, K = %d, C = %d; the model has %d, %d, %d",
			framework.ErrBadInput, dims[0], dims[1], dims[2], D, st.K, st.C)
	}
	lam, bar := make([]float64, len(st.lam)), make([]float64, len(st.bar))
	done := make([]byte, D)
	for _, v := range []any{lam, bar, done} {
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			return fmt.Errorf("%w: softmax state: truncated: %v", framework.ErrBadInput, err)
		}
	}
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n != 0 {
		return fmt.Errorf("%w: softmax state: unexpected data at the end", framework.ErrBadInput)
	}
	copy(st.lam, lam)
	copy(st.bar, bar)
	for i, b := range done {
		st.doc[i] = nil
		if b != 0 {
			if st.c == nil {
				return fmt.Errorf("%w: softmax state: document %d has a slot but the response has no training corpus", framework.ErrBadInput, i)
			}
			st.doc[i] = &st.c.Docs[i]
		}
	}
	s.lastStats = nil
	return nil
}
