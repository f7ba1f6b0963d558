package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTrainResume: `train --checkpoint-every N` interrupted after update k
// (before, at and after the classifier start, which is at update 2) saves
// OUT.checkpoint and exits 130; `train --resume` then ends with the same
// files as the uninterrupted run, byte for byte (history.csv but its
// seconds), and removes the checkpoint. A checkpoint of another run is
// refused. The two-stage schedule resumes in either stage. Under SVI (3 updates an
// epoch, the start after the second) the same holds for k inside an epoch,
// at its end, and before, at and after the start.
func TestTrainResume(t *testing.T) {
	f := newFixture(t)
	truth, answers := f.crowd(t)
	const maslda = "topics {\n  k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n  start_iters = 2\n}\n"
	cfg := f.config(t, "c.hcl", maslda+"inference \"batch\" {\n  max_iters = 6\n  tol = 0\n}\n")
	args := func(out string, extra ...string) []string {
		return append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--ids", f.ids, "--answers", answers, "--truth", truth,
			"--config", cfg, "--out", filepath.Join(f.dir, out), "--log-level", "warn", "--progress", "never"}, extra...)
	}
	t.Cleanup(func() { checkpointTestHook = nil })
	checkResumes(t, f.dir, args, "batch", []int{1, 2, 3, 5})
	svi := f.config(t, "svi.hcl", maslda+"inference \"svi\" {\n  batch_size = 50\n  epochs = 4\n  tol = 0\n}\n")
	sviArgs := func(out string, extra ...string) []string {
		a := args(out, extra...)
		a[slices.Index(a, "--config")+1] = svi
		return a
	}
	checkResumes(t, f.dir, sviArgs, "svi", []int{1, 5, 6, 7, 11})

	// Another seed: refused, the checkpoint kept.
	ctx, cancel := context.WithCancel(context.Background())
	checkpointTestHook = func(iter int) { cancel() }
	r := runCtx(t, ctx, nil, args("other", "--checkpoint-every", "100")...)
	checkpointTestHook = nil
	cancel()
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = run(t, args("other", "--resume", "--seed", "77")...)
	if r.code != ExitError || !strings.Contains(r.stderr, "another configuration, seed or inputs") {
		t.Errorf("resume with another seed: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := run(t, args("nothing", "--resume")...); r.code != ExitError || !strings.Contains(r.stderr, "no checkpoint") {
		t.Errorf("resume without a checkpoint: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// The two-stage schedule (stage 1 the topics, updates 1–3; stage 2
	// the response on frozen φ, updates 4–6).
	two := f.config(t, "two.hcl", "topics {\n  k = 3\n}\nresponse \"logreg\" {}\nannotators \"confusion\" {}\n"+
		"inference \"two-stage\" {\n  topics_iters = 3\n  topics_tol = 0\n  response_iters = 3\n  response_tol = 0\n}\n")
	twoArgs := func(out string, extra ...string) []string {
		a := args(out, extra...)
		a[slices.Index(a, "--config")+1] = two
		return a
	}
	checkResumes(t, f.dir, twoArgs, "two-stage", []int{2, 4})
}

// withoutSeconds drops history.csv's column "seconds".
func withoutSeconds(rows [][]string) [][]string {
	col := slices.Index(rows[0], "seconds")
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = slices.Delete(slices.Clone(r), col, col+1)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkResumes runs the command args(out) uninterrupted, then for each k
// interrupted after update k (exit 130, the checkpoint named) and resumed:
// every file but model.json equals the uninterrupted run's, history.csv
// but its seconds, and the checkpoint is removed. For the first k the
// checkpoint is first moved aside as a save killed between its two renames
// leaves it: --resume puts it back.
func checkResumes(t *testing.T, dir string, args func(out string, extra ...string) []string, sched string, ks []int) {
	t.Helper()
	full := sched + "-full"
	mustRun(t, args(full)...)
	want := dirFiles(t, filepath.Join(dir, full))
	wantHist := withoutSeconds(readCSV(t, filepath.Join(dir, full, "history.csv")))
	for _, k := range ks {
		out := sched + "-resumed" + strconv.Itoa(k)
		ctx, cancel := context.WithCancel(context.Background())
		checkpointTestHook = func(iter int) {
			if iter == k {
				cancel()
			}
		}
		r := runCtx(t, ctx, nil, args(out, "--checkpoint-every", "100")...)
		cancel()
		checkpointTestHook = nil
		if r.code != ExitInterrupted || !strings.Contains(r.stderr, "interrupted after update "+strconv.Itoa(k)) || !strings.Contains(r.stderr, "--resume") {
			t.Fatalf("%s, k = %d: exit %d, stderr:\n%s\nwant 130 and the checkpoint named", sched, k, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, out)); !os.IsNotExist(err) {
			t.Errorf("%s, k = %d: %s exists after the interrupt (%v)", sched, k, out, err)
		}
		if k == ks[0] { // as a save killed between its renames leaves it
			cp := filepath.Join(dir, out+".checkpoint")
			if err := os.Rename(cp, filepath.Join(dir, "."+out+".checkpoint.tmp-x-1.old")); err != nil {
				t.Fatal(err)
			}
		}
		mustRun(t, args(out, "--resume", "--checkpoint-every", "2")...)
		got := dirFiles(t, filepath.Join(dir, out))
		for name, sum := range want {
			if name != "history.csv" && name != "model.json" && got[name] != sum {
				t.Errorf("%s, k = %d: %s differs from the uninterrupted run's", sched, k, name)
			}
		}
		if !slices.Equal(sortedKeys(want), sortedKeys(got)) {
			t.Errorf("%s, k = %d: files %v, want %v", sched, k, sortedKeys(got), sortedKeys(want))
		}
		if gotHist := withoutSeconds(readCSV(t, filepath.Join(dir, out, "history.csv"))); !slices.EqualFunc(wantHist, gotHist, slices.Equal) {
			t.Errorf("%s, k = %d: history.csv\n%v\nwant\n%v", sched, k, gotHist, wantHist)
		}
		if _, err := os.Stat(filepath.Join(dir, out+".checkpoint")); !os.IsNotExist(err) {
			t.Errorf("%s, k = %d: the checkpoint is left after the resumed run (%v)", sched, k, err)
		}
	}
}
