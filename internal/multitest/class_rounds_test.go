package multitest

import (
	"cmp"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
)

// A class asks more than once: each round after the first asks once the
// one before is stored (see classRun).

// label is the row's door, and its round after the first.
func (r classRow) label() string {
	door := map[string]string{doorBrowser: "browser"}[r.Door]
	switch r.Round {
	case 0, 1:
		return r.Door
	case 2:
		return cmp.Or(door, r.Door) + ", 2nd"
	case 3:
		return cmp.Or(door, r.Door) + ", 3rd"
	}
	return fmt.Sprintf("%s, %dth", cmp.Or(door, r.Door), r.Round)
}

// classAgain is how many times a class asks again after its first
// question (AULA_CLASS_AGAIN, default 2).
func classAgain(b *testing.B) int {
	b.Helper()
	v := os.Getenv("AULA_CLASS_AGAIN")
	if v == "" {
		return 2
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		b.Fatalf("AULA_CLASS_AGAIN=%q: want a count such as 0 or 2", v)
	}
	return n
}

// measureRound has the class ask once through ask and fills row with
// its figures: first token, CPU of aula and of PostgreSQL, peak RSS, and
// the answers this round stored complete and counted.
func measureRound(b *testing.B, p *proc, db *sql.DB, fake *fakellm.Server, row classRow, ask func() burst) classRow {
	b.Helper()
	want := strings.Join(classAnswer, "")
	stored := func() (complete, counted int) {
		scan(b, db, `SELECT count(*) FROM messages WHERE role = 'assistant' AND status = 'complete' AND content = $1`,
			[]any{want}, &complete)
		scan(b, db, `SELECT coalesce(sum(questions), 0) FROM plan_usage`, nil, &counted)
		return complete, counted
	}
	complete0, counted0 := stored()
	// Peak RSS counts from here: signing in (password hashing) is not the class asking.
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid), []byte("5"), 0)
	pg := postmasterPID(b, db)
	aulaBefore, pgBefore := cpuOf(p.cmd.Process.Pid, false), pgCPU(pg)
	got := ask()
	row.AulaCPU = cpuOf(p.cmd.Process.Pid, false) - aulaBefore
	row.PGCPU = pgCPU(pg) - pgBefore
	row.PeakRSS = peakRSS(p.cmd.Process.Pid)
	row.timed(got)
	row.Asked50 = asked(fake, got.At)
	waitFor(b, time.Minute, "every answer settled", func() bool {
		var streaming int
		scan(b, db, `SELECT count(*) FROM messages WHERE status = 'streaming'`, nil, &streaming)
		return streaming == 0
	})
	complete, counted := stored()
	row.Complete, row.Counted = complete-complete0, counted-counted0
	return row
}
