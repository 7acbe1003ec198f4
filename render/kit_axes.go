// Panels and their axes: fonts, grids, categories, value ranges and ticks that label round numbers.

package render

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// newPlot is a panel with the figures' fonts and ticks that label round
// numbers.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(panelSize, true)
	p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
	p.Title.Padding = vg.Points(4)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle = textStyle(labelSize, false)
		ax.Label.TextStyle.XAlign, ax.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom
		ax.Label.Padding = vg.Points(3)
		align := ax.Tick.Label
		ax.Tick.Label = textStyle(tickSize, false)
		ax.Tick.Label.XAlign, ax.Tick.Label.YAlign = align.XAlign, align.YAlign
		ax.Tick.Length = vg.Points(4)
		ax.Tick.Marker = linearTicks{}
		ax.Padding = vg.Points(3)
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	return p
}

// addGrid adds light grid lines at the labelled ticks of the value axis:
// the y axis, or the x axis when vertical.
func addGrid(p *plot.Plot, vertical bool) {
	g := plotter.NewGrid()
	sty := draw.LineStyle{Color: gridColor, Width: vg.Points(0.6)}
	g.Vertical, g.Horizontal = draw.LineStyle{}, sty
	if vertical {
		g.Vertical, g.Horizontal = sty, draw.LineStyle{}
	}
	p.Add(g)
}

// categories makes ax show names at 0, 1, 2... On a horizontal axis about
// width long, names that would crowd are thinned out when they are
// numbers (every k-th is labelled) and slanted otherwise.
func categories(ax *plot.Axis, names []string, width vg.Length) {
	ticks := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	ax.Tick.Marker = ticks
	ax.Min, ax.Max = -0.5, float64(len(names))-0.5
	if width <= 0 || len(names) == 0 {
		return
	}
	need, slot, numbers := crowding(ax.Tick.Label, names, width)
	if need <= slot {
		return
	}
	if numbers {
		k := int(math.Ceil(float64(need / slot)))
		for i := range ticks {
			if i%k != 0 {
				ticks[i].Label = ""
			}
		}
		return
	}
	ax.Tick.Label.Rotation = math.Pi / 6
	ax.Tick.Label.XAlign, ax.Tick.Label.YAlign = draw.XRight, draw.YTop
}

// crowding is the room the widest of names needs on a horizontal axis
// about width long, the room each has, and whether all are numbers.
func crowding(ts text.Style, names []string, width vg.Length) (need, slot vg.Length, numbers bool) {
	var widest vg.Length
	numbers = true
	for _, n := range names {
		widest = max(widest, ts.Width(n))
		_, err := strconv.Atoi(n)
		numbers = numbers && err == nil
	}
	return widest + vg.Points(6), width / vg.Length(max(1, len(names))), numbers
}

// Widths of the data area a panel has, for categories: a figure's one
// panel, and one of three side by side.
const (
	fullWidth  = figureWidth - 80
	thirdWidth = (figureWidth-60)/3 - 40
)

// valueRange sets ax to show values from lo to hi: from 0 unless that
// would squash them into the top of the panel.
func valueRange(ax *plot.Axis, lo, hi float64) {
	switch {
	case !(hi > 0) || math.IsInf(hi, 0):
		ax.Min, ax.Max = 0, 1
	case lo > 0.6*hi:
		pad := (hi - lo) * 0.15
		if pad == 0 {
			pad = hi * 0.05
		}
		ax.Min, ax.Max = lo-pad, hi+pad
	default:
		ax.Min, ax.Max = 0, hi*1.08
	}
}

// linearTicks labels about six round values.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 1, math.Abs(lo))}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	top := math.Max(math.Abs(lo), math.Abs(hi))
	ms := []float64{1, 2, 5}
	if mag >= 10 && top < 1e4 {
		ms = []float64{1, 2, 2.5, 5} // 250, 500, 750: whole numbers
	}
	step := 10 * mag
	for _, m := range ms {
		if m*mag >= raw*0.999 {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v, step, top)})
	}
	return ticks
}

// formatTick writes v with as many decimals as step needs, in thousands
// (k) or millions (M) when the axis reaches 10,000.
func formatTick(v, step, top float64) string {
	suffix := ""
	switch {
	case top >= 1e7 && step >= 1e5:
		v, step, suffix = v/1e6, step/1e6, "M"
	case top >= 1e4 && step >= 100:
		v, step, suffix = v/1e3, step/1e3, "k"
	}
	if v == 0 {
		return "0"
	}
	prec := 0
	for prec < 6 && math.Abs(step*math.Pow10(prec)-math.Round(step*math.Pow10(prec))) > 1e-6 {
		prec++
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = "0"
	}
	return s + suffix
}

// logTicks labels values of the 1-2-5 series (denser when the range is
// short) on a logarithmic axis.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, ms := range [][]float64{{1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}, {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9}} {
		ticks = ticks[:0]
		for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
			for _, m := range ms {
				v := m * math.Pow(10, e)
				if v >= lo*0.9999 && v <= hi*1.0001 {
					ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
				}
			}
		}
		if len(ticks) >= 4 {
			break
		}
	}
	return ticks
}
