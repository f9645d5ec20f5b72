package views

// CheckView is a knowledge check as the panel or its own page shows it.
type CheckView struct {
	ID      string
	Title   string
	InPanel bool
	// PathSlug is the lesson's path when the check runs in the lesson's
	// panel: answers post it back so the student returns to the panel.
	PathSlug  string
	LessonURL string // the lesson's page ("" for a review across lessons)
	Lang      string // the language the questions are written in
	Position  int    // the number of the question on screen
	Total     int    // how many questions the check asks at most
	Question  *CheckQuestionView
	Last      *CheckFeedbackView // the feedback on the last answer
	Finished  bool
	Correct   int
	Partly    int
	NotYet    int
	Items     []CheckFeedbackView // every answered question, for the summary
	Error     string              // why the last answer was refused
	Answer    string              // the refused answer, to send again
	Again     *CheckStartView     // "Check again" at the end
	// Pending is the answer being graded: the box shows it with the
	// feedback streaming in, then is replaced by the next step.
	Pending *CheckPendingView
}

// CheckPendingView is an answer the tutor is grading: where its feedback
// streams from, and the answer itself.
type CheckPendingView struct {
	StreamURL string
	Answer    string
}

// CheckQuestionView is the question waiting for an answer; HTML is sanitized.
type CheckQuestionView struct {
	HTML      string
	Choices   []string // a which-of-these question's choices
	SecondTry bool     // the guide style's second try after a hint
	// Fallback says the quiz model failed and the question comes from the
	// lesson's text instead.
	Fallback bool
}

// CheckFeedbackView is a verdict (correct, partly, not_yet, or hint) on an answer; HTML is sanitized.
type CheckFeedbackView struct {
	Verdict  string
	Answer   string
	Question string // the question, as plain text
	HTML     string
}

// CheckStartView is a "Check my understanding" button: the lesson, the
// section (Anchor "" is the whole lesson), and where it is shown.
type CheckStartView struct {
	LessonID string
	Anchor   string
	Heading  string // the section's heading, for the button's accessible name
	PathSlug string // the lesson's path: the check opens in its panel
	InPanel  bool   // HTMX swaps the panel; elsewhere a plain post
	Primary  bool   // the panel's main offer rather than a small chip
	Style    string // the teaching style the check takes ("" keeps the student's last)
}
