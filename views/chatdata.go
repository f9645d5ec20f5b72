package views

import (
	"time"

	"aula/models"
)

// MessageView is one bubble: a question, an answer, or the panel's welcome.
type MessageView struct {
	ID, Role, Status string
	Content          string // plain text (questions; partial answers)
	HTML             string // rendered, sanitized answer
	Tail             string // an answer in flight: its trailing white space, still raw
	ErrorCode        string
	Rating           string // up, down or ""
	RatingReason     string
	RatingComment    string
	Attachment       *AttachmentView
	Passage          *PassageView // the lesson passage a question was about
	Receipt          *ReceiptView
	ModelName        string // what the student sees of the model that wrote an answer ("" none)
	Welcome          bool
	WelcomeHint      string // the welcome's closing suggestion, left out at the limit
	// Editable offers Edit on a question: the thread's last (CSS shows it
	// only while that is so and its answer is not being written).
	Editable bool
	// InPanel marks a bubble in the lesson panel: its citations link to
	// sections of the page it is on.
	InPanel bool
	// PanelPath is the path of the lesson page whose panel shows the
	// bubble, "" elsewhere: its plain forms send it, so they come back to
	// that page.
	PanelPath string
	// Version is the answer's version on display, of Versions (1 of 1
	// until it is regenerated).
	Version, Versions int
}

// AttachmentView is a file shown in a question's bubble.
type AttachmentView struct {
	ID, Filename string
	Size         int
}

// ReceiptView is "What the tutor used" under an answer.
type ReceiptView struct {
	Citations    []CitationView // sections the answer cites
	Given        []CitationView // sections also given to the tutor, not cited
	TurnsSent    int
	TurnsOmitted int
	Clipped      []ClippedView // earlier messages sent shortened
	Style, Lang  string
}

// ClippedView is an earlier message the tutor received shortened.
type ClippedView struct {
	Turn   int  // 1-based among the messages remembered
	Answer bool // an answer (else a question)
	Left   int  // characters left out
}

// CitationView is one cited lesson section or help article.
type CitationView struct {
	Heading string
	URL     string // "" for a help article or a lesson no path shows: no page to link

	Help    bool
	Changed bool // the section's text changed since the answer
}

// ThreadView is an entry of the thread list.
type ThreadView struct {
	ID, Title, Mode string
	Active          bool
	LastActivity    time.Time
}

// AskForm is the question form, in the chat screen or the lesson panel.
type AskForm struct {
	Action   string // where the form posts
	Target   string // the HTMX target: "#messages" to append, "#tutor" to replace the panel
	Swap     string // hx-swap for Target
	Hidden   map[string]string
	Attach   bool   // offer a file input
	Content  string // the text typed, kept after an error
	Error    string // a message to show, already translated
	AtLimit  bool   // the month's quota is used up: show the call to action instead
	LimitMsg string
	// Passages offers asking about a passage selected in the lesson;
	// Passage is the one quoted (kept after an error).
	Passages bool
	Passage  string
	// Next is the ticket of the stream the page opens for its next
	// answer before the question is asked ("" none): see NextAnswer.
	Next    string
	InPanel bool // the form is the lesson panel's
}

// ChatView is the assistant screen.
type ChatView struct {
	Threads  []ThreadView
	MoreURL  string // next page of the thread list, "" on the last page
	More     string // the HTMX URL for the next page
	Active   *models.Conversation
	Title    string
	Messages []MessageView
	Earlier  []models.ContextTurn // history another program opened the thread with
	Usage    models.QuotaUsage
	Badge    string
	Form     AskForm
	Refresh  bool       // an answer is still being written: refresh without JavaScript
	Check    *CheckView // the active thread is a knowledge check
	// NoHelp: the member's organization turned help mode off, so no help
	// thread is offered.
	NoHelp bool
}

// PanelView is the tutor panel beside a lesson.
type PanelView struct {
	Open         bool
	PathSlug     string // the lesson's path, for its URLs and the panel's forms
	LessonID     string
	LessonTitle  string
	FirstName    string
	Conversation *models.Conversation // nil before the first question of a new session
	Messages     []MessageView
	Suggestions  []models.Suggestion
	Sessions     []ThreadView // the history drawer, loaded only when asked
	HistoryOpen  bool
	Usage        models.QuotaUsage
	Badge        string
	Form         AskForm
	Check        *CheckView // the check the panel runs, instead of the thread
}

// AskNext is the next answer's bubble an ask's answer brings (Ticket ""
// none: the page's stream did not take this answer).
type AskNext struct {
	Ticket  string
	InPanel bool
}
