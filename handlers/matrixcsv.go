package handlers

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"aula/i18n"
	"aula/models"
)

// MatrixCSV writes the completion matrix as CSV, one member a line, for
// the web page's download and the API alike: a header naming the columns
// (in lang) and each lesson, then each member's name, email, lessons done
// and assigned and their state on each lesson ("" where not assigned, ✓
// after a state that counts as done). Every cell is CSVSafe.
type MatrixCSV struct {
	w    *csv.Writer
	lang string
}

// NewMatrixCSV starts the CSV on w with a byte order mark (spreadsheets
// then read it as UTF-8) and the header row.
func NewMatrixCSV(w io.Writer, lang string, lessons []models.MatrixLesson) (*MatrixCSV, error) {
	if _, err := io.WriteString(w, "\ufeff"); err != nil {
		return nil, err
	}
	m := &MatrixCSV{w: csv.NewWriter(w), lang: lang}
	head := []string{i18n.In(lang, "progress.csv.name"), i18n.In(lang, "progress.csv.email"),
		i18n.In(lang, "progress.csv.done"), i18n.In(lang, "progress.csv.assigned")}
	for _, l := range lessons {
		head = append(head, l.Title)
	}
	return m, m.write(head)
}

// Row writes one member's line.
func (m *MatrixCSV) Row(r models.MatrixRow) error {
	line := []string{r.Name, r.Email, strconv.Itoa(r.Done), strconv.Itoa(r.Assigned)}
	for _, c := range r.Cells {
		line = append(line, m.cell(c))
	}
	return m.write(line)
}

// cell is one state as the CSV says it.
func (m *MatrixCSV) cell(c models.MatrixCell) string {
	if !c.Assigned {
		return ""
	}
	s := i18n.In(m.lang, "assigned.state."+c.State)
	if c.Done() {
		s += " ✓"
	}
	return s
}

// write writes a line of safe cells; the writer's buffer goes out each
// time it fills, so a long matrix streams.
func (m *MatrixCSV) write(line []string) error {
	for i, s := range line {
		line[i] = CSVSafe(s)
	}
	return m.w.Write(line)
}

// Flush writes out what is buffered; call it after the last Row.
func (m *MatrixCSV) Flush() error {
	m.w.Flush()
	return m.w.Error()
}

// CSVSafe keeps a spreadsheet from reading a cell as a formula: a cell
// starting with = + - @ (or a tab or carriage return) gets a leading '.
func CSVSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
