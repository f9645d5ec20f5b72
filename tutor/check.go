package tutor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"aula/models"
)

// MaxCheckAnswerChars is the longest answer to a check question.
const MaxCheckAnswerChars = 1000

// Errors of checks the fronts render.
var (
	// ErrEmptyAnswer is an answer with no text.
	ErrEmptyAnswer = errors.New("the answer is empty")
	// ErrAnswerTooLong is an answer over MaxCheckAnswerChars characters.
	ErrAnswerTooLong = fmt.Errorf("the answer is longer than %d characters", MaxCheckAnswerChars)
	// ErrUngraded is an answer the quiz model gave no usable verdict for:
	// nothing is recorded and the student may send it again.
	ErrUngraded = errors.New("the answer could not be graded")
	// ErrNothingToAsk is a check over sections that give no question
	// without a quiz model (all code, or too short): it is not started.
	ErrNothingToAsk = errors.New("these sections give no question to ask without a quiz model")
)

// CheckScope is what a check asks about: a lesson (every section, or the
// one whose heading anchor is Anchor), or Sections across lessons (a review).
type CheckScope struct {
	LessonID string
	Anchor   string
	Sections []models.SectionRef
	// Style is the teaching style: guide gives a hint and a second try
	// after a wrong answer; "" keeps the style of the student's last thread.
	Style string
}

// CheckState is a check as the fronts show it.
type CheckState struct {
	Check *models.Check
	// Lang is the language the questions and feedback are written in.
	Lang string
	// Headings names each section of the scope, by models.SectionKey.
	Headings map[string]string
	// LessonTitle is the title of the check's lesson ("" for a review).
	LessonTitle string
}

// Finished reports whether the check has ended.
func (s *CheckState) Finished() bool { return s.Check.FinishedAt != nil }

// Current is the question waiting for an answer, nil when finished.
func (s *CheckState) Current() *models.CheckItem {
	if s.Finished() {
		return nil
	}
	return s.Check.Current()
}

// Last is the question answered last (graded, or given a hint), nil before the first answer.
func (s *CheckState) Last() *models.CheckItem {
	for i := len(s.Check.Items) - 1; i >= 0; i-- {
		if s.Check.Items[i].Attempts > 0 {
			return &s.Check.Items[i]
		}
	}
	return nil
}

// Tally counts the verdicts so far: correct, partly, not yet.
func (s *CheckState) Tally() (correct, partly, notYet int) {
	for _, it := range s.Check.Items {
		switch {
		case it.Verdict == nil:
		case *it.Verdict == models.VerdictCorrect:
			correct++
		case *it.Verdict == models.VerdictPartly:
			partly++
		default:
			notYet++
		}
	}
	return correct, partly, notYet
}

// checkRun is a check with what grading and asking need: its sections' text.
type checkRun struct {
	state    *CheckState
	sections []Source // the scope, in order, with text and hash
	userID   string
	// lessonKeys are the terms each lesson of the scope marks as code or
	// bold in any of its sections (see blankCandidates).
	lessonKeys map[string]map[string]bool
}

