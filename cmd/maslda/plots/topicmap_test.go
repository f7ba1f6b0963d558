package plots_test

import (
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/maslda/maslda/cmd/maslda/plots"
)

func dist(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

// TestClassicalMDSEuclidean: the distances of points in the plane are
// reproduced exactly (up to rotation, reflection and translation); a
// point repeated lands on the same spot.
func TestClassicalMDSEuclidean(t *testing.T) {
	pts := [][2]float64{{0, 0}, {3, 0}, {0, 4}, {-2, 1}, {5, 5}, {3, 0}}
	d := make([][]float64, len(pts))
	for i := range pts {
		d[i] = make([]float64, len(pts))
		for j := range pts {
			d[i][j] = dist(pts[i], pts[j])
		}
	}
	xy, err := plots.ClassicalMDS(d)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		for j := range pts {
			if got := dist(xy[i], xy[j]); math.Abs(got-d[i][j]) > 1e-9 {
				t.Errorf("distance %d–%d on the map %.12g, want %.12g", i, j, got, d[i][j])
			}
		}
	}
	if dist(xy[1], xy[5]) > 1e-9 {
		t.Errorf("the repeated point lands at %v and %v", xy[1], xy[5])
	}
}

// TestJSDistances: 0 for identical distributions, 1 for disjoint ones,
// and a hand-computed value: p = (1, 0), q = (½, ½): m = (¾, ¼), JSD =
// ½(log2(4/3)) + ½(½ log2(2/3) + ½ log2(2)) bits.
func TestJSDistances(t *testing.T) {
	p := [][]float64{{1, 0}, {0, 1}, {0.5, 0.5}, {1, 0}}
	d := plots.JSDistances(p)
	want := math.Sqrt(0.5*math.Log2(4.0/3) + 0.5*(0.5*math.Log2(2.0/3)+0.5))
	for _, c := range []struct {
		i, j int
		want float64
	}{{0, 3, 0}, {0, 1, 1}, {0, 2, want}, {2, 0, want}} {
		if math.Abs(d[c.i][c.j]-c.want) > 1e-12 {
			t.Errorf("d[%d][%d] = %.15g, want %.15g", c.i, c.j, d[c.i][c.j], c.want)
		}
	}
}

// TestTopicMapSVG: the map is well-formed XML with one circle and one
// tooltip per topic, escapes its labels and refers to nothing outside.
func TestTopicMapSVG(t *testing.T) {
	xy := [][2]float64{{0, 0}, {1, 0}, {0, 1}}
	s := plots.TopicMapSVG(xy, []float64{0.5, 0.3, 0.2}, []string{"0: a <b>", "1: c & d", "2: e"}, 400, 300)
	dec := xml.NewDecoder(strings.NewReader(s))
	circles, titles := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, s)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "circle":
				circles++
			case "title":
				titles++
			}
		}
	}
	if circles != 3 || titles != 3 {
		t.Errorf("%d circles and %d titles, want 3 each", circles, titles)
	}
	if strings.Contains(s, "<b>") || strings.Contains(s, "href") || strings.Contains(s, "<script") {
		t.Errorf("unescaped label or external reference:\n%s", s)
	}
	// One topic, or topics all alike: no division by zero.
	for _, one := range [][][2]float64{{{0, 0}}, {{1, 1}, {1, 1}}} {
		if s := plots.TopicMapSVG(one, make([]float64, len(one)), nil, 200, 200); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
			t.Errorf("degenerate map: %s", s)
		}
	}
}
