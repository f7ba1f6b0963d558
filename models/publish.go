package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// Owner recognises a directory that a command wrote before and may
// therefore replace: it returns nil for such a directory and an error
// saying why not otherwise. IsModelDir recognises saved models;
// textprep.IsPrepared the output of maslda prepare.
type Owner func(dir string) error

// CheckOutDir says whether dir may be used as an output directory that is
// replaced as a whole: it may be absent, empty, or recognised by owner
// (nil: only absent or empty). Anything else, and the file-system root or
// a directory that contains the working directory, is refused with
// framework.ErrBadInput. Call it before any work starts; Stage and
// Publish call it again.
func CheckOutDir(dir string, owner Owner) error {
	if dir == "" {
		return fmt.Errorf("%w: empty output directory name", framework.ErrBadInput)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	if filepath.Dir(abs) == abs {
		return fmt.Errorf("%w: --out %s is the file-system root, which cannot be replaced; name a new directory (e.g. --out model)", framework.ErrBadInput, dir)
	}
	if wd, err := os.Getwd(); err == nil && within(abs, wd) {
		what := "contains the working directory"
		if abs == filepath.Clean(wd) {
			what = "is the working directory"
		}
		return fmt.Errorf("%w: --out %s %s, which would be replaced as a whole; name a new directory (e.g. --out model)", framework.ErrBadInput, dir, what)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("%w: --out %s exists and is not a directory", framework.ErrBadInput, dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if owner == nil {
		return fmt.Errorf("%w: --out %s is not empty (it holds %s); refusing to replace it: choose a new or empty directory", framework.ErrBadInput, dir, ents[0].Name())
	}
	if err := owner(dir); err != nil {
		return fmt.Errorf("%w: --out %s exists and was not written by this command (%v); refusing to replace it: choose a new or empty directory", framework.ErrBadInput, dir, err)
	}
	return nil
}

// within reports whether path is dir or inside it (both absolute, clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Staged is an output directory being written: files go into Tmp, a
// hidden sibling of Dir, which Publish then puts in Dir's place.
type Staged struct {
	Dir string // the output directory (cleaned)
	Tmp string // where to write; exists until Publish or Abort
	// Recovered says what Stage did with leftovers of killed runs (Recover).
	Recovered []string
	owner     Owner

	// Fault injection (tests): hook is called before each step of Publish
	// with the step's name; an error is a simulated crash: Publish returns
	// it at once, leaving everything as a killed process would.
	hook       func(step string) error
	noExchange bool // use the two-rename fallback even where exchange works
	crashed    bool
	done       bool
}

// Leftovers of killed runs are siblings named ".<base>.tmp-<pid>-<random>"
// (a staging directory, or after an exchange the old directory) and
// ".<base>.tmp-<pid>-<random>.old" (the old directory moved aside by the
// two-rename fallback).
func tmpPrefix(dir string) string { return "." + filepath.Base(dir) + ".tmp-" }

// processAlive reports whether a process with this id exists; replaced in
// tests.
var processAlive = pidAlive

// Stage checks dir (CheckOutDir with owner), recovers or removes what
// killed runs left beside it (see Recover), and creates the staging
// directory, which proves that the parent is writable. Missing parents are
// created. The caller writes into Tmp and calls Publish, or Abort.
func Stage(dir string, owner Owner) (*Staged, error) {
	if err := CheckOutDir(dir, owner); err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	did, err := Recover(dir)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if err := writable(dir); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, tmpPrefix(dir)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("output directory %s: cannot write beside it: %w", dir, err)
	}
	return &Staged{Dir: dir, Tmp: tmp, Recovered: did, owner: owner}, nil
}

// RemoveDir removes dir so that a process killed while removing it never
// leaves a partial dir behind (os.RemoveAll deletes entry by entry: a
// checkpoint killed half-removed would list files it no longer has): dir
// is first renamed to a staging-directory name beside it, which Recover
// removes if this removal does not finish. A missing dir is not an error.
func RemoveDir(dir string) error {
	dir = filepath.Clean(dir)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	parent := filepath.Dir(dir)
	// A fresh name: MkdirTemp reserves it, and the rename needs it free
	// (os.Rename refuses an existing directory as the target).
	trash, err := os.MkdirTemp(parent, tmpPrefix(dir)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return err
	}
	if err := os.Remove(trash); err != nil {
		return err
	}
	if err := os.Rename(dir, trash); err != nil {
		return err
	}
	syncDir(parent)
	return os.RemoveAll(trash)
}

// Recover looks beside dir for what killed runs left: the previous
// directory moved aside (".old"), which is put back when dir is missing
// and removed otherwise, and staging directories, which are removed.
// Entries of processes still running are left alone. It returns what it
// did, one line per entry.
func Recover(dir string) ([]string, error) {
	dir = filepath.Clean(dir)
	parent, prefix := filepath.Dir(dir), tmpPrefix(dir)
	ents, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var olds, tmps []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rest := strings.TrimPrefix(name, prefix)
		pid, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, '-'), 0)])
		if err == nil && processAlive(pid) {
			continue // another run, still going
		}
		if strings.HasSuffix(name, ".old") {
			olds = append(olds, filepath.Join(parent, name))
		} else {
			tmps = append(tmps, filepath.Join(parent, name))
		}
	}
	sort.Strings(olds)
	var did []string
	for _, old := range olds {
		if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(old, dir); err != nil {
				return did, fmt.Errorf("recovering %s from %s: %w", dir, old, err)
			}
			syncDir(parent)
			did = append(did, "restored "+dir+" from "+old)
			continue
		}
		if err := os.RemoveAll(old); err != nil {
			return did, err
		}
		did = append(did, "removed "+old)
	}
	for _, t := range tmps {
		if err := os.RemoveAll(t); err != nil {
			return did, err
		}
		did = append(did, "removed "+t)
	}
	return did, nil
}

