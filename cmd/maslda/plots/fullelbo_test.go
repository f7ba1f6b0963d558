package plots

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/plotter"
)

// sviFullHistory is an SVI history of epochs × 4 updates whose last
// column elbo_full is set at the last update of every epoch (SVI with
// eval_every = 1), empty elsewhere.
func sviFullHistory(epochs int) string {
	var b strings.Builder
	b.WriteString("iteration,epoch,rho,elbo,seconds,elbo_full\n")
	for i := 1; i <= 4*epochs; i++ {
		full := ""
		if i%4 == 0 {
			full = strconv.Itoa(-200 + i)
		}
		b.WriteString(strings.Join([]string{itoa(i), itoa((i + 3) / 4), "0.5", itoa(-220 + i + 7*(i%3)), itoa(i), full}, ",") + "\n")
	}
	return b.String()
}

func TestTracePoints(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		xv, yv []float64
		want   plotter.XYs
	}{
		{"dense", []float64{1, 2, 3}, []float64{-5, -4, -3}, plotter.XYs{{X: 1, Y: -5}, {X: 2, Y: -4}, {X: 3, Y: -3}}},
		{"empty y cells skipped", []float64{1, 2, 3, 4}, []float64{nan, -4, nan, -2}, plotter.XYs{{X: 2, Y: -4}, {X: 4, Y: -2}}},
		{"empty x cells skipped", []float64{1, nan, 3}, []float64{-5, -4, -3}, plotter.XYs{{X: 1, Y: -5}, {X: 3, Y: -3}}},
		{"nothing", []float64{1, 2}, []float64{nan, nan}, nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tracePoints(tc.xv, tc.yv)); diff != "" {
			t.Errorf("%s: tracePoints (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestMarkPoints(t *testing.T) {
	tests := []struct {
		n, rows int
		want    bool
	}{
		{3, 3, true},    // batch: few points
		{60, 60, true},  // still few
		{61, 61, false}, // a dense SVI trace: a line only
		{1000, 1000, false},
		{100, 400, true},  // elbo_full every epoch of 4 updates
		{100, 200, true},  // values in half the rows
		{100, 199, false}, // in more than half
	}
	for _, tc := range tests {
		if got := markPoints(tc.n, tc.rows); got != tc.want {
			t.Errorf("markPoints(%d, %d) = %v, want %v", tc.n, tc.rows, got, tc.want)
		}
	}
}

// TestHistoryFigureFullELBO: a history's elbo_full column (empty except at
// the epochs' ends) plots against updates, epochs and seconds; a history
// without it is an error naming the file and its columns.
func TestHistoryFigureFullELBO(t *testing.T) {
	full := mustHistory(t, sviFullHistory(25))
	f, err := small(HistoryFigure([]Run{{"svi", full}}, HistoryOptions{X: []string{"iteration", "epoch", "seconds"}, Y: "elbo_full"}))
	if err != nil {
		t.Fatal(err)
	}
	checkImages(t, f)
	if f.Caption != "" {
		t.Errorf("caption %q: elbo_full is not smoothed by default", f.Caption)
	}
	// The epoch axis puts each epoch's last update at the epoch's number.
	ep, _ := full.Column("epoch")
	y, _ := full.Column("elbo_full")
	xys := tracePoints(fractionalEpochs(ep), y)
	if len(xys) != 25 || xys[0] != (plotter.XY{X: 1, Y: -196}) || xys[24] != (plotter.XY{X: 25, Y: -100}) {
		t.Errorf("elbo_full against epochs: %d points from %v to %v, want 25 from {1 -196} to {25 -100}", len(xys), xys[0], xys[len(xys)-1])
	}
	if !markPoints(len(xys), len(ep)) {
		t.Error("elbo_full's points are not marked")
	}
	_, err = HistoryFigure([]Run{{"svi", full}, {"plain", mustHistory(t, sviHistory())}}, HistoryOptions{Y: "elbo_full"})
	if err == nil || !strings.Contains(err.Error(), `h.csv:1: no column "elbo_full"; the header has columns "iteration", "epoch", "rho", "elbo", "seconds"`) {
		t.Errorf("a history without elbo_full: %v", err)
	}
	none := mustHistory(t, "iteration,epoch,rho,elbo,seconds,elbo_full\n1,1,0.5,-10,1,\n2,1,0.5,-9,2,\n")
	if _, err := HistoryFigure([]Run{{"svi", none}}, HistoryOptions{Y: "elbo_full"}); err == nil || !strings.Contains(err.Error(), "no row has both iteration and elbo_full") {
		t.Errorf("elbo_full never evaluated: %v", err)
	}
}
