package api

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
)

// wantsCSV reports whether an Accept header prefers text/csv to JSON: of
// the two, the one with the highest q wins, the first listed on a tie.
func wantsCSV(accept string) bool {
	best, bestQ := "", 0.0
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "text/csv" && mt != "application/json" {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				continue
			}
		}
		if q > bestQ {
			best, bestQ = mt, q
		}
	}
	return best == "text/csv"
}

// apiOrgProgressCSV streams the whole completion matrix (group, sort and
// desc apply; there are no pages) as the CSV the web page downloads, in
// the token owner's language, one member at a time.
func (a *App) apiOrgProgressCSV(c echo.Context) error {
	q, err := progressQuery(c)
	if err != nil {
		return err
	}
	lang := langOf(c)
	if err := handlers.CheckMatrixQuery(lang, q); err != nil {
		return err
	}
	var out *handlers.MatrixCSV
	err = a.Outside.Orgs.MatrixEach(c.Request().Context(), orgOf(c), q, func(m *models.OrgMatrix) error {
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="progress-%s.csv"`, a.Tutor.Now().UTC().Format(time.DateOnly)))
		c.Response().WriteHeader(http.StatusOK)
		var err error
		out, err = handlers.NewMatrixCSV(c.Response(), lang, m.Lessons)
		return err
	}, func(r models.MatrixRow) error { return out.Row(r) })
	switch {
	case err != nil && out != nil:
		return nil // the CSV has begun: it ends cut short, as the web's download does
	case err != nil:
		return handlers.MatrixRefusal(lang, q, err)
	}
	return out.Flush()
}
