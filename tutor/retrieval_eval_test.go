package tutor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"aula/content"
	"aula/content/importer"
	"aula/models"
)

// evalSet is tutor/testdata/retrieval_eval.yaml: dialogues over the demo
// lessons and help articles, each turn labelled with the sections that
// answer it ("lesson-id#anchor") or none.
type evalSet struct {
	Dialogues []evalDialogue `yaml:"dialogues"`
}

// evalDialogue is one thread: where the student is and what they ask.
type evalDialogue struct {
	ID     string     `yaml:"id"`
	Mode   string     `yaml:"mode"`   // tutor (default), lesson or help
	Lesson string     `yaml:"lesson"` // the lesson being read (lesson mode)
	Locale string     `yaml:"locale"` // the student's UI language
	Turns  []evalTurn `yaml:"turns"`
}

// evalTurn is one question and its label.
type evalTurn struct {
	Q    string   `yaml:"q"`
	Kind string   `yaml:"kind"` // first, followup, pronoun, crosslang, offtopic, unanswerable, typo
	Want []string `yaml:"want"` // lesson-id#anchor, or [none]
}

// evalResult is how retrieval did on one turn.
type evalResult struct {
	lang, kind string
	none       bool // labelled none
	found      int  // sections returned
	rank       int  // 1-based rank of the first right section, 0 if none
	took       time.Duration
}

func loadEvalSet(t testing.TB, path string) evalSet {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var set evalSet
	if err := yaml.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	return set
}

// seedDemoContent imports the demo lessons and help articles as `aula seed` does.
func seedDemoContent(t testing.TB, f *fixture) {
	t.Helper()
	if _, err := importer.Import(context.Background(), models.NewContent(f.db.DB), content.FS); err != nil {
		t.Fatal(err)
	}
	f.exec(`ANALYZE`)
}

// runEval asks every dialogue's turns in order through ForTurn, the
// tutor's own retrieval path: each earlier turn is in the thread as the
// tutor stores it (the question, and an answer whose receipt cites what
// retrieval found for it), and a lesson thread searches its lesson first.
func runEval(t testing.TB, f *fixture, set evalSet) []evalResult {
	t.Helper()
	ctx := context.Background()
	r := f.svc.retr
	var out []evalResult
	for _, d := range set.Dialogues {
		sc := Scope{Mode: cmpOr(d.Mode, models.ModeTutor)}
		if sc.Mode == models.ModeLesson {
			sc.LessonID = d.Lesson
			f.scalar(&sc.ModuleID, `SELECT module_id FROM lessons WHERE id = ?`, d.Lesson)
		}
		var recent []models.Message
		for i, turn := range d.Turns {
			sc.Lang = detectLang(turn.Q, cmpOr(d.Locale, "en"))
			start := time.Now()
			found, err := r.ForTurn(ctx, turn.Q, recent, sc, DefaultTopK)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s turn %d: %v", d.ID, i+1, err)
			}
			res := scoreTurn(turn, found.Sources)
			res.lang, res.took = sc.Lang, took
			if testing.Verbose() && os.Getenv("AULA_EVAL_MISSES") != "" && (res.none && res.found > 0 || !res.none && res.rank != 1) {
				t.Logf("%s/%d %s %q → got %v want %v", d.ID, i+1, turn.Kind, turn.Q, scoredKeys(found.Sources), turn.Want)
			}
			out = append(out, res)
			meta, _ := json.Marshal(Receipt{Citations: citations(found.Sources)})
			recent = append([]models.Message{
				{Role: models.RoleAssistant, Content: "", Metadata: meta},
				{Role: models.RoleUser, Content: turn.Q},
			}, recent...)
		}
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func keysOf(src []Source) []string {
	out := make([]string, len(src))
	for i, s := range src {
		out[i] = s.LessonID + "#" + s.Anchor
	}
	return out
}

// scoredKeys are keysOf(src), each with its score: how far a miss was.
func scoredKeys(src []Source) []string {
	out := keysOf(src)
	for i, s := range src {
		out[i] += fmt.Sprintf("(%.3f)", s.Score)
	}
	return out
}

// scoreTurn ranks the first right section among got.
func scoreTurn(turn evalTurn, got []Source) evalResult {
	res := evalResult{kind: turn.Kind, found: len(got), none: slices.Equal(turn.Want, []string{"none"})}
	for i, k := range keysOf(got) {
		if slices.Contains(turn.Want, k) {
			res.rank = i + 1
			break
		}
	}
	return res
}

// TestRetrievalEval runs the eval set on the demo content and fails when
// retrieval falls below the level it reached (see evalFloor). With
// AULA_EVAL_SCALE=N it first adds N generated lessons (the scale set) and
// times retrieval among them too. `go tool task eval` prints the table.
func TestRetrievalEval(t *testing.T) {
	set := loadEvalSet(t, "testdata/retrieval_eval.yaml")
	f := newFixture(t)
	seedDemoContent(t, f)
	checkLabels(t, f, set, 60)
	results := runEval(t, f, set)
	demo := summarize(results)
	timePasses(t, f, set, results, &demo, evalPasses-1)
	printTable(t, demo.table("demo content"))
	checkFloor(t, demo, evalFloor)
	evalFused(t, f, set, "demo content")
	if n, _ := strconv.Atoi(os.Getenv("AULA_EVAL_SCALE")); n > 0 {
		start := time.Now()
		if err := models.NewScaleData(f.db.DB).InsertLessons(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		t.Logf("scale set: %d lessons generated in %s", n, time.Since(start).Round(time.Second))
		results := runEval(t, f, set)
		scaled := summarize(results)
		timePasses(t, f, set, results, &scaled, evalPasses-1)
		printTable(t, scaled.table("demo content + "+strconv.Itoa(n)+" scale lessons"))
	}
}

// evalPasses is how many times the eval asks its set for the timing
// (see timePasses): the scores are the first pass's.
const evalPasses = 4

// printTable prints the table as it is under go test -v (the eval task),
// else logs it.
func printTable(t *testing.T, table string) {
	if testing.Verbose() {
		fmt.Print("\n" + table + "\n")
		return
	}
	t.Log("\n" + table)
}

// checkLabels fails on a label naming no published section (a typo
// would silently count as a miss) and on a set of fewer than least
// dialogues.
func checkLabels(t *testing.T, f *fixture, set evalSet, least int) {
	t.Helper()
	var keys []string
	if err := f.db.Raw(`SELECT c.lesson_id || '#' || c.anchor FROM lesson_chunks c
		UNION ALL SELECT c.article_id || '#' || c.anchor FROM help_chunks c`).Scan(&keys).Error; err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, d := range set.Dialogues {
		if len(d.Turns) < 2 || len(d.Turns) > 4 {
			t.Errorf("%s: %d turns, want 2 to 4", d.ID, len(d.Turns))
		}
		for i, turn := range d.Turns {
			turns++
			if len(turn.Want) == 0 || turn.Kind == "" {
				t.Errorf("%s/%d: no label or kind", d.ID, i+1)
			}
			for _, w := range turn.Want {
				if w != "none" && !slices.Contains(keys, w) {
					t.Errorf("%s/%d: %q is no section", d.ID, i+1, w)
				}
			}
		}
	}
	if len(set.Dialogues) < least {
		t.Errorf("%d dialogues, want at least %d", len(set.Dialogues), least)
	}
}