// StartCheck opens a check over scope and asks its first question. It
// counts ONE question against the user's plan, however many items it
// asks. Errors: models.ErrNotFound (no such lesson or section) or a
// *Refusal (quota, busy, nothing to ask).
func (s *Service) StartCheck(ctx context.Context, user *models.User, scope CheckScope) (*CheckState, error) {
	run, err := s.resolveScope(ctx, scope)
	if err != nil {
		return nil, err
	}
	if err := s.canAsk(ctx, run); err != nil {
		return nil, err
	}
	style := scope.Style
	if !models.ValidStyle(style) {
		// Only a check without a style of its own reads the last thread's.
		if u, err := s.users.Get(ctx, user.ID); err == nil && u.ActiveConversationID != nil {
			if cv, err := s.convs.Get(ctx, user.ID, *u.ActiveConversationID); err == nil {
				style = cv.Style // the style the student chose last goes on
			}
		}
	}
	refs := make([]models.SectionRef, len(run.sections))
	for i, src := range run.sections {
		refs[i] = models.SectionRef{LessonID: src.LessonID, Anchor: src.Anchor}
	}
	c, err := s.checks.Start(ctx, models.CheckStart{UserID: user.ID, LessonID: scope.LessonID, Style: style,
		Title: checkTitle(run, len(scope.Sections) > 0), Sections: refs, Now: s.now()})
	if err != nil {
		if errors.Is(err, ErrQuotaExceeded) {
			return nil, asRefusal(err)
		}
		return nil, fmt.Errorf("start check: %w", err)
	}
	run.state.Check, run.userID = c, user.ID
	if err := s.askNext(ctx, run); err != nil {
		return nil, err
	}
	return run.state, nil
}

// canAsk refuses, before anything is charged or written, a check that
// would end at once with no question: no quiz model to write one, and
// nothing in its sections' text to ask offline.
func (s *Service) canAsk(ctx context.Context, run *checkRun) error {
	if len(run.blankCandidates()) > 0 {
		return nil
	}
	if prov, _, _ := s.quizProvider(ctx); prov != nil {
		return nil
	}
	return refused(RefusedNothingToAsk, ErrNothingToAsk)
}

// Check returns the user's check; someone else's is models.ErrNotFound.
// A check left without a question (the next one failed to be asked
// after a grade) is given it now, so it always resumes.
func (s *Service) Check(ctx context.Context, userID, conversationID string) (*CheckState, error) {
	run, err := s.loadCheck(ctx, userID, conversationID)
	if err != nil {
		return nil, err
	}
	if !run.state.Finished() && run.state.Current() == nil {
		if err := s.askNext(ctx, run); err != nil {
			return nil, err
		}
	}
	return run.state, nil
}

// AnswerCheck grades the answer to the current question (mastery and
// totals in the same transaction), then asks the next one or ends the
// check. Errors: models.ErrNotFound, or a *Refusal (empty or too long,
// the check finished, the model's verdict unusable).
func (s *Service) AnswerCheck(ctx context.Context, user *models.User, conversationID, answer string) (*CheckState, error) {
	return s.AnswerCheckAt(ctx, user, conversationID, 0, answer)
}

// AnswerCheckAt is AnswerCheck for the question at position (1…5) only:
// an answer to a question that is no longer the current one (a double
// submit, a second tab) is refused as finished instead of answering the
// next question. Position 0 answers whatever question is current.
func (s *Service) AnswerCheckAt(ctx context.Context, user *models.User, conversationID string, position int, answer string) (*CheckState, error) {
	return s.AnswerCheckFed(ctx, user, conversationID, position, answer, nil)
}

// CheckFeed receives the tutor's feedback on an answer while it is
// written, a piece of plain text at a time (the whole of it at once when
// the answer is graded by matching).
type CheckFeed func(text string)

// AnswerCheckFed is AnswerCheckAt that hands the feedback to feed as the
// tutor writes it (feed may be nil), before the verdict is stored and the
// next question asked.
func (s *Service) AnswerCheckFed(ctx context.Context, user *models.User, conversationID string, position int, answer string, feed CheckFeed) (*CheckState, error) {
	if feed == nil {
		feed = func(string) {}
	}
	answer, err := CheckAnswerText(answer)
	if err != nil {
		return nil, err
	}
	run, err := s.loadCheck(ctx, user.ID, conversationID)
	if err != nil {
		return nil, err
	}
	item := run.state.Current()
	// No question waits (it was answered meanwhile, or the check ended):
	// the answer is refused, never taken for a question the student has
	// not seen; reading the check then asks its next question if needed.
	if item == nil || (position != 0 && item.Position != position) {
		return nil, refused(RefusedCheckFinished, models.ErrCheckGraded)
	}
	src, ok := run.section(item.LessonID, item.Anchor)
	if !ok {
		return nil, fmt.Errorf("answer check: section %s gone: %w", models.SectionKey(item.LessonID, item.Anchor), models.ErrNotFound)
	}
	g, err := s.grade(ctx, run, item, src, answer, feed)
	if err != nil {
		return nil, err
	}
	if err := s.checks.Grade(ctx, g); err != nil {
		if errors.Is(err, models.ErrCheckGraded) {
			return nil, refused(RefusedCheckFinished, err)
		}
		return nil, fmt.Errorf("answer check: %w", err)
	}
	run.recorded(item, g)
	if g.Verdict != "" && !g.Finish {
		if err := s.askNext(ctx, run); err != nil {
			return nil, err
		}
	}
	return run.state, nil
}

