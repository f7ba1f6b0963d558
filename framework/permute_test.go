package framework

import (
	"errors"
	"testing"
)

func TestCheckPermutation(t *testing.T) {
	if err := CheckPermutation([]int{1, 2, 0}, 3); err != nil {
		t.Errorf("[1 2 0]: %v", err)
	}
	for _, p := range [][]int{{0, 1}, {1, 1, 0}, {0, 1, 3}, {-1, 0, 1}} {
		if err := CheckPermutation(p, 3); !errors.Is(err, ErrBadInput) {
			t.Errorf("%v: err = %v, want ErrBadInput", p, err)
		}
	}
}
