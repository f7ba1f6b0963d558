package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/maslda/maslda/cmd/maslda/experiment"
	"github.com/maslda/maslda/models"
)

// The owners of what demo and experiment write into --out (models.Owner):
// like train's --out, a directory that holds anything else is refused
// before any work starts (models.CheckOutDir).

// leftover reports whether name is a hidden staging entry that an
// interrupted atomic write or publish of one of the given entries left
// (".NAME.tmp-…"; the next write recovers or removes it).
func leftover(name string, of ...string) bool {
	for _, o := range of {
		if strings.HasPrefix(name, "."+o+".tmp-") {
			return true
		}
	}
	return false
}

// isDemoDir: dir holds only what `demo --out` writes: corpus/ (train.ldac,
// vocab.txt and, for the crowd case, answers.csv and truth.csv) and model/ (a maslda
// model), with the leftovers of interrupted writes.
func isDemoDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == "corpus" && e.IsDir():
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			for _, s := range sub {
				if n := s.Name(); !(s.Type().IsRegular() && (n == "train.ldac" || n == "vocab.txt" || n == "answers.csv" || n == "truth.csv")) && !leftover(n, "train.ldac", "vocab.txt", "answers.csv", "truth.csv") {
					return fmt.Errorf("its corpus/ holds %s, which demo does not write", n)
				}
			}
		case name == "model" && e.IsDir():
			if err := models.IsModelDir(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("model/: %v", err)
			}
		case leftover(name, "model"):
		default:
			return fmt.Errorf("it holds %s, which demo does not write (corpus/ and model/)", name)
		}
	}
	return nil
}

// experimentOwner recognises an output directory of the experiment spec:
// only data/ (where its steps write: with the steps' markers or one of
// their logs), cells/ (a directory per cell), results.csv and summary.md,
// with the leftovers of interrupted writes.
func experimentOwner(s *experiment.Spec) models.Owner {
	return func(dir string) error {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			switch {
			case name == "data" && e.IsDir():
				if err := isStepsDir(filepath.Join(dir, name), s); err != nil {
					return err
				}
			case name == "cells" && e.IsDir():
				sub, err := os.ReadDir(filepath.Join(dir, name))
				if err != nil {
					return err
				}
				for _, c := range sub {
					if !c.IsDir() {
						return fmt.Errorf("its cells/ holds %s, which is not a cell's directory", c.Name())
					}
				}
			case (name == "results.csv" || name == "summary.md") && e.Type().IsRegular():
			case leftover(name, "results.csv", "summary.md"):
			default:
				return fmt.Errorf("it holds %s, which an experiment does not write (data/, cells/, results.csv, summary.md)", name)
			}
		}
		return nil
	}
}

// isStepsDir: the steps' directory holds their markers (.steps/) or the
// log of one of the spec's steps (a run stopped in its first step).
func isStepsDir(dir string, s *experiment.Spec) error {
	if fi, err := os.Stat(filepath.Join(dir, ".steps")); err == nil && fi.IsDir() {
		return nil
	}
	for _, st := range s.Steps {
		if _, err := os.Stat(filepath.Join(dir, st.Name+".log")); err == nil {
			return nil
		}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 {
		return nil
	}
	return errors.New("its data/ holds neither the steps' markers (.steps/) nor a step's log")
}
