package web

import (
	"context"

	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// messageViews turns a thread's rows into bubbles: answers rendered,
// receipts resolved into links (marking sections changed since), files
// attached. It runs a fixed number of queries whatever the thread's length.
func (a *App) messageViews(ctx context.Context, userID string, conv *models.Conversation, msgs []models.Message, inPanel bool) ([]views.MessageView, error) {
	thread := threadRefs(conv, msgs)
	receipts, lessonIDs := thread.receipts, thread.lessonIDs
	// Files come with questions and versions with answers: an answer's
	// end, drawn alone, reads no files.
	files, err := a.Attachments.ForMessages(ctx, userID, thread.questions)
	if err != nil {
		return nil, err
	}
	versions, err := a.Messages.VersionCounts(ctx, userID, thread.answers)
	if err != nil {
		return nil, err
	}
	hashes, paths, err := a.Content.CitationTargets(ctx, keys(lessonIDs))
	if err != nil {
		return nil, err
	}
	// One read of the route names every answer's model.
	route, _ := a.Tutor.SessionInfo(ctx)
	out := make([]views.MessageView, 0, len(msgs))
	lastQuestion := -1
	for i, m := range msgs {
		if m.Role == models.RoleUser {
			lastQuestion = i
		}
	}
	for i, m := range msgs {
		v := views.MessageView{ID: m.ID, Role: m.Role, Status: m.Status, Content: m.Content,
			ErrorCode: m.ErrorCode, RatingComment: m.RatingComment, ModelName: modelName(ctx, route, m.Provider, m.Model), InPanel: inPanel,
			Version: max(m.Version, 1), Versions: versions[m.ID]}
		if m.Rating != nil {
			v.Rating = *m.Rating
		}
		if m.RatingReason != nil {
			v.RatingReason = *m.RatingReason
		}
		if f, ok := files[m.ID]; ok {
			v.Attachment = &views.AttachmentView{ID: f.ID, Filename: f.Filename, Size: f.Size}
		}
		if m.Role == models.RoleUser {
			v.Passage, v.Editable = passageView(m, paths, inPanel), i == lastQuestion
		}
		r, hasReceipt := receipts[m.ID]
		if hasReceipt && m.Status != models.StatusStreaming {
			v.Receipt = receiptView(r, hashes, paths, conv, inPanel)
		}
		switch {
		case m.Role != models.RoleAssistant || m.Content == "":
		case m.Status == models.StatusStreaming: // a draft, as its stream renders it
			v.HTML, v.Tail = draftBody(m.Content, answerLinks(nil, conv, paths, inPanel))
		default:
			v.HTML = answerHTML(m.Content, r.Citations, conv, paths, inPanel)
		}
		out = append(out, v)
	}
	return out, nil
}

// refs is what a thread's rows refer to.
type refs struct {
	questions, answers []string // the ids of its questions and its answers
	receipts           map[string]tutor.Receipt
	lessonIDs          map[string]bool // lessons that citations, passages and drafts link into
}

// threadRefs gathers what a thread's rows refer to: their ids, the
// answers' receipts, and the lessons that citations, passages and drafts
// link into.
func threadRefs(conv *models.Conversation, msgs []models.Message) refs {
	r := refs{receipts: make(map[string]tutor.Receipt, len(msgs)), lessonIDs: map[string]bool{}}
	for _, m := range msgs {
		if m.Role == models.RoleUser {
			r.questions = append(r.questions, m.ID)
		} else {
			r.answers = append(r.answers, m.ID)
		}
		if p := tutor.PassageOf(m.Metadata); m.Role == models.RoleUser && p != nil {
			r.lessonIDs[p.LessonID] = true
		}
		if m.Status == models.StatusStreaming && conv != nil && conv.LessonID != nil {
			r.lessonIDs[*conv.LessonID] = true // a draft's links point into its lesson
		}
		if m.Role == models.RoleAssistant && len(m.Metadata) > 0 {
			rc := tutor.ParseReceipt(m.Metadata)
			r.receipts[m.ID] = rc
			for _, c := range rc.Citations {
				if c.Kind == "lesson" {
					r.lessonIDs[c.LessonID] = true
				}
			}
		}
	}
	return r
}

// answerHTML renders a finished answer (cached: threads are drawn often).
func answerHTML(md string, cits []tutor.Citation, conv *models.Conversation, paths map[string]string, inPanel bool) string {
	return markdown.RenderAnswerAt(md, answerLinks(cits, conv, paths, inPanel))
}

// answerLinks is where an answer's section links point. Its citations are
// written as links to "#anchor" of the lesson; outside the lesson page they
// point to it. A thread with no lesson of its own (or citing another
// lesson) has each anchor resolved through the receipt to its lesson's page.
func answerLinks(cits []tutor.Citation, conv *models.Conversation, paths map[string]string, inPanel bool) markdown.SectionLinks {
	var links markdown.SectionLinks
	own := ""
	if conv != nil && conv.LessonID != nil {
		own = *conv.LessonID
		if p, ok := paths[own]; ok && !inPanel {
			links.Base = urls.Lesson(p, own)
		}
	}
	for _, c := range cits {
		p, ok := paths[c.LessonID]
		if c.Kind != "lesson" || c.Anchor == "" || c.LessonID == own || !ok {
			continue
		}
		if links.Anchors == nil {
			links.Anchors = map[string]string{}
		}
		if _, seen := links.Anchors[c.Anchor]; !seen { // the first citation of an anchor names its lesson
			links.Anchors[c.Anchor] = urls.Lesson(p, c.LessonID)
		}
	}
	return links
}

// receiptView lists the sections the answer cites first, then those only
// given to the tutor, each flagged when its text changed since.
func receiptView(r tutor.Receipt, hashes map[string]string, paths map[string]string, conv *models.Conversation, inPanel bool) *views.ReceiptView {
	rv := &views.ReceiptView{TurnsSent: r.TurnsSent, TurnsOmitted: r.TurnsOmitted, Style: r.Style, Lang: r.Lang}
	if rv.Style == "" {
		rv.Style = models.StyleExplain
	}
	for _, c := range r.Clipped {
		rv.Clipped = append(rv.Clipped, views.ClippedView{Turn: c.Turn + 1, Answer: c.Role == models.RoleAssistant, Left: c.Left})
	}
	seen := map[string]bool{}
	for _, c := range r.Citations {
		key := c.LessonID + "#" + c.Anchor
		if seen[key] {
			continue
		}
		seen[key] = true
		cv := views.CitationView{Heading: c.Heading, Help: c.Kind == "help"}
		if c.Kind == "lesson" {
			cur, exists := hashes[models.SectionKey(c.LessonID, c.Anchor)]
			cv.Changed = !exists || cur != c.Hash
			if inPanel && conv != nil && conv.LessonID != nil && *conv.LessonID == c.LessonID {
				cv.URL = markdown.Fragment(c.Anchor)
			} else if p, ok := paths[c.LessonID]; ok {
				cv.URL = urls.Lesson(p, c.LessonID) + markdown.Fragment(c.Anchor)
			}
		}
		if c.Cited {
			rv.Citations = append(rv.Citations, cv)
		} else {
			rv.Given = append(rv.Given, cv)
		}
	}
	return rv
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
