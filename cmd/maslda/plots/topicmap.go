package plots

import (
	"fmt"
	"html"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// JSDistances returns the Jensen–Shannon distances between the rows of
// p (probability vectors of one length): d_ij = √JSD(p_i ‖ p_j) with
// JSD(p‖q) = ½KL(p‖m) + ½KL(q‖m), m = (p + q)/2, in bits, so 0 ≤ d ≤ 1
// and d is a metric (Endres & Schindelin 2003).
func JSDistances(p [][]float64) [][]float64 {
	n := len(p)
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			js := 0.0
			for v, a := range p[i] {
				b := p[j][v]
				m := (a + b) / 2
				if a > 0 {
					js += a * math.Log2(a/m)
				}
				if b > 0 {
					js += b * math.Log2(b/m)
				}
			}
			x := math.Sqrt(math.Max(0, js/2))
			d[i][j], d[j][i] = x, x
		}
	}
	return d
}

// ClassicalMDS places n points in the plane from their distances d (n×n,
// symmetric, zero diagonal) by classical multidimensional scaling
// (Torgerson 1952, principal coordinates): B = −½·J·D²·J with J = I −
// 11ᵀ/n, and the coordinates are the two leading eigenvectors of B scaled
// by the square roots of their eigenvalues (a negative eigenvalue, from
// distances that are not Euclidean, counts as 0). When d is the distance
// matrix of points in the plane the result reproduces it exactly, up to a
// rotation, a reflection and a translation (the centroid is at 0).
func ClassicalMDS(d [][]float64) ([][2]float64, error) {
	n := len(d)
	out := make([][2]float64, n)
	if n <= 1 {
		return out, nil
	}
	for i := range d {
		if len(d[i]) != n {
			return nil, fmt.Errorf("ClassicalMDS: row %d has %d distances, want %d", i, len(d[i]), n)
		}
	}
	sq := make([]float64, n*n)
	for i := range n {
		for j := range n {
			sq[i*n+j] = d[i][j] * d[i][j]
		}
	}
	rowMean := make([]float64, n)
	all := 0.0
	for i := range n {
		for j := range n {
			rowMean[i] += sq[i*n+j]
		}
		all += rowMean[i]
		rowMean[i] /= float64(n)
	}
	all /= float64(n * n)
	b := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, -0.5*(sq[i*n+j]-rowMean[i]-rowMean[j]+all))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(b, true) {
		return nil, fmt.Errorf("ClassicalMDS: the eigendecomposition failed")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	for axis := range 2 {
		col := n - 1 - axis
		if col < 0 {
			break
		}
		s := math.Sqrt(math.Max(0, vals[col]))
		// A deterministic sign: the largest coordinate is positive.
		sign, big := 1.0, 0.0
		for i := range n {
			if v := vecs.At(i, col); math.Abs(v) > big+1e-12 {
				big, sign = math.Abs(v), math.Copysign(1, v)
			}
		}
		for i := range n {
			out[i][axis] = sign * s * vecs.At(i, col)
		}
	}
	return out, nil
}

