package plots

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTopicMapNumbersDoNotOverlap: 40 small topics crowded into one spot
// (the movie reviews' map at K 50) beside a few large ones: no two numbers
// overlap, the large topics are numbered, and a note counts those left
// out (each keeps its tooltip and its data-topic).
func TestTopicMapNumbersDoNotOverlap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var xy [][2]float64
	var share []float64
	var labels []string
	for k := range 44 {
		if k < 4 {
			xy = append(xy, [2]float64{float64(k) * 0.3, float64(k%2) * 0.3})
			share = append(share, 10)
		} else {
			xy = append(xy, [2]float64{-0.5 + 0.01*r.Float64(), 0.01 * r.Float64()})
			share = append(share, 0.01)
		}
		labels = append(labels, "topic "+strconv.Itoa(k))
	}
	svg := TopicMapSVG(xy, share, labels, 640, 440)
	type box struct{ x0, y0, x1, y1 float64 }
	var boxes []box
	numbered := map[int]bool{}
	for _, m := range regexp.MustCompile(`<text class="topic-num" data-topic="(\d+)" x="([\d.]+)" y="([\d.]+)"[^>]*>(\d+)</text>`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		k, _ := strconv.Atoi(m[1])
		numbered[k] = true
		w := 7.5*float64(len(m[4])) + 2
		boxes = append(boxes, box{x - w/2, y - 6.5, x + w/2, y + 6.5})
	}
	for i, a := range boxes {
		for _, b := range boxes[:i] {
			if a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 {
				t.Fatalf("numbers overlap: %+v and %+v", a, b)
			}
		}
	}
	for k := range 4 {
		if !numbered[k] {
			t.Errorf("large topic %d has no number", k)
		}
	}
	left := 44 - len(boxes)
	if left == 0 || !strings.Contains(svg, fmt.Sprintf(">%d small topics crowd together unnumbered", left)) {
		t.Errorf("%d topics unnumbered; the note is missing or wrong", left)
	}
	if n := strings.Count(svg, `<g class="topic" data-topic=`); n != 44 {
		t.Errorf("%d selectable circles, want 44", n)
	}
}

// TestHistoryOneRun: a single trace has no legend (and no width for one);
// staged training gets a dashed marker with the stage's name.
func TestHistoryOneRun(t *testing.T) {
	h, err := ReadHistory(strings.NewReader("iteration,epoch,rho,elbo,seconds,stage\n1,1,1,-10,0.1,1\n2,2,1,-8,0.2,1\n3,3,1,-7,0.3,2\n4,4,1,-6.5,0.4,2\n"), "history.csv")
	if err != nil {
		t.Fatal(err)
	}
	f, err := HistoryFigure([]Run{{Label: "this model", History: h}}, HistoryOptions{X: []string{"iteration"}, StageName: func(s int) string { return "classifier start" }})
	if err != nil {
		t.Fatal(err)
	}
	if f.Legend != nil {
		t.Error("one run drawn with a legend")
	}
	var b bytes.Buffer
	if err := f.Encode(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "classifier start") {
		t.Error("no stage marker named \"classifier start\"")
	}
	if m := stageMarkers([]float64{1, 2, 3, 4}, []float64{1, 1, 2, 2}, nil); len(m) != 1 || m[0].x != 2.5 || m[0].name != "stage 2" {
		t.Errorf("stageMarkers: %+v", m)
	}
	two, err := HistoryFigure([]Run{{Label: "a", History: h}, {Label: "b", History: h}}, HistoryOptions{X: []string{"iteration"}})
	if err != nil || two.Legend == nil || two.Width <= f.Width {
		t.Errorf("two runs: legend %v, width %v (one run %v), %v", two.Legend != nil, two.Width, f.Width, err)
	}
}

// TestBiasVsPrecisionMany: 500 annotators in one panel of fixed size, ten
// named, and 5 too.
func TestBiasVsPrecisionMany(t *testing.T) {
	for _, n := range []int{5, 500} {
		a := &Annotators{Name: "annotators.json", Kind: KindBiasPrecision}
		for i := range n {
			a.List = append(a.List, Annotator{Name: "w" + strconv.Itoa(i), Answers: 1 + i%37, Bias: float64(i%11)/10 - 0.5, Precision: 0.5 + float64(i%23)})
		}
		f, err := BiasVsPrecisionFigure(a, BiasVsPrecisionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := f.Encode(&b, "svg"); err != nil {
			t.Fatal(err)
		}
		if f.Width > inches(7) || f.Height > inches(5) {
			t.Errorf("%d annotators: %v × %v", n, f.Width, f.Height)
		}
		if want := min(10, n); !strings.Contains(f.Caption, fmt.Sprintf("the %d with the most answers", want)) {
			t.Errorf("%d annotators: caption %q", n, f.Caption)
		}
	}
	if _, err := BiasVsPrecisionFigure(&Annotators{Kind: KindConfusion}, BiasVsPrecisionOptions{}); err == nil {
		t.Error("confusion annotators: no error")
	}
}

// TestOrdinalShiftMany: 100 ordinal-shift annotators: 12 named, no legend
// for the one series of estimates.
func TestOrdinalShiftMany(t *testing.T) {
	a := &Annotators{Name: "annotators.json", Kind: KindOrdinalShift}
	for i := range 100 {
		a.List = append(a.List, Annotator{Name: "w" + strconv.Itoa(i), Answers: i, Shift: float64(i%9)/4 - 1, Stretch: 0.5 + float64(i%7)/6, Precision: 1, Accuracy: 0.5})
	}
	f, err := OrdinalShiftFigure(a, OrdinalShiftOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Legend != nil || !strings.Contains(f.Caption, "100 annotators; named: the 12 with the most answers") {
		t.Errorf("legend %v, caption %q", f.Legend != nil, f.Caption)
	}
	var b bytes.Buffer
	if err := f.Encode(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "> w99<") || strings.Contains(b.String(), "> w3<") {
		t.Error("the most answered annotator is not named, or a rarely answering one is")
	}
}

// TestAccuracyVsAnswers: 500 confusion annotators in one panel, ten named.
func TestAccuracyVsAnswers(t *testing.T) {
	a := &Annotators{Name: "annotators.json", Kind: KindConfusion}
	for i := range 500 {
		acc := 0.3 + float64(i%7)/10
		a.List = append(a.List, Annotator{Name: "w" + strconv.Itoa(i), Answers: 1 + i, Accuracy: acc, Confusion: [][]float64{{acc, 1 - acc}, {1 - acc, acc}}})
	}
	f, err := AccuracyVsAnswersFigure(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Encode(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Title, "500 annotators") || !strings.Contains(f.Caption, "the 10 with the most answers") || !strings.Contains(b.String(), "w499") {
		t.Errorf("title %q, caption %q", f.Title, f.Caption)
	}
}
