package views

import (
	"context"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

// ChartPoint is one labelled value of a chart.
type ChartPoint struct {
	Label string
	Value int
}

// chartValues lists the values for data-values, so tests and scripts can
// read the figures without parsing geometry.
func chartValues(points []ChartPoint) string {
	vs := make([]string, len(points))
	for i, p := range points {
		vs[i] = strconv.Itoa(p.Value)
	}
	return strings.Join(vs, ",")
}

func chartMax(points []ChartPoint) int {
	m := 0
	for _, p := range points {
		m = max(m, p.Value)
	}
	return max(m, 1)
}

// Sparkline draws points as an inline SVG line with a dot per point (its
// tooltip the label and value): no charting JavaScript, allowed by the CSP.
func Sparkline(id, label string, points []ChartPoint) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		const width, height, pad = 320.0, 64.0, 6.0
		top := float64(chartMax(points))
		step := 0.0
		if len(points) > 1 {
			step = (width - 2*pad) / float64(len(points)-1)
		}
		xy := make([]string, len(points))
		var dots strings.Builder
		for i, p := range points {
			x := pad + step*float64(i)
			y := height - pad - float64(p.Value)/top*(height-2*pad)
			xy[i] = fmt.Sprintf("%.1f,%.1f", x, y)
			fmt.Fprintf(&dots, `<circle class="spark-dot" cx="%.1f" cy="%.1f" r="3"><title>%s: %d</title></circle>`,
				x, y, html.EscapeString(p.Label), p.Value)
		}
		area := ""
		if len(points) > 1 {
			area = fmt.Sprintf(`<polygon class="spark-area" points="%.1f,%.1f %s %.1f,%.1f"></polygon>`,
				pad, height-pad, strings.Join(xy, " "), pad+step*float64(len(points)-1), height-pad)
		}
		_, err := fmt.Fprintf(w, `<svg id="%s" class="chart sparkline" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s" data-values="%s">`+
			`<title>%s</title>%s<polyline class="spark-line" fill="none" points="%s"></polyline>%s</svg>`,
			html.EscapeString(id), width, height, width, height, html.EscapeString(label), chartValues(points),
			html.EscapeString(label), area, strings.Join(xy, " "), dots.String())
		return err
	})
}

// BarChart draws points as an inline SVG bar chart, a tooltip on every bar.
func BarChart(id, label string, points []ChartPoint) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		const width, height, pad = 600.0, 140.0, 4.0
		top := float64(chartMax(points))
		slot := width / float64(max(len(points), 1))
		var bars strings.Builder
		for i, p := range points {
			h := float64(p.Value) / top * (height - 2*pad)
			fmt.Fprintf(&bars, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d</title></rect>`,
				float64(i)*slot+1, height-pad-h, max(slot-2, 1), h, html.EscapeString(p.Label), p.Value)
		}
		_, err := fmt.Fprintf(w, `<svg id="%s" class="chart bars" viewBox="0 0 %.0f %.0f" width="100%%" height="%.0f" preserveAspectRatio="none" role="img" aria-label="%s" data-values="%s">`+
			`<title>%s</title><line class="axis" x1="0" y1="%.1f" x2="%.0f" y2="%.1f"></line>%s</svg>`,
			html.EscapeString(id), width, height, height, html.EscapeString(label), chartValues(points),
			html.EscapeString(label), height-pad, width, height-pad, bars.String())
		return err
	})
}
