package cli

import (
	"encoding/json"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTrainKilledResumes: `maslda train --checkpoint-every 1`, run as a
// child process (this test binary as maslda, TestMain) over an --out that
// holds an older model, is killed with SIGKILL after a random delay
// (seeded, up to 1.4 times an uninterrupted child run: from before the
// first checkpoint to after the end of the run),
// under batch EM (with and without restarts: killed in the restart phase
// too), SVI, the classifier start inside each, and two-stage. At every kill --out holds the old model or the
// new complete one, byte for byte; then `train --resume` (or, when no
// checkpoint was saved yet or the run had ended, the command afresh) ends
// with the uninterrupted run's files: every file byte for byte but
// history.csv's seconds and model.json's checksum of history.csv.
func TestTrainKilledResumes(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	f := newFixture(t)
	truth, answers := f.crowd(t)
	const maslda = "topics {\n  k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n  start_iters = 2\n}\n"
	points := 1 // 4 with MASLDA_LONG=1 (.ci/run's long pass)
	if os.Getenv(race.LongEnv) == "1" {
		points = 4
	}
	rng := rand.New(rand.NewPCG(14, 2026))
	var oldFiles map[string]string
	for _, sc := range []struct{ name, inference string }{
		{"batch", "inference \"batch\" {\n  max_iters = 25\n  tol = 0\n}\n"},
		{"restarts", "inference \"batch\" {\n  max_iters = 20\n  tol = 0\n}\n"},
		{"svi", "inference \"svi\" {\n  batch_size = 50\n  epochs = 8\n  tol = 0\n}\n"},
		{"two-stage", "inference \"two-stage\" {\n  topics_iters = 12\n  topics_tol = 0\n  response_iters = 12\n  response_tol = 0\n}\n"},
	} {
		src := maslda + sc.inference
		switch sc.name {
		case "restarts": // the restart phase, then the classifier start
			src = "restarts = 3\nrestart_iters = 2\n" + src
		case "two-stage": // lda+raykar's: topics, then the response on frozen φ
			src = "topics {\n  k = 3\n}\nresponse \"logreg\" {}\nannotators \"confusion\" {\n  estimate = \"point\"\n}\n" + sc.inference
		}
		cfg := f.config(t, sc.name+".hcl", src)
		args := func(out string, extra ...string) []string {
			return append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--ids", f.ids, "--answers", answers, "--truth", truth,
				"--config", cfg, "--out", filepath.Join(f.dir, out), "--log-level", "warn", "--progress", "never"}, extra...)
		}
		full := sc.name + "-full"
		mustRun(t, args(full)...)
		want := comparable(t, filepath.Join(f.dir, full))
		if oldFiles == nil { // an older model: the first schedule's, another seed
			mustRun(t, args("old", "--seed", "99")...)
			oldFiles = dirFiles(t, filepath.Join(f.dir, "old"))
		}

		// The duration of an uninterrupted child run with checkpoints.
		t0 := time.Now()
		if out, err := child(args(sc.name+"-timed", "--checkpoint-every", "1")...).CombinedOutput(); err != nil {
			t.Fatalf("%s: the child run: %v\n%s", sc.name, err, out)
		}
		span := time.Since(t0)

		for i := range points {
			out := sc.name + "-killed" + strconv.Itoa(i)
			dir := filepath.Join(f.dir, out)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, b := range oldFiles {
				writeFile(t, filepath.Join(dir, name), b)
			}
			delay := time.Duration(rng.Float64() * 1.4 * float64(span))
			cmd := child(args(out, "--checkpoint-every", "1")...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(delay)
			_ = cmd.Process.Kill() // SIGKILL; the run may have ended already
			_ = cmd.Wait()

			at := dirFiles(t, dir)
			isOld := maps.Equal(at, oldFiles)
			if !isOld && !maps.EqualFunc(comparable(t, dir), want, slices.Equal) {
				t.Fatalf("%s, killed after %v of %v: %s holds neither the old model nor the new one: %v", sc.name, delay, span, out, sortedKeys(at))
			}
			r := run(t, args(out, "--resume", "--checkpoint-every", "1")...)
			resumed := r.code == ExitOK
			if !resumed {
				if !strings.Contains(r.stderr, "no checkpoint to resume from") {
					t.Fatalf("%s, killed after %v: --resume: exit %d, stderr:\n%s", sc.name, delay, r.code, r.stderr)
				}
				mustRun(t, args(out, "--checkpoint-every", "1")...)
			}
			t.Logf("%s: killed after %v of %v (old model in --out: %v), resumed: %v", sc.name, delay.Round(time.Millisecond), span.Round(time.Millisecond), isOld, resumed)
			if got := comparable(t, dir); !maps.EqualFunc(got, want, slices.Equal) {
				for name := range want {
					if !slices.Equal(got[name], want[name]) {
						t.Errorf("%s, killed after %v (resumed %v): %s differs from the uninterrupted run's", sc.name, delay, resumed, name)
					}
				}
				t.Fatalf("%s: files %v, want %v", sc.name, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			if _, err := os.Stat(dir + ".checkpoint"); !os.IsNotExist(err) {
				t.Errorf("%s, killed after %v: the checkpoint is left after the run (%v)", sc.name, delay, err)
			}
		}
	}
}

// child is maslda as a child process (this test binary, TestMain).
func child(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv...)
	return cmd
}

// comparable is a model directory's files as what a resumed run must
// reproduce: history.csv without its seconds, model.json without the
// checksum of history.csv; every other file as it is.
func comparable(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, b := range dirFiles(t, dir) {
		switch name {
		case "history.csv":
			for _, row := range withoutSeconds(readCSV(t, filepath.Join(dir, name))) {
				out[name] = append(out[name], strings.Join(row, ","))
			}
		case "model.json":
			var m map[string]any
			if err := json.Unmarshal([]byte(b), &m); err != nil {
				t.Fatalf("%s: %v", filepath.Join(dir, name), err)
			}
			if files, ok := m["files"].(map[string]any); ok {
				delete(files, "history.csv")
			}
			js, _ := json.Marshal(m)
			out[name] = []string{string(js)}
		default:
			out[name] = []string{b}
		}
	}
	return out
}
