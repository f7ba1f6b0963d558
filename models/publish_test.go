package models

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// hasA is a test Owner: directories holding a file "a" were written by us.
func hasA(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		return errors.New("no file a")
	}
	return nil
}

func writeA(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readA returns dir/a, "" when dir is absent; it fails on a directory that
// is not complete (anything but exactly the file a).
func readA(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "a" {
		t.Fatalf("%s is not a complete directory: %v", dir, ents)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}

func TestCheckOutDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(name string, files ...string) string {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	file := filepath.Join(mk("f"), "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		name, dir string
		owner     Owner
		want      string // "" = allowed; else a regexp of the error
	}{
		{"absent", filepath.Join(root, "new", "deeper"), hasA, ""},
		{"empty", mk("empty"), nil, ""},
		{"ours", mk("ours", "a", "b"), hasA, ""},
		{"notes", mk("notes", "notes.txt"), hasA, `--out .*notes exists and was not written by this command \(no file a\); refusing to replace it`},
		{"notes without owner", mk("notes2", "notes.txt"), nil, `is not empty \(it holds notes.txt\)`},
		{"a file", file, hasA, `exists and is not a directory`},
		{"root", "/", nil, `is the file-system root`},
		{"working directory", ".", hasA, `--out \. is the working directory`},
		{"parent of the working directory", "..", hasA, `--out \.\. contains the working directory`},
		{"empty name", "", nil, `empty output directory name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckOutDir(tc.dir, tc.owner)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, framework.ErrBadInput) || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("error %v, want ErrBadInput matching %q", err, tc.want)
			}
		})
	}
}

func TestIsModelDir(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 2, 30, 20, 2)
	r, err := Build(mustConfig(t, "topics {\nk = 2\n}\ninference \"batch\" {\nmax_iters = 2\n}\n"), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	if err := IsModelDir(dir); err != nil {
		t.Fatalf("a saved model: %v", err)
	}
	// Saving again over it is allowed; over it with a user's file inside is not.
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatalf("saving over a model: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if err := r.SaveAtomic(dir, nil); err == nil || !strings.Contains(err.Error(), "it also holds notes.txt") {
		t.Fatalf("saving over a model with notes.txt: %v, want a refusal naming it", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("notes.txt: %q, %v", b, err)
	}
}

// TestPublishCrash simulates a crash (the process killed) before every
// step of Publish, with the exchange and with the two-rename fallback, for
// a new and a replaced directory: the output always holds the old or the
// new complete directory (the fallback may have none between its two
// renames), and the next Stage recovers the old one or cleans up, leaving
// nothing beside the output.
func TestPublishCrash(t *testing.T) {
	defer func(f func(int) bool) { processAlive = f }(processAlive)
	processAlive = func(int) bool { return false } // the "killed" run is this process
	crash := errors.New("simulated crash")
	for _, mode := range []struct {
		name       string
		noExchange bool
	}{{"exchange", false}, {"two renames", true}} {
		for _, initial := range []string{"", "old"} {
			// The steps of a complete publish.
			// stage prepares an output (absent or holding initial) and a
			// staged new content for it.
			stage := func(t *testing.T) (parent, dir string, s *Staged) {
				t.Helper()
				parent = t.TempDir()
				dir = filepath.Join(parent, "out")
				if initial != "" {
					writeA(t, dir, initial)
				}
				s, err := Stage(dir, hasA)
				if err != nil {
					t.Fatal(err)
				}
				writeA(t, s.Tmp, "new")
				s.noExchange = mode.noExchange
				return parent, dir, s
			}
			var steps []string
			{
				parent, dir, s := stage(t)
				s.hook = func(step string) error { steps = append(steps, step); return nil }
				if err := s.Publish(); err != nil {
					t.Fatal(err)
				}
				if got := readA(t, dir); got != "new" {
					t.Fatalf("after a publish: %q", got)
				}
				if diff := cmp.Diff([]string{"out"}, names(t, parent)); diff != "" {
					t.Fatalf("left beside the output (-want +got):\n%s", diff)
				}
			}
			exchanged := slices.Contains(steps, "exchange")
			if initial != "" && !mode.noExchange && !exchanged {
				t.Logf("this file system cannot exchange directories; the fallback ran")
			}
			for i, step := range steps {
				t.Run(mode.name+"/"+map[string]string{"": "new", "old": "replace"}[initial]+"/"+step, func(t *testing.T) {
					parent, dir, s := stage(t)
					n := 0
					s.hook = func(string) error {
						if n == i {
							return crash
						}
						n++
						return nil
					}
					if err := s.Publish(); !errors.Is(err, crash) {
						t.Fatalf("Publish: %v, want the simulated crash", err)
					}
					got := readA(t, dir)
					atomic := exchanged || initial == ""
					if !(got == initial || got == "new" || (got == "" && !atomic)) {
						t.Fatalf("after a crash before %s: the output holds %q, want %q or \"new\"", step, got, initial)
					}
					// The next run recovers.
					s2, err := Stage(dir, hasA)
					if err != nil {
						t.Fatal(err)
					}
					got = readA(t, dir)
					if !(got == initial || got == "new") || (got == "" && initial != "") {
						t.Fatalf("after recovery (%v): the output holds %q, want %q or \"new\"", s2.Recovered, got, initial)
					}
					want := []string{filepath.Base(s2.Tmp)}
					if got != "" {
						want = append(want, "out")
					}
					if diff := cmp.Diff(want, names(t, parent), cmp.Transformer("sort", func(s []string) []string { return slices.Sorted(slices.Values(s)) })); diff != "" {
						t.Fatalf("beside the output after recovery (%v) (-want +got):\n%s", s2.Recovered, diff)
					}
					writeA(t, s2.Tmp, "newer")
					if err := s2.Publish(); err != nil {
						t.Fatal(err)
					}
					if got := readA(t, dir); got != "newer" {
						t.Fatalf("the next run's output: %q", got)
					}
					if diff := cmp.Diff([]string{"out"}, names(t, parent)); diff != "" {
						t.Fatalf("left beside the output (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}

// TestRecoverLeavesLiveRuns: a staging directory of a process that is
// still running is not touched.
func TestRecoverLeavesLiveRuns(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	s, err := Stage(dir, hasA) // this process: alive
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	did, err := Recover(dir)
	if err != nil || len(did) != 0 {
		t.Fatalf("Recover: %v, %v; want nothing done", did, err)
	}
	if _, err := os.Stat(s.Tmp); err != nil {
		t.Fatal(err)
	}
}

// TestPublishRefusesLateChange: a directory that became someone else's
// during the run is not replaced.
func TestPublishRefusesLateChange(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	s, err := Stage(dir, hasA)
	if err != nil {
		t.Fatal(err)
	}
	writeA(t, s.Tmp, "new")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if err := s.Publish(); err == nil || !errors.Is(err, framework.ErrBadInput) {
		t.Fatalf("Publish over notes: %v", err)
	}
	if diff := cmp.Diff([]string{"notes.txt"}, names(t, dir)); diff != "" {
		t.Fatal(diff)
	}
	if _, err := os.Stat(s.Tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("staging directory left: %v", err)
	}
}

// TestRemoveDir: RemoveDir moves the directory to a staging name before
// deleting it, so a removal killed half-way leaves no partial directory
// under the old name (TestTrainKilledResumes once found a checkpoint whose
// checkpoint.json listed a topics.bin already deleted), only a leftover
// that Recover removes.
func TestRemoveDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out.checkpoint")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"checkpoint.json", "topics.bin", "sub/x"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveDir(dir); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Fatalf("left beside it: %v", ents)
	}
	if err := RemoveDir(dir); err != nil {
		t.Fatalf("a missing directory: %v", err)
	}

	// Killed after the rename: the leftover is a staging directory, which
	// the next Recover removes; dir itself is gone, not partial.
	defer func(f func(int) bool) { processAlive = f }(processAlive)
	processAlive = func(int) bool { return false }
	left := filepath.Join(parent, tmpPrefix(dir)+"12345-678")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "checkpoint.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	did, err := Recover(dir)
	if err != nil || len(did) != 1 {
		t.Fatalf("Recover: %v, %v", did, err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("Recover brought the removed directory back: %v", err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left after Recover: %v", ents)
	}
}
