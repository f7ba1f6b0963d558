package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLabelsAndClasses (issue 30, items 4 and 7) on the command line:
// NFC and NFD spellings of one label give a warning naming both (train,
// simulate); --classes is a file for train, eval and simulate, and a
// comma list is a usage error saying so; a vocabulary that is not UTF-8
// is refused naming file and line; 1_000 is not a number of a gaussian
// answer.
func TestLabelsAndClasses(t *testing.T) {
	f := newFixture(t)
	d := f.dir
	w := func(name, content string) string { return writeFile(t, filepath.Join(d, name), content) }
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	cls := f.config(t, "cls.hcl", "topics {\n k = 2\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 2\n}\n")
	reg := f.config(t, "reg.hcl", "topics {\n k = 2\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n max_iters = 2\n}\n")
	var mixed, numbers, truth strings.Builder
	mixed.WriteString("task,worker,label\n")
	numbers.WriteString("task,worker,label\n")
	truth.WriteString("task,label\n")
	for i := range 130 {
		fmt.Fprintf(&mixed, "%d,w%d,%s\n", i, i%3, []string{nfc, nfd, "tea"}[i%3])
		label := fmt.Sprintf("%d.5", i)
		if i == 4 {
			label = "1_000"
		}
		fmt.Fprintf(&numbers, "%d,w%d,%s\n", i, i%3, label)
		fmt.Fprintf(&truth, "%d,%s\n", i, []string{nfc, nfd}[i%2])
	}
	mixedPath, numbersPath, truthPath := w("mixed.csv", mixed.String()), w("numbers.csv", numbers.String()), w("truth.csv", truth.String())
	badVocab := w("bad-vocab.txt", strings.Replace(string(readFile(t, f.vocab)), "\n", "\n\xe9t\xe9-", 1))
	post := filepath.Join(d, "post.csv")
	w("post.csv", "task,label,p:a,p:b\n0,a,0.9,0.1\n")
	train := func(cfg string, extra ...string) []string {
		return append([]string{"train", "--docs", f.docs, "--config", cfg, "--out", filepath.Join(d, "out"), "--progress", "never", "--log-level", "warn"}, extra...)
	}
	twins := regexp.QuoteMeta(`labels "cafe\u0301", "caf\u00e9" differ only in Unicode normalisation`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // regexp of stderr
	}{
		{"train: NFC and NFD labels", train(cls, "--answers", mixedPath), ExitOK, `mixed\.csv: ` + twins},
		{"simulate: NFC and NFD truth", []string{"simulate", "--truth", truthPath, "--accuracies", "0.9,0.8", "--out", filepath.Join(d, "sim.csv")}, ExitOK, `truth\.csv: ` + twins},
		{"train --classes a list", train(cls, "--answers", mixedPath, "--classes", "tea,coffee"), ExitUsage, `--classes tea,coffee: no such file; --classes names a file with one class per line`},
		{"eval --classes a list", []string{"eval", "--pred", post, "--truth-column", f.ids, "--classes", "a,b"}, ExitUsage, `--classes a,b: no such file; --classes names a file`},
		{"simulate --classes a list", []string{"simulate", "--truth", truthPath, "--accuracies", "0.9", "--classes", "x,y", "--out", filepath.Join(d, "sim2.csv")}, ExitUsage, `--classes x,y: no such file`},
		{"train: vocabulary not UTF-8", []string{"train", "--docs", f.docs, "--vocab", badVocab, "--out", filepath.Join(d, "out2")}, ExitError, `bad-vocab\.txt:2: term "\\xe9t\\xe9-.*" is not valid UTF-8 \(byte 0xe9 at byte 1\)`},
		{"train: 1_000 under gaussian", train(reg, "--answers", numbersPath), ExitError, `numbers\.csv:6: label "1_000" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.args...)
			if r.code != tc.code || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and /%s/", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
}
