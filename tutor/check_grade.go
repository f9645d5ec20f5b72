package tutor

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"aula/models"
)

// grade decides what an answer to it is worth: blanks and choices by
// matching (they have one right answer), open questions by the quiz
// model. In the guide style a first "not yet" becomes a hint and a
// second try (Verdict ""). A model whose verdict cannot be read is a
// RefusedUngraded refusal: nothing is recorded.
func (s *Service) grade(ctx context.Context, run *checkRun, it *models.CheckItem, src Source, answer string, feed CheckFeed) (models.CheckGrade, error) {
	lang := run.state.Lang
	tx := checkText(lang)
	g := models.CheckGrade{UserID: run.userID, ConversationID: it.ConversationID, ItemID: it.ID, Answer: answer,
		Metadata: checkReceipt(run, src), Now: s.now()}
	var hint string
	switch it.Kind {
	case models.KindBlank, models.KindChoice:
		if it.Kind == models.KindChoice {
			g.Verdict = matchChoice(answer, it)
		} else {
			g.Verdict = matchAnswer(answer, it.Expected)
		}
		g.Feedback = offlineFeedback(lang, g.Verdict, it, src)
		hint = offlineHint(lang, it, answer, src)
		if secondTry(run, it, g.Verdict) {
			feed(plainLinks(hint))
		} else {
			feed(plainLinks(g.Feedback))
		}
	default:
		v, err := s.modelVerdict(ctx, run, it, src, answer, feed)
		if err != nil {
			s.log.Warn("check: no verdict from the quiz model", "check", it.ConversationID, "err", err)
			return g, refused(RefusedUngraded, fmt.Errorf("%w: %w", ErrUngraded, err))
		}
		g.Verdict = v.Verdict
		g.Feedback = v.Feedback + fmt.Sprintf(tx.modelSee, sectionLink(src))
		hint = fmt.Sprintf(tx.modelHint, v.Hint, sectionLink(src))
	}
	if secondTry(run, it, g.Verdict) {
		g.Verdict, g.Feedback = "", hint
		return g, nil
	}
	g.Finish = it.Position >= run.state.Check.MaxItems
	return g, nil
}

// secondTry reports whether a verdict gets a hint and a second try
// instead: a first "not yet" in the guide style.
func secondTry(run *checkRun, it *models.CheckItem, verdict string) bool {
	return verdict == models.VerdictNotYet && it.Attempts == 0 && run.state.Check.Conversation.Style == models.StyleGuide
}

// sectionLinkRE is a § link in feedback's Markdown.
var sectionLinkRE = regexp.MustCompile(`\[(§ [^\]]*)\]\([^)]*\)`)

// plainLinks is feedback as the student reads it while it streams: its
// § links as their text (the finished feedback links them).
func plainLinks(md string) string { return sectionLinkRE.ReplaceAllString(md, "$1") }

// nextQuestion writes question number pos: through the quiz route's
// model when it has one (grounded in one section of the scope, the
// sections taking turns), else, or when the model's question cannot be
// read, from the sections' own text. false when nothing is left to ask.
func (s *Service) nextQuestion(ctx context.Context, run *checkRun, pos int) (checkQuestion, bool) {
	if len(run.sections) == 0 {
		return checkQuestion{}, false
	}
	prov, route, err := s.quizProvider(ctx)
	if prov != nil {
		src := run.sections[(pos-1)%len(run.sections)]
		var q checkQuestion
		if q, err = s.modelQuestion(ctx, prov, route, run, src); err == nil {
			return q, true
		}
	}
	q, ok := offlineQuestion(run, pos)
	if err != nil {
		// The student is told this question is the lesson's text, not the model's.
		s.log.Warn("check: the quiz model's question is unusable; asking offline", "check", run.state.Check.ConversationID, "err", err)
		q.item.Fallback = true
	}
	return q, ok
}

// quizProvider opens the quiz route's provider; nil for the offline
// tutor, whose checks need no model, and nil with an error for a route
// whose provider aula cannot use.
func (s *Service) quizProvider(ctx context.Context) (Provider, *models.AIRoute, error) {
	route, err := s.route(ctx, models.UseQuiz)
	if err != nil {
		return nil, nil, fmt.Errorf("quiz route: %w", err)
	}
	if route.Provider == ProviderOffline {
		return nil, nil, nil
	}
	prov, err := s.OpenProvider(ctx, *route)
	if err != nil {
		return nil, nil, fmt.Errorf("quiz route %s unusable: %w", route.Provider, err)
	}
	return prov, route, nil
}

// modelQuestion asks the quiz model for one question about src.
func (s *Service) modelQuestion(ctx context.Context, prov Provider, route *models.AIRoute, run *checkRun, src Source) (checkQuestion, error) {
	var asked []string
	for _, it := range run.state.Check.Items {
		if it.LessonID == src.LessonID && it.Anchor == src.Anchor {
			asked = append(asked, it.Question)
		}
	}
	text, err := s.complete(ctx, prov, route, Request{System: questionPrompt(run.state.Lang, src, asked),
		Question: "Write the question.", Lang: run.state.Lang, Mode: models.ModeCheck}, nil)
	if err != nil {
		return checkQuestion{}, err
	}
	mq, err := parseModelQuestion(text)
	if err != nil {
		return checkQuestion{}, err
	}
	item := models.CheckItem{LessonID: src.LessonID, Anchor: src.Anchor, SectionHash: src.Hash, Kind: mq.Kind,
		Question: fmt.Sprintf(checkText(run.state.Lang).open, mq.Question, sectionName(src)), Choices: mq.Choices,
		Expected: mq.Answer}
	return checkQuestion{item: item, text: questionText(item), src: src}, nil
}

// modelVerdict asks the quiz model to grade an answer to an open question.
func (s *Service) modelVerdict(ctx context.Context, run *checkRun, it *models.CheckItem, src Source, answer string, feed CheckFeed) (modelVerdict, error) {
	prov, route, err := s.quizProvider(ctx)
	if err != nil {
		return modelVerdict{}, err
	}
	if prov == nil {
		return modelVerdict{}, errNoQuizModel
	}
	// The student reads the field they will be shown: the hint, not the
	// feedback, when a first "not yet" in the guide style gets a second try.
	guide := it.Attempts == 0 && run.state.Check.Conversation.Style == models.StyleGuide
	fields := newVerdictFeed(feed, guide)
	text, err := s.complete(ctx, prov, route, Request{System: gradePrompt(run.state.Lang, src, it),
		Question: answer, Lang: run.state.Lang, Mode: models.ModeCheck}, fields.write)
	if err != nil {
		return modelVerdict{}, err
	}
	return parseModelVerdict(text)
}

// complete runs one whole, bounded model call and returns its text; each
// token also goes to onToken when it is set.
func (s *Service) complete(ctx context.Context, prov Provider, route *models.AIRoute, req Request, onToken func(string)) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(s.cfg.AnswerTimeout, checkModelTimeout))
	defer cancel()
	req.Model, req.Temperature, req.MaxTokens = route.Model, route.Temperature, min(route.MaxTokens, checkModelTokens)
	var b strings.Builder
	_, err := prov.Stream(ctx, req, func(tok string) error {
		if b.Len()+len(tok) > checkModelBytes {
			return errAnswerTooLong
		}
		b.WriteString(tok)
		if onToken != nil {
			onToken(tok)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("quiz model: %w", err)
	}
	return b.String(), nil
}
