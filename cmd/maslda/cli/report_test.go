package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// reportModels trains the three kinds of model the report describes: a
// classification model (softmax + confusion), a regression model
// (gaussian + bias-precision), both with a truth, and plain LDA.
func reportModels(t *testing.T) (f *fixture, dirs map[string]string) {
	t.Helper()
	f = newFixture(t)
	var cls, num strings.Builder
	cls.WriteString("task,label\n")
	num.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		cls.WriteString(id + "," + []string{"x", "y", "z"}[i%3] + "\n")
		num.WriteString(id + "," + strconv.Itoa(i%5) + "\n")
	}
	truthC := writeFile(t, filepath.Join(f.dir, "truth-c.csv"), cls.String())
	truthR := writeFile(t, filepath.Join(f.dir, "truth-r.csv"), num.String())
	ansC, ansR := filepath.Join(f.dir, "answers-c.csv"), filepath.Join(f.dir, "answers-r.csv")
	mustRun(t, "simulate", "--truth", truthC, "--accuracies", "0.9,0.6,0.4", "--per-doc", "2", "--out", ansC, "--log-level", "warn")
	mustRun(t, "simulate", "--truth", truthR, "--bias", "0,0.5", "--precision", "4,1", "--per-doc", "0", "--out", ansR, "--log-level", "warn")
	dirs = map[string]string{"lda": f.train(t, "lda")}
	for _, tc := range []struct{ name, resp, ann, answers, truth string }{
		{"classification", "softmax", "confusion", ansC, truthC},
		{"regression", "gaussian", "bias-precision", ansR, truthR},
	} {
		cfg := "topics {\n k = 3\n}\nresponse \"" + tc.resp + "\" {}\nannotators \"" + tc.ann + "\" {}\ninference \"batch\" {\n max_iters = 5\n}\n"
		out := filepath.Join(f.dir, tc.name)
		mustRun(t, "train", "--docs", f.docs, "--ids", f.ids, "--vocab", f.vocab, "--config", f.config(t, tc.name+".hcl", cfg),
			"--answers", tc.answers, "--truth", tc.truth, "--out", out, "--log-level", "warn", "--progress", "never")
		dirs[tc.name] = out
	}
	return f, dirs
}

// externalRef finds a reference to a resource outside the page.
var externalRef = regexp.MustCompile(`(?i)<script[^>]*\bsrc\s*=|<link[^>]*\bhref\s*=|<img[^>]*\bsrc\s*=\s*["']?(https?:|//)|url\(\s*["']?(https?:|//)|@import`)

// checkReportHTML checks what every report holds: the sections, the
// figures as well-formed inline SVG, and no external resource.
func checkReportHTML(t *testing.T, page string, sections ...string) {
	t.Helper()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
		t.Errorf("not a whole HTML page: starts %.40q", page)
	}
	for _, s := range sections {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("external resource reference %q", m)
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(page, -1)
	if len(svgs) == 0 {
		t.Errorf("no inline SVG figure")
	}
	for i, s := range svgs {
		d := xml.NewDecoder(strings.NewReader(s))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("SVG %d is not well-formed XML: %v", i, err)
				break
			}
		}
	}
}

func TestReport(t *testing.T) {
	f, dirs := reportModels(t)
	common := []string{`<section id="metrics">`, `<section id="elbo">`, `<section id="topics">`, `<section id="annotators">`, `<section id="response">`,
		"final ELBO", "iterations", "share of words", "Intertopic distance map"}
	for _, tc := range []struct {
		name string
		want []string
		not  []string
	}{
		{"classification", []string{"truth_accuracy", "by estimated accuracy", `<table class="heat">`, "<th>x</th><th>y</th><th>z</th>", "one column per class", "softmax"},
			[]string{"no annotator model", "no response"}},
		{"regression", []string{"truth_r2", "Staged training: the updates of every stage in order", "by estimated precision", "bias ", "<th>weight</th>", "gaussian", "sigma2"},
			[]string{"no annotator model", "no response", `<table class="heat">`}},
		{"lda", []string{"plain LDA", "This model has no annotator model", "This model has no response (plain LDA)"},
			[]string{"<th>annotator</th>", "truth_"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(f.dir, tc.name+".html")
			mustRun(t, "report", "--model", dirs[tc.name], "--out", out, "--log-level", "warn")
			page := string(readFile(t, out))
			checkReportHTML(t, page, append(common, tc.want...)...)
			for _, s := range tc.not {
				if strings.Contains(page, s) {
					t.Errorf("the page holds %q", s)
				}
			}
			// every topic with its top words (the vocabulary's names)
			for k := 0; k < 3; k++ {
				if !strings.Contains(page, `<td class="num">`+strconv.Itoa(k)+`</td>`) {
					t.Errorf("no row for topic %d", k)
				}
			}
			// the intertopic map: one circle and tooltip per topic
			if m := regexp.MustCompile(`(?s)<svg[^>]*aria-label="intertopic distance map">.*?</svg>`).FindString(page); strings.Count(m, "<circle") != 3 ||
				!regexp.MustCompile(`<title>0: w\d+ w\d+ w\d+ \(\d+\.\d% of the words\)</title>`).MatchString(m) {
				t.Errorf("intertopic map with %d circles, want 3 with tooltips:\n%s", strings.Count(m, "<circle"), m)
			}
			if !regexp.MustCompile(`<span>w\d+ <small>0\.\d{3}</small></span>`).MatchString(page) {
				t.Errorf("no top word with its probability")
			}
			// rerunning replaces the report
			mustRun(t, "report", "--model", dirs[tc.name], "--out", out, "--log-level", "warn")
		})
	}
	t.Run("annotators sorted", func(t *testing.T) {
		page := string(readFile(t, filepath.Join(f.dir, "classification.html")))
		// a0 (accuracy 0.9) before a1 (0.6) before a2 (0.4)
		i0, i1, i2 := strings.Index(page, "<tr><td>a0</td>"), strings.Index(page, "<tr><td>a1</td>"), strings.Index(page, "<tr><td>a2</td>")
		if i0 < 0 || i1 < 0 || i2 < 0 || !(i0 < i1 && i1 < i2) {
			t.Errorf("annotator rows at %d, %d, %d: want a0, a1, a2 in order", i0, i1, i2)
		}
	})
	t.Run("without annotators.json", func(t *testing.T) {
		// the annotator model's own report stands in for the files
		// (a model saved by demo has none).
		src, dir := filepath.Join(f.dir, "classification"), filepath.Join(f.dir, "nofiles")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, data := range dirFiles(t, src) {
			if n != "annotators.json" && n != "annotators.csv" {
				writeFile(t, filepath.Join(dir, n), data)
			}
		}
		var man map[string]any
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "model.json")), &man); err != nil {
			t.Fatal(err)
		}
		files := man["files"].(map[string]any)
		delete(files, "annotators.json")
		delete(files, "annotators.csv")
		data, err := json.Marshal(man)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "model.json"), string(data))
		out := filepath.Join(f.dir, "nofiles.html")
		mustRun(t, "report", "--model", dir, "--out", out, "--log-level", "warn")
		checkReportHTML(t, string(readFile(t, out)), "by estimated accuracy", `<table class="heat">`)
	})
}