// recorded applies to the check in memory the grade Checks.Grade stored,
// so the answer needs no second read of the check.
func (r *checkRun) recorded(it *models.CheckItem, g models.CheckGrade) {
	it.Answer, it.Feedback = g.Answer, g.Feedback
	it.Attempts++
	if g.Verdict != "" {
		verdict, at := g.Verdict, g.Now
		it.Verdict, it.GradedAt = &verdict, &at
	}
	if g.Finish {
		at := g.Now
		r.state.Check.FinishedAt = &at
	}
}

// CheckAnswerText trims an answer to a check question and refuses it
// (a *Refusal) when empty or too long.
func CheckAnswerText(answer string) (string, error) {
	answer = strings.TrimSpace(strings.ToValidUTF8(strings.ReplaceAll(answer, "\x00", ""), ""))
	if answer == "" {
		return "", refused(RefusedEmptyAnswer, ErrEmptyAnswer)
	}
	if n := utf8.RuneCountInString(answer); n > MaxCheckAnswerChars {
		return "", &Refusal{Reason: RefusedAnswerTooLong, Chars: n, Max: MaxCheckAnswerChars, err: ErrAnswerTooLong}
	}
	return answer, nil
}

// askNext asks the check's next question, or ends the check when the
// sections have nothing left to ask.
func (s *Service) askNext(ctx context.Context, run *checkRun) error {
	c := run.state.Check
	next := len(c.Items) + 1
	q, ok := s.nextQuestion(ctx, run, next)
	if !ok || next > c.MaxItems {
		now := s.now()
		if err := s.checks.Finish(ctx, run.userID, c.ConversationID, now); err != nil {
			return err
		}
		c.FinishedAt = &now // the time stored, so the check needs no second read
		return nil
	}
	q.item.UserID, q.item.ConversationID = run.userID, c.ConversationID
	it, err := s.checks.Ask(ctx, q.item, q.text, checkReceipt(run, q.src), s.now())
	if errors.Is(err, models.ErrCheckAsked) || errors.Is(err, models.ErrCheckFinished) {
		// A parallel answer asked the next question or ended the check first.
		fresh, err := s.loadCheck(ctx, run.userID, c.ConversationID)
		if err != nil {
			return err
		}
		run.state = fresh.state
		return nil
	}
	if err != nil {
		return err
	}
	c.Items = append(c.Items, *it)
	return nil
}

// checkReceipt is the receipt of a check message: the one section it is about.
func checkReceipt(run *checkRun, src Source) models.JSON {
	cit := citations([]Source{src})
	cit[0].Cited = true
	b, _ := json.Marshal(Receipt{Citations: cit, Lang: run.state.Lang, Style: run.state.Check.Conversation.Style,
		Mode: models.ModeCheck, LessonID: src.LessonID})
	return b
}

