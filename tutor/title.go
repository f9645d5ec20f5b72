package tutor

import (
	"context"
	"errors"
	"strings"
	"time"

	"aula/models"
	"aula/tutor/stream"
)

// titleTimeout bounds the background call that names a thread; past it
// the first question's title stays.
const titleTimeout = 10 * time.Second

// titleSlots is how many threads are named at once, and titleQueueWait
// how long a thread waits for its turn before its first question's title
// simply stays. A class's new threads end their first answers together;
// named all at once, their 200 title calls landed on the class's next
// questions (README, "A class asking again").
const (
	titleSlots     = 4
	titleQueueWait = time.Minute
)

// titleMaxWords is the longest title the title route may give.
const titleMaxWords = 8

// titleSystem asks for a thread's title in the question's language.
func titleSystem(lang string) string {
	return "You name a student's conversation with a tutor. Answer with a title of at most 8 words, in " + languageName(lang) +
		", that says what the question is about: no quotes, no final punctuation, nothing else."
}

// nameThread asks the title route, in the background, for a short title
// of a thread whose first answer was just stored. The answer never waits
// for it; the title derived from the first question (models.TitleFrom)
// stays when the route is offline, fails or is slow.
func (s *Service) nameThread(j *job, lang string) {
	_ = s.streams.Launch(func() {
		if !s.titleTurn() {
			return
		}
		defer func() { <-s.titles }()
		ctx, cancel := context.WithTimeout(context.Background(), titleTimeout)
		defer cancel()
		title := s.askTitle(ctx, j.plain, lang)
		if title == "" {
			return
		}
		if err := s.convs.SetGeneratedTitle(ctx, j.answer.UserID, j.conv.ID, j.conv.Title, title); err != nil {
			s.log.Warn("tutor: store thread title", "conversation", j.conv.ID, "err", err)
		}
	})
}

// titleTurn waits for one of the titleSlots; false when the wait ran
// past titleQueueWait or the service is stopping (shutdown does not wait
// for a queue of titles).
func (s *Service) titleTurn() bool {
	wait := time.NewTimer(titleQueueWait)
	defer wait.Stop()
	select {
	case s.titles <- struct{}{}:
		return true
	case <-wait.C:
	case <-s.streams.Stopping():
	}
	return false
}

// askTitle is the title route's title for question, "" when there is none.
func (s *Service) askTitle(ctx context.Context, question, lang string) string {
	route, err := s.route(ctx, models.UseTitle)
	if err != nil || route.Provider == ProviderOffline {
		return ""
	}
	p, err := s.OpenProvider(ctx, *route)
	if err != nil {
		return ""
	}
	var b strings.Builder
	_, err = p.Stream(ctx, Request{System: titleSystem(lang), Question: clipRunes(question, 1000), Model: route.Model,
		Temperature: route.Temperature, MaxTokens: 32, Lang: lang, Mode: "title"}, func(tok string) error {
		b.WriteString(tok)
		if titleSettled(b.String()) {
			return errTitleSettled
		}
		return nil
	})
	if errors.Is(err, errTitleSettled) {
		err = nil
	}
	if err != nil || ctx.Err() != nil {
		s.log.Info("tutor: no thread title from the title route", "err", err)
		return ""
	}
	return cleanTitle(b.String())
}

// errTitleSettled ends a title call whose title can no longer change.
var errTitleSettled = errors.New("the title is settled")

// titleSettled reports that no more text could change cleanTitle(raw):
// its first line has ended, or it has a word past titleMaxWords (the
// last kept word is followed by a space). Reading on would only hold the
// call, its connection and its goroutines open while a model that ignores
// max_tokens goes on writing.
func titleSettled(raw string) bool {
	s := strings.TrimSpace(stream.Clean(raw))
	if strings.IndexByte(s, '\n') >= 0 {
		return true
	}
	return len(strings.Fields(strings.Trim(s, titleTrim))) > titleMaxWords
}

// titleTrim is what cleanTitle trims from the ends of a title's line.
const titleTrim = ` "'«»“”*#`

// cleanTitle keeps a model's title to its first line and at most
// titleMaxWords words, without quotes or final punctuation.
func cleanTitle(raw string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stream.Clean(raw)), "\n")
	words := strings.Fields(strings.Trim(line, titleTrim))
	if len(words) > titleMaxWords {
		words = words[:titleMaxWords]
	}
	t := strings.TrimRight(strings.Join(words, " "), ".!?,;:")
	return models.TitleFrom(strings.Trim(t, ` "'«»“”`))
}
