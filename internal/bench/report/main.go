// Command report prints one table of every figure in `go test -bench`
// output: each benchmark's ns/op, B/op, allocs/op and the custom figures it
// reported with b.ReportMetric (ms, ratios, MB, counts). `go tool task bench`
// tees the benchmark run into a file and runs this on it, so every figure in
// the table was measured in that run.
//
//	go run ./internal/bench/report FILE...   (or the output on stdin)
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Figure is one measured value of one benchmark.
type Figure struct {
	Package   string
	Benchmark string
	Value     float64
	Unit      string
}

// Result is what one benchmark output holds.
type Result struct {
	Figures  []Figure
	Failures []string // "--- FAIL" and "FAIL pkg" lines
}

var (
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)
	pkgLine   = regexp.MustCompile(`^pkg:\s+(\S+)`)
)

// Parse reads `go test -bench` output (several packages, -count > 1, and
// -v noise included).
func Parse(r io.Reader) (Result, error) {
	var res Result
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if m := pkgLine.FindStringSubmatch(line); m != nil {
			pkg = m[1]
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "--- FAIL") || strings.HasPrefix(line, "FAIL\t") || strings.HasPrefix(line, "panic:") {
			res.Failures = append(res.Failures, strings.TrimSpace(line))
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		if len(fields)%2 != 0 {
			continue
		}
		var figs []Figure
		ok := true
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				ok = false
				break
			}
			figs = append(figs, Figure{Package: pkg, Benchmark: m[1], Value: v, Unit: fields[i+1]})
		}
		if ok {
			res.Figures = append(res.Figures, figs...)
		}
	}
	return res, sc.Err()
}

// human renders a value in its unit, and time per operation also in ms.
func human(f Figure) string {
	v := strconv.FormatFloat(f.Value, 'f', 2, 64)
	if f.Value == float64(int64(f.Value)) || f.Value >= 1e5 {
		v = strconv.FormatFloat(f.Value, 'f', 0, 64)
	}
	if f.Unit == "ns/op" && f.Value >= 1e5 {
		return fmt.Sprintf("%s ns/op (%.2f ms/op)", v, f.Value/1e6)
	}
	return v + " " + f.Unit
}

// Print writes the table: one row per figure, grouped by benchmark in the
// order they ran.
func Print(w io.Writer, res Result) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PACKAGE\tBENCHMARK\tFIGURE")
	last := ""
	for _, f := range res.Figures {
		pkg, name := f.Package, f.Benchmark
		if key := f.Package + " " + f.Benchmark; key == last {
			pkg, name = "", ""
		} else {
			last = key
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.TrimPrefix(pkg, "aula/"), name, human(f))
	}
	tw.Flush()
	if len(res.Failures) > 0 {
		fmt.Fprintf(w, "\n%d failure line(s) in the run:\n", len(res.Failures))
		for _, l := range res.Failures {
			fmt.Fprintln(w, "  "+l)
		}
	}
}

func main() {
	var in io.Reader = os.Stdin
	if len(os.Args) > 1 {
		var readers []io.Reader
		for _, name := range os.Args[1:] {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "report:", err)
				os.Exit(1)
			}
			defer f.Close()
			readers = append(readers, f)
		}
		in = io.MultiReader(readers...)
	}
	res, err := Parse(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	if len(res.Figures) == 0 {
		fmt.Fprintln(os.Stderr, "report: no benchmark results in the input")
		os.Exit(1)
	}
	fmt.Println()
	fmt.Println("aula benchmark figures (all measured in this run)")
	fmt.Println()
	Print(os.Stdout, res)
	if len(res.Failures) > 0 {
		os.Exit(1)
	}
}