// loadCheck reads the user's check and the text of its sections.
func (s *Service) loadCheck(ctx context.Context, userID, conversationID string) (*checkRun, error) {
	c, err := s.checks.Get(ctx, userID, conversationID)
	if err != nil {
		return nil, err
	}
	run, err := s.resolveScope(ctx, CheckScope{Sections: c.Sections})
	if errors.Is(err, models.ErrNotFound) {
		// A section was removed since: the check still shows, in its
		// lesson's language, without a question left to ask.
		run, err = &checkRun{state: &CheckState{Lang: LangEnglish, Headings: map[string]string{}}}, nil
		if c.Conversation.LessonID != nil {
			if l, lerr := s.retr.content.Lesson(ctx, *c.Conversation.LessonID); lerr == nil {
				run.state.LessonTitle, run.state.Lang = l.Title, l.Language
			}
		}
	}
	if err != nil {
		return nil, err
	}
	run.state.Check, run.userID = c, userID
	return run, nil
}

// resolveScope reads the sections of a scope with their text; a lesson,
// section or reviewed section that does not exist is models.ErrNotFound.
func (s *Service) resolveScope(ctx context.Context, sc CheckScope) (*checkRun, error) {
	refs := sc.Sections
	if len(refs) == 0 {
		if sc.LessonID == "" {
			return nil, models.ErrNotFound
		}
		refs = []models.SectionRef{{LessonID: sc.LessonID, Anchor: sc.Anchor}}
	}
	whole := len(sc.Sections) == 0 && sc.Anchor == ""
	run := &checkRun{state: &CheckState{Headings: map[string]string{}}, lessonKeys: map[string]map[string]bool{}}
	lessons := map[string][]Source{}
	taken := map[string]bool{}
	for _, ref := range refs {
		secs, ok := lessons[ref.LessonID]
		if !ok {
			l, err := s.retr.content.Lesson(ctx, ref.LessonID)
			if err != nil {
				return nil, err
			}
			if run.state.Lang == "" {
				run.state.Lang, run.state.LessonTitle = l.Language, l.Title
			}
			chunks, err := s.retr.LessonChunks(ctx, ref.LessonID)
			if err != nil {
				return nil, err
			}
			secs = mergeSections(chunks)
			lessons[ref.LessonID], run.lessonKeys[ref.LessonID] = secs, markedTerms(secs)
		}
		found := false
		for _, sec := range secs {
			key := models.SectionKey(sec.LessonID, sec.Anchor)
			if (whole || sec.Anchor == ref.Anchor) && !taken[key] {
				taken[key], found = true, true
				run.sections = append(run.sections, sec)
				run.state.Headings[key] = sectionName(sec)
			}
		}
		if !found && !taken[models.SectionKey(ref.LessonID, ref.Anchor)] {
			return nil, models.ErrNotFound
		}
	}
	return run, nil
}

// mergeSections joins the chunks a long section was cut into: a check
// asks about, and grades against, the whole section.
func mergeSections(chunks []Source) []Source {
	var out []Source
	for _, ch := range chunks {
		if n := len(out); n > 0 && out[n-1].Anchor == ch.Anchor {
			out[n-1].Text += "\n\n" + ch.Text
			out[n-1].Hash = hashText(out[n-1].Hash + ch.Hash)
			continue
		}
		out = append(out, ch)
	}
	return out
}

// section is the scope's section lessonID#anchor.
func (r *checkRun) section(lessonID, anchor string) (Source, bool) {
	for _, src := range r.sections {
		if src.LessonID == lessonID && src.Anchor == anchor {
			return src, true
		}
	}
	return Source{}, false
}

// checkTitle names the check's thread in the lesson's language.
func checkTitle(run *checkRun, review bool) string {
	if review {
		return checkText(run.state.Lang).reviewTitle
	}
	name := run.state.LessonTitle
	if len(run.sections) == 1 && run.sections[0].Heading != "" {
		name = run.sections[0].Heading
	}
	return checkText(run.state.Lang).title + name
}

// hashText is the hash of a section cut into several chunks: one value
// that changes when any of them does.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
