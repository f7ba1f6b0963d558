package framework

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// SaveRunning writes the running (blended) statistics that a component
// keeps between SVI updates, for its Checkpointer: magic, one byte (1: the
// statistics exist), then when they do the sum of their blending weights
// and each of vals (its length as uint64, then its values), every float
// as its IEEE-754 bits, little-endian.
func SaveRunning(w io.Writer, magic string, present bool, weight float64, vals ...[]float64) error {
	if _, err := io.WriteString(w, magic); err != nil {
		return err
	}
	if !present {
		_, err := w.Write([]byte{0})
		return err
	}
	if _, err := w.Write([]byte{1}); err != nil {
		return err
	}
	le := binary.LittleEndian
	if err := binary.Write(w, le, math.Float64bits(weight)); err != nil {
		return err
	}
	for _, v := range vals {
		if err := binary.Write(w, le, uint64(len(v))); err != nil {
			return err
		}
		if err := binary.Write(w, le, v); err != nil {
			return err
		}
	}
	return nil
}

// LoadRunning reads what SaveRunning wrote into vals, which must have the
// saved lengths; when the statistics did not exist (present false) vals
// are left as they are. Nothing is changed on an error.
func LoadRunning(r io.Reader, magic string, vals ...[]float64) (present bool, weight float64, err error) {
	head := make([]byte, len(magic)+1)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(magic)]) != magic {
		return false, 0, fmt.Errorf("%w: not a %s state (bad header)", ErrBadInput, magic)
	}
	if head[len(magic)] == 0 {
		return false, 0, atEnd(r, magic)
	}
	le := binary.LittleEndian
	var bits uint64
	if err := binary.Read(r, le, &bits); err != nil {
		return false, 0, fmt.Errorf("%w: %s state: truncated: %v", ErrBadInput, magic, err)
	}
	read := make([][]float64, len(vals))
	for i, v := range vals {
		var n uint64
		if err := binary.Read(r, le, &n); err != nil {
			return false, 0, fmt.Errorf("%w: %s state: truncated: %v", ErrBadInput, magic, err)
		}
		if n != uint64(len(v)) {
			return false, 0, fmt.Errorf("%w: %s state: statistics %d of %d values, the component has %d", ErrBadInput, magic, i, n, len(v))
		}
		read[i] = make([]float64, n)
		if err := binary.Read(r, le, read[i]); err != nil {
			return false, 0, fmt.Errorf("%w: %s state: truncated: %v", ErrBadInput, magic, err)
		}
	}
	if err := atEnd(r, magic); err != nil {
		return false, 0, err
	}
	for i, v := range vals {
		copy(v, read[i])
	}
	return true, math.Float64frombits(bits), nil
}

func atEnd(r io.Reader, magic string) error {
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n != 0 {
		return fmt.Errorf("%w: %s state: unexpected data at the end", ErrBadInput, magic)
	}
	return nil
}