func (s *Staged) step(name string, f func() error) error {
	if s.hook != nil {
		if err := s.hook(name); err != nil {
			s.crashed = true
			return err
		}
	}
	return f()
}

// Publish puts Tmp in Dir's place. Dir is checked again (CheckOutDir);
// Tmp's entries are synced, then where the system can swap two
// directories atomically (Linux renameat2 RENAME_EXCHANGE) Tmp and Dir are
// swapped and the old directory, now at Tmp, is removed: at every instant
// Dir holds the old or the new directory. Elsewhere the old directory is
// renamed aside (Tmp + ".old") before Tmp is renamed to Dir; a crash
// between the two leaves the old one aside, which the next Stage or
// Recover puts back. On an error Tmp is removed and Dir is as it was.
func (s *Staged) Publish() (err error) {
	if s.done {
		return errors.New("models: Publish after Publish or Abort")
	}
	defer func() {
		if err != nil && !s.crashed {
			os.RemoveAll(s.Tmp)
		}
		s.done = true
	}()
	if err := CheckOutDir(s.Dir, s.owner); err != nil {
		return err
	}
	parent := filepath.Dir(s.Dir)
	if err := s.step("sync-tmp", func() error {
		if err := os.Chmod(s.Tmp, 0o755); err != nil {
			return err
		}
		return syncTree(s.Tmp)
	}); err != nil {
		return err
	}
	_, statErr := os.Lstat(s.Dir)
	exists := statErr == nil
	if exists && !s.noExchange {
		err := s.step("exchange", func() error { return exchange(s.Tmp, s.Dir) })
		switch {
		case err == nil:
			if err := s.step("sync-parent", func() error { return syncDir(parent) }); err != nil {
				return err
			}
			return s.step("remove-old", func() error { return os.RemoveAll(s.Tmp) })
		case s.crashed || !errors.Is(err, errNoExchange):
			return err
		}
	}
	old := s.Tmp + ".old"
	if exists {
		if err := s.step("rename-aside", func() error { return os.Rename(s.Dir, old) }); err != nil {
			return err
		}
	}
	if err := s.step("rename-new", func() error { return os.Rename(s.Tmp, s.Dir) }); err != nil {
		if exists && !s.crashed {
			os.Rename(old, s.Dir)
		}
		return err
	}
	if err := s.step("sync-parent", func() error { return syncDir(parent) }); err != nil {
		return err
	}
	if exists {
		return s.step("remove-old", func() error { return os.RemoveAll(old) })
	}
	return nil
}

// Abort removes the staging directory; Dir is untouched. It does nothing
// after Publish.
func (s *Staged) Abort() {
	if !s.done {
		os.RemoveAll(s.Tmp)
		s.done = true
	}
}

// PublishDir stages dir (Stage with owner), fills the staging directory
// and publishes it (Publish). On any error the staging directory is
// removed and dir is left as it was.
func PublishDir(dir string, owner Owner, fill func(tmp string) error) error {
	s, err := Stage(dir, owner)
	if err != nil {
		return err
	}
	if err := fill(s.Tmp); err != nil {
		s.Abort()
		return err
	}
	return s.Publish()
}

// syncTree fsyncs every regular file and directory under root.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return syncDir(path)
		case d.Type().IsRegular():
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			err = f.Sync()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		return nil
	})
}

// syncDir fsyncs a directory so that the entries made in it are durable.
// Some file systems cannot sync a directory; that is not an error.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	f.Sync()
	return f.Close()
}