func TestReportErrors(t *testing.T) {
	f := newFixture(t)
	model := f.train(t, "lda")
	notes := writeFile(t, filepath.Join(f.dir, "notes.txt"), "my notes\n")
	notModel, aDir := filepath.Join(f.dir, "notmodel"), filepath.Join(f.dir, "adir")
	for _, d := range []string{notModel, aDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report", "--model", model}, ExitUsage, "missing --out"},
		{[]string{"report", "--out", "x.html"}, ExitUsage, "missing --model"},
		{[]string{"report", "--model", model, "--out", filepath.Join(f.dir, "r.html"), "--top", "0"}, ExitUsage, "--top 0"},
		{[]string{"report", "--model", model, "--out", notes}, ExitError, "not an HTML file"},
		{[]string{"report", "--model", notModel, "--out", filepath.Join(f.dir, "r.html")}, ExitError, "not a trained model"},
		{[]string{"report", "--model", model, "--out", aDir}, ExitError, "is a directory"},
		{[]string{"report", "--model", model, "--out", filepath.Join(model, "r.html")}, ExitUsage, "is inside --model"},
	} {
		r := run(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, tc.code, tc.msg)
		}
	}
	if got := string(readFile(t, notes)); got != "my notes\n" {
		t.Errorf("the refused file changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "r.html")); err == nil {
		t.Errorf("a failed report left r.html")
	}
}

// TestReportChromium opens the reports in headless Chromium and checks
// that the rendered DOM has every section (skipped without chromium).
func TestReportChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not found on PATH (apt-get install chromium): the headless rendering check is skipped")
	}
	if testing.Short() {
		t.Skip("-short: the headless Chromium check is skipped")
	}
	f, dirs := reportModels(t)
	// render loads a page headless and returns its DOM and the console
	// messages Chromium logged (--enable-logging=stderr: lines with
	// "CONSOLE").
	render := func(name, path string) (dom string, console []string) {
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+abs)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: chromium --dump-dom: %v\n%s", name, err, stderr.String())
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(line, "CONSOLE") {
				console = append(console, line)
			}
		}
		return stdout.String(), console
	}
	// The check sees console errors: a page that logs one is caught.
	bad := writeFile(t, filepath.Join(f.dir, "bad.html"), `<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>`)
	if _, console := render("control", bad); len(console) == 0 {
		t.Fatalf("a page calling console.error logged nothing: the console check cannot see errors")
	}
	for _, name := range []string{"classification", "regression", "lda"} {
		out := filepath.Join(f.dir, name+".html")
		mustRun(t, "report", "--model", dirs[name], "--out", out, "--log-level", "warn")
		dom, console := render(name, out)
		if len(console) > 0 {
			t.Errorf("%s: console messages while rendering:\n%s", name, strings.Join(console, "\n"))
		}
		for _, s := range []string{`<section id="metrics">`, `<section id="elbo">`, `<section id="topics">`, `<section id="annotators">`, `<section id="response">`, "<svg", "ELBO trace", "intertopic distance map"} {
			if !strings.Contains(dom, s) {
				t.Errorf("%s: the rendered DOM lacks %q", name, s)
			}
		}
		// The topic explorer ran: its bars are in the DOM, one topic chosen.
		if n := strings.Count(dom, `class="bar"`); n == 0 || n > 20 {
			t.Errorf("%s: the topic explorer drew %d bars", name, n)
		}
		if !strings.Contains(dom, `class="topic chosen"`) {
			t.Errorf("%s: no topic of the map is marked chosen", name)
		}
		if name == "classification" && !strings.Contains(dom, `class="heat"`) {
			t.Errorf("%s: the rendered DOM has no confusion heat map", name)
		}
	}
}
