package softmax

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/maslda/maslda/framework"
)

// paramsMagic starts response.params: then C and K as uint64
// little-endian, then η (C×K, class-major) as float64 little-endian.
// tunedMagic starts the same followed by μ_t (float64), written when Tune
// chose text_l2 (text_l2_folds).
const (
	paramsMagic = "MASLDAs1"
	tunedMagic  = "MASLDAs2"
)

// SaveParams writes η (framework.Persister).
func (s *Softmax) SaveParams(w io.Writer) error {
	if s.Eta == nil {
		return fmt.Errorf("%w: softmax: nothing to save before Init", framework.ErrNotTrained)
	}
	magic := paramsMagic
	if s.tuned {
		magic = tunedMagic
	}
	if _, err := io.WriteString(w, magic); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, [2]uint64{uint64(s.C), uint64(s.K)}); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, s.Eta); err != nil {
		return err
	}
	if s.tuned {
		return binary.Write(w, binary.LittleEndian, s.MuText)
	}
	return nil
}

// LoadParams reads η written by SaveParams into a response initialised
// (Init) with the same number of classes and topics.
func (s *Softmax) LoadParams(r io.Reader) error {
	if s.Eta == nil {
		return fmt.Errorf("%w: softmax: LoadParams before Init", framework.ErrNotTrained)
	}
	magic := make([]byte, len(paramsMagic))
	if _, err := io.ReadFull(r, magic); err != nil || (string(magic) != paramsMagic && string(magic) != tunedMagic) {
		return fmt.Errorf("%w: not a softmax response parameter file (bad header)", framework.ErrBadInput)
	}
	var dims [2]uint64
	if err := binary.Read(r, binary.LittleEndian, &dims); err != nil {
		return fmt.Errorf("%w: softmax parameters: truncated header: %v", framework.ErrBadInput, err)
	}
	if dims[0] != uint64(s.C) || dims[1] != uint64(s.K) {
		return fmt.Errorf("%w: softmax parameters: η is %d×%d (classes × topics) but the model has %d classes and %d topics",
			framework.ErrBadInput, dims[0], dims[1], s.C, s.K)
	}
	eta := make([]float64, s.C*s.K)
	if err := binary.Read(r, binary.LittleEndian, eta); err != nil {
		return fmt.Errorf("%w: softmax parameters: truncated η (want %d values): %v", framework.ErrBadInput, len(eta), err)
	}
	for i, e := range eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%w: softmax parameters: η[%d][%d] = %v, want a finite number", framework.ErrBadInput, i/s.K, i%s.K, e)
		}
	}
	tuned, mt := string(magic) == tunedMagic, s.MuText
	if tuned {
		if err := binary.Read(r, binary.LittleEndian, &mt); err != nil {
			return fmt.Errorf("%w: softmax parameters: truncated: text_l2 missing after η: %v", framework.ErrBadInput, err)
		}
		if !(mt >= 0) || math.IsInf(mt, 0) {
			return fmt.Errorf("%w: softmax parameters: text_l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, mt)
		}
	}
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n != 0 {
		return fmt.Errorf("%w: softmax parameters: unexpected data after η", framework.ErrBadInput)
	}
	copy(s.Eta, eta)
	if tuned {
		s.MuText, s.tuned = mt, true
	}
	s.lastStats = nil
	return nil
}

// PermuteClasses relabels the classes of η (framework.ClassPermuter):
// row c becomes row perm[c], as do the stored documents' λ_d.
func (s *Softmax) PermuteClasses(perm []int) error {
	if s.Eta == nil {
		return fmt.Errorf("%w: softmax: PermuteClasses before Init", framework.ErrNotTrained)
	}
	if err := framework.CheckPermutation(perm, s.C); err != nil {
		return fmt.Errorf("softmax: %w", err)
	}
	eta := slices.Clone(s.Eta)
	for c, to := range perm {
		copy(s.Eta[to*s.K:(to+1)*s.K], eta[c*s.K:(c+1)*s.K])
	}
	if st := s.st; st != nil {
		row := make([]float64, s.C)
		for d := 0; d+s.C <= len(st.lam); d += s.C {
			copy(row, st.lam[d:d+s.C])
			for c, to := range perm {
				st.lam[d+to] = row[c]
			}
		}
	}
	s.lastStats = nil
	return nil
}
