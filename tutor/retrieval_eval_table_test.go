package tutor

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// evalFloor is the level the eval set must keep, overall and in each
// language (the goal of issue 30 is recall@1 0.90, recall@3 0.97 and none
// precision 0.9; recall@1 reached it in both languages on 7 December):
// a change to retrieval that drops below it fails TestRetrievalEval.
// Raise it with every change that stays. The typo
// dialogues (15, 31 turns) lowered what the set scores: before the
// trigram correction it scored recall@1 0.848 and none precision 0.67
// (three misspelt questions taken for uncovered ones), after it 0.865
// and 0.86 (one: "route sumarization"), and with each language's stems
// looked up in its own material (migration 00113) none precision 1.00
// and recall@3 0.982 (see the README).
var evalFloor = map[string]evalScores{
	"all":       {r1: 0.90, r3: 0.99, nonePrec: 0.9, noneRecall: 0.26},
	"lang en":   {r1: 0.90, r3: 0.98, nonePrec: 0.9},
	"lang es":   {r1: 0.90, r3: 0.99, nonePrec: 0.9},
	"kind typo": {r1: 0.96, r3: 0.99},
}

// evalScores are the figures of a group of turns.
type evalScores struct {
	turns, answerable, labelledNone, saidNone, rightNone int
	r1, r3, mrr, nonePrec, noneRecall                    float64
}

// evalSummary is the table: every turn, each language, each kind.
type evalSummary struct {
	all    evalScores
	groups []string
	by     map[string]evalScores
	p50    time.Duration
	p99    time.Duration
	// passes is how many times the set was asked for bestP50 and bestP99
	// (see timePasses).
	passes           int
	bestP50, bestP99 time.Duration
}

func score(rs []evalResult) evalScores {
	var s evalScores
	hit1, hit3 := 0, 0
	for _, r := range rs {
		s.turns++
		if r.found == 0 {
			s.saidNone++
		}
		if r.none {
			s.labelledNone++
			if r.found == 0 {
				s.rightNone++
			}
			continue
		}
		s.answerable++
		if r.rank == 1 {
			hit1++
		}
		if r.rank >= 1 && r.rank <= 3 {
			hit3++
		}
		if r.rank > 0 {
			s.mrr += 1 / float64(r.rank)
		}
	}
	s.r1, s.r3 = ratio(hit1, s.answerable), ratio(hit3, s.answerable)
	s.mrr = s.mrr / float64(max(s.answerable, 1))
	s.nonePrec, s.noneRecall = ratio(s.rightNone, s.saidNone), ratio(s.rightNone, s.labelledNone)
	return s
}

// ratio is a/b, or 1 when there is nothing to count (no turn said none:
// none of them was wrong).
func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func summarize(rs []evalResult) evalSummary {
	s := evalSummary{all: score(rs), by: map[string]evalScores{}}
	groups := map[string][]evalResult{}
	var took []time.Duration
	for _, r := range rs {
		groups["lang "+r.lang] = append(groups["lang "+r.lang], r)
		groups["kind "+r.kind] = append(groups["kind "+r.kind], r)
		took = append(took, r.took)
	}
	for g, list := range groups {
		s.groups = append(s.groups, g)
		s.by[g] = score(list)
	}
	slices.Sort(s.groups)
	s.p50, s.p99 = percentiles(took)
	return s
}

// percentiles are the p50 and p99 of took, which they sort.
func percentiles(took []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(took)
	return took[len(took)/2], took[min(len(took)-1, len(took)*99/100)]
}

// timePasses asks the set passes times more and keeps each question's
// fastest time beside the first pass's: on this shared machine a
// question's time in one pass is its own cost plus whatever else ran on
// the two cores in that millisecond, and the slowest three of 246 (the
// p99) were different questions in every run. The fastest of several is
// what the question itself costs.
// first is the first pass's results.
func timePasses(t testing.TB, f *fixture, set evalSet, first []evalResult, s *evalSummary, passes int) {
	t.Helper()
	best := make([]time.Duration, len(first))
	for j, r := range first {
		best[j] = r.took
	}
	for range passes {
		for j, r := range runEval(t, f, set) {
			best[j] = min(best[j], r.took)
		}
	}
	s.passes = passes + 1
	if testing.Verbose() && os.Getenv("AULA_EVAL_MISSES") != "" {
		logSlowest(t, set, best, 5)
	}
	s.bestP50, s.bestP99 = percentiles(best)
}

// logSlowest logs the n questions whose fastest time is the longest:
// the ones behind the p99 (best[j] is the set's j-th turn, in order).
func logSlowest(t testing.TB, set evalSet, best []time.Duration, n int) {
	t.Helper()
	var turns []string
	for _, d := range set.Dialogues {
		for i, turn := range d.Turns {
			turns = append(turns, fmt.Sprintf("%s/%d %q", d.ID, i+1, turn.Q))
		}
	}
	order := make([]int, len(best))
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(best[b], best[a]) })
	for _, j := range order[:min(n, len(order))] {
		t.Logf("slowest: %s at best %s", turns[j], best[j].Round(10*time.Microsecond))
	}
}

func (s evalSummary) table(title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "retrieval eval, %s: %d turns, retrieval per question p50 %s, p99 %s", title, s.all.turns,
		s.p50.Round(10*time.Microsecond), s.p99.Round(10*time.Microsecond))
	if s.passes > 1 {
		fmt.Fprintf(&b, "; each question's best of %d passes p50 %s, p99 %s", s.passes,
			s.bestP50.Round(10*time.Microsecond), s.bestP99.Round(10*time.Microsecond))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-16s %5s %5s %9s %9s %6s %9s %9s\n", "", "turns", "answ", "recall@1", "recall@3", "MRR", "none-prec", "none-rec")
	row := func(name string, x evalScores) {
		fmt.Fprintf(&b, "%-16s %5d %5d %9.3f %9.3f %6.3f %9s %9s\n", name, x.turns, x.answerable, x.r1, x.r3, x.mrr,
			fmt.Sprintf("%.2f/%d", x.nonePrec, x.saidNone), fmt.Sprintf("%.2f/%d", x.noneRecall, x.labelledNone))
	}
	row("all", s.all)
	for _, g := range s.groups {
		row(g, s.by[g])
	}
	return b.String()
}

// checkFloor fails when the set scores below floor (evalFloor or
// holdoutFloor).
func checkFloor(t *testing.T, s evalSummary, floor map[string]evalScores) {
	t.Helper()
	for _, g := range slices.Sorted(maps.Keys(floor)) {
		want, got := floor[g], s.by[g]
		if g == "all" {
			got = s.all
		}
		if got.r1 < want.r1 || got.r3 < want.r3 || got.nonePrec < want.nonePrec || got.noneRecall < want.noneRecall {
			t.Errorf("%s fell below its floor: recall@1 %.3f (floor %.2f), recall@3 %.3f (%.2f), none precision %.3f (%.2f), none recall %.3f (%.2f)",
				g, got.r1, want.r1, got.r3, want.r3, got.nonePrec, want.nonePrec, got.noneRecall, want.noneRecall)
		}
	}
}
