package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"strings"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Formats are the output formats Encode accepts.
var Formats = []string{"png", "svg"}

// PNGDPI is the resolution of PNG output.
const PNGDPI = 150

// Size limits of a figure: each side at most MaxSide, the area at most
// MaxArea (at PNGDPI, 40 × 25 inches is 22.5 million pixels, 90 MB of
// RGBA: gonum's image canvas allocates it at once, and a request for
// 100000 × 100000 inches would exhaust memory).
const (
	MaxSide = 200 * vg.Inch
	MaxArea = 1000 * vg.Inch * vg.Inch
)

// CheckSize refuses a figure size beyond MaxSide or MaxArea.
func CheckSize(w, h vg.Length) error {
	if w > MaxSide || h > MaxSide || w*h > MaxArea {
		return fmt.Errorf("%w: figure size %.4g × %.4g inches is too large: at most %g inches a side and %g square inches (%.0f megapixels at %d dpi)",
			framework.ErrBadInput, float64(w/vg.Inch), float64(h/vg.Inch), float64(MaxSide/vg.Inch), float64(MaxArea/vg.Inch/vg.Inch),
			float64(MaxArea/vg.Inch/vg.Inch)*PNGDPI*PNGDPI/1e6, PNGDPI)
	}
	return nil
}

// Figure is a drawing: panels on a grid (rows × columns; a nil panel
// leaves its cell empty), with an optional title above, a legend to the
// right, a colour bar and a caption below.
type Figure struct {
	Width, Height vg.Length
	Title         string
	Panels        [][]*plot.Plot
	Legend        *plot.Legend // drawn in a column to the right of the panels
	ColorBar      *plot.Plot   // drawn in a strip below the panels
	Caption       string       // small text at the bottom (one or more lines)
	PadX          vg.Length    // space between panel columns (0: 14 pt)
}

// Encode draws the figure in format ("png" or "svg") and writes it to w.
func (f *Figure) Encode(w io.Writer, format string) error {
	if f.Width <= 0 || f.Height <= 0 {
		return fmt.Errorf("%w: figure size %v × %v, want positive", framework.ErrBadInput, f.Width, f.Height)
	}
	if err := CheckSize(f.Width, f.Height); err != nil {
		return err
	}
	var c vg.CanvasWriterTo
	switch strings.ToLower(format) {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(PNGDPI))}
	case "svg":
		c = vgsvg.New(f.Width, f.Height)
	default:
		return fmt.Errorf("%w: image format %q; valid: %s", framework.ErrBadInput, format, strings.Join(Formats, ", "))
	}
	if err := f.draw(draw.New(c)); err != nil {
		return err
	}
	if _, ok := c.(*vgsvg.Canvas); !ok {
		_, err := c.WriteTo(w)
		return err
	}
	// SVG names the font the layout was measured with (Liberation Serif);
	// add its metric-compatible equivalents so that viewers without it
	// keep the same text widths.
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif','Times New Roman',Tinos,Times,serif;"))
	_, err := w.Write(out)
	return err
}

// draw lays the figure out on dc. gonum/plot panics on some impossible
// layouts (a canvas too small for its labels); that becomes an error.
func (f *Figure) draw(dc draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: cannot draw the figure at %v × %v (too small for its labels?): %v", framework.ErrBadInput, f.Width, f.Height, r)
		}
	}()
	// White background (PNG is transparent otherwise).
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	pad := vg.Points(6)
	c := dc
	c.Min.X += pad
	c.Max.X -= pad
	c.Min.Y += pad
	c.Max.Y -= pad
	if f.Title != "" {
		sty := textStyle(13)
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YTop
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}, f.Title)
		c.Max.Y -= sty.Height(f.Title) + pad
	}
	if f.Caption != "" {
		sty := textStyle(9)
		sty.XAlign = draw.XLeft
		sty.YAlign = draw.YBottom
		c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Min.Y}, f.Caption)
		c.Min.Y += sty.Height(f.Caption) + pad
	}
	if f.ColorBar != nil {
		h := vg.Points(48)
		bar := c
		bar.Max.Y = c.Min.Y + h
		w := (c.Max.X - c.Min.X) * 0.6
		bar.Min.X = (c.Min.X+c.Max.X)/2 - w/2
		bar.Max.X = bar.Min.X + w
		f.ColorBar.Draw(bar)
		c.Min.Y += h + pad
	}
	if f.Legend != nil {
		r := f.Legend.Rectangle(c)
		w := r.Max.X - r.Min.X + 2*pad
		lc := c
		lc.Min.X = c.Max.X - w + pad
		lc.Max.Y -= vg.Points(20) // level with the top of the panels' data areas
		f.Legend.Draw(lc)
		c.Max.X -= w
	}
	rows := len(f.Panels)
	if rows == 0 {
		return nil
	}
	cols := 0
	for _, r := range f.Panels {
		cols = max(cols, len(r))
	}
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, cols)
		copy(grid[i], f.Panels[i])
	}
	padX := f.PadX
	if padX == 0 {
		padX = vg.Points(14)
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: padX, PadY: vg.Points(14)}
	canvases := plot.Align(grid, tiles, c)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return nil
}

// textStyle is the default font at size points.
func textStyle(size vg.Length) text.Style {
	return text.Style{Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler, Color: color.Black}
}

// newPanel is a plot with the package's common styling.
func newPanel(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 11
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font.Size = 10
	p.Y.Label.TextStyle.Font.Size = 10
	p.X.Tick.Label.Font.Size = 9
	p.Y.Tick.Label.Font.Size = 9
	p.BackgroundColor = nil // the figure paints the background once
	return p
}

// newLegend is a legend with the package's styling.
func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = 10
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	return &l
}

// palette: the Okabe–Ito colours (distinguishable with colour-vision
// deficiencies), then greys.
var lineColors = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{0, 0, 0, 255},       // black
	color.RGBA{240, 228, 66, 255},  // yellow
}

func lineColor(i int) color.Color { return lineColors[i%len(lineColors)] }

var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{},
	draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

func glyph(i int) draw.GlyphDrawer { return glyphs[i%len(glyphs)] }

// dashes cycles after the colours so that lines 9+ still differ.
func dashes(i int) []vg.Length {
	switch (i / len(lineColors)) % 3 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return nil
}

// inches converts a size in inches to a vg.Length.
func inches(x float64) vg.Length { return vg.Length(x) * vg.Inch }