// TopicMapSVG draws the intertopic distance map (as pyLDAvis does):
// topic k at xy[k], a circle whose area is proportional to share[k] (its
// share of the corpus's words; equal sizes when every share is 0),
// numbered where the number does not overlap another (the rest are
// counted in a note), with labels[k] as its tooltip (an SVG <title>); each
// circle is a <g class="topic" data-topic="k"> that a page's script may
// select. It returns a self-contained <svg> element of the given size in
// pixels, with no scripts and no external references.
func TopicMapSVG(xy [][2]float64, share []float64, labels []string, width, height int) string {
	const margin = 50.0
	maxR := math.Min(float64(width), float64(height)) / 10
	total := 0.0
	for _, s := range share {
		total += math.Max(0, s)
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range xy {
		minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
		minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
	}
	// One scale for both axes, so distances on the page are the map's.
	span := math.Max(maxX-minX, maxY-minY)
	scale := 0.0
	if span > 1e-12 {
		scale = math.Min(float64(width)-2*margin, float64(height)-2*margin) / span
	}
	cx, cy := (minX+maxX)/2, (minY+maxY)/2
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="intertopic distance map">`, width, height, width, height)
	fmt.Fprintf(&b, `<rect x="0.5" y="0.5" width="%d" height="%d" fill="#fff" stroke="#ccc"/>`, width-1, height-1)
	fmt.Fprintf(&b, `<line x1="%d" y1="%g" x2="%d" y2="%g" stroke="#ddd"/><line x1="%g" y1="0" x2="%g" y2="%d" stroke="#ddd"/>`,
		0, float64(height)/2, width, float64(height)/2, float64(width)/2, float64(width)/2, height)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#777">PC1</text><text x="%g" y="14" font-size="11" fill="#777">PC2</text>`, width-30, height/2-4, float64(width)/2+4)
	// Largest first, so that small circles stay visible on top.
	order := make([]int, len(xy))
	for i := range order {
		order[i] = i
	}
	r := func(k int) float64 {
		if total <= 0 {
			return maxR / 2
		}
		return math.Max(3, maxR*math.Sqrt(math.Max(0, share[k])/total*float64(len(xy))/4))
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && r(order[j]) > r(order[j-1]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	type box struct{ x0, y0, x1, y1 float64 }
	pos := make([][2]float64, len(xy))
	for _, k := range order {
		x := float64(width)/2 + scale*(xy[k][0]-cx)
		y := float64(height)/2 - scale*(xy[k][1]-cy)
		pos[k] = [2]float64{x, y}
		label := fmt.Sprint(k)
		if k < len(labels) {
			label = labels[k]
		}
		fmt.Fprintf(&b, `<g class="topic" data-topic="%d"><title>%s</title><circle cx="%.2f" cy="%.2f" r="%.2f" fill="#4c78a8" fill-opacity="0.35" stroke="#2b4c7e"/></g>`,
			k, html.EscapeString(label), x, y, r(k))
	}
	// The numbers, largest topic first, each where it overlaps no number
	// already placed: inside its circle, else beside it; a number that
	// fits nowhere is left out (its circle's tooltip still names it), so
	// that the numbers of small, close topics do not pile into a blob.
	var placed []box
	free := func(c box) bool {
		if c.x0 < 0 || c.y0 < 0 || c.x1 > float64(width) || c.y1 > float64(height) {
			return false
		}
		for _, p := range placed {
			if c.x0 < p.x1 && p.x0 < c.x1 && c.y0 < p.y1 && p.y0 < c.y1 {
				return false
			}
		}
		return true
	}
	skipped := 0
	for _, k := range order {
		text := fmt.Sprint(k)
		w, h := 7.5*float64(len(text))+2, 13.0
		x, y, rad := pos[k][0], pos[k][1], r(k)
		cands := [][2]float64{{x, y}, {x + rad + w/2 + 1, y}, {x - rad - w/2 - 1, y}, {x, y - rad - h/2 - 1}, {x, y + rad + h/2 + 1},
			{x + 0.7*rad + w/2, y - 0.7*rad - h/2}, {x - 0.7*rad - w/2, y - 0.7*rad - h/2}, {x + 0.7*rad + w/2, y + 0.7*rad + h/2}, {x - 0.7*rad - w/2, y + 0.7*rad + h/2}}
		done := false
		for _, c := range cands {
			bx := box{c[0] - w/2, c[1] - h/2, c[0] + w/2, c[1] + h/2}
			if !free(bx) {
				continue
			}
			placed = append(placed, bx)
			fmt.Fprintf(&b, `<text class="topic-num" data-topic="%d" x="%.2f" y="%.2f" font-size="12" text-anchor="middle" dominant-baseline="central" fill="#123">%s</text>`, k, c[0], c[1], text)
			done = true
			break
		}
		if !done {
			skipped++
		}
	}
	if skipped > 0 {
		fmt.Fprintf(&b, `<text x="8" y="%d" font-size="11" fill="#777">%d small topics crowd together unnumbered: hover over a circle for its topic</text>`, height-8, skipped)
	}
	b.WriteString(`</svg>`)
	return b.String()
}
