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
	ids := make([]string, 0, len(msgs))
	var receipts = make(map[string]tutor.Receipt, len(msgs))
	var chunkIDs []int64
	lessonIDs := map[string]bool{}
	for _, m := range msgs {
		ids = append(ids, m.ID)
		if m.Role == models.RoleAssistant && len(m.Metadata) > 0 {
			r := tutor.ParseReceipt(m.Metadata)
			receipts[m.ID] = r
			for _, c := range r.Citations {
				if c.Kind == "lesson" {
					chunkIDs = append(chunkIDs, c.ChunkID)
					lessonIDs[c.LessonID] = true
				}
			}
		}
	}
	files, err := a.Attachments.ForMessages(ctx, userID, ids)
	if err != nil {
		return nil, err
	}
	hashes, paths, err := a.Content.CitationTargets(ctx, chunkIDs, keys(lessonIDs))
	if err != nil {
		return nil, err
	}
	out := make([]views.MessageView, 0, len(msgs))
	for _, m := range msgs {
		v := views.MessageView{ID: m.ID, Role: m.Role, Status: m.Status, Content: m.Content,
			ErrorCode: m.ErrorCode, RatingComment: m.RatingComment, Provider: m.Provider, Model: m.Model, InPanel: inPanel}
		if m.Rating != nil {
			v.Rating = *m.Rating
		}
		if m.RatingReason != nil {
			v.RatingReason = *m.RatingReason
		}
		if f, ok := files[m.ID]; ok {
			v.Attachment = &views.AttachmentView{ID: f.ID, Filename: f.Filename, Size: f.Size}
		}
		if r, ok := receipts[m.ID]; ok && m.Status != models.StatusStreaming {
			v.Receipt = receiptView(r, hashes, paths, conv, inPanel)
		}
		if m.Role == models.RoleAssistant && m.Status != models.StatusStreaming && m.Content != "" {
			v.HTML = answerHTML(m.Content, conv, paths, inPanel)
		}
		out = append(out, v)
	}
	return out, nil
}

// answerHTML renders an answer. Its citations are written as links to
// "#anchor" of the lesson; outside the lesson page they point to it.
func answerHTML(md string, conv *models.Conversation, paths map[string]string, inPanel bool) string {
	base := ""
	if !inPanel && conv != nil && conv.LessonID != nil {
		if p, ok := paths[*conv.LessonID]; ok {
			base = urls.Lesson(p, *conv.LessonID)
		}
	}
	return markdown.RenderAnswerAt(md, base)
}

func receiptView(r tutor.Receipt, hashes map[int64]string, paths map[string]string, conv *models.Conversation, inPanel bool) *views.ReceiptView {
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
			cur, exists := hashes[c.ChunkID]
			cv.Changed = !exists || cur != c.Hash
			if inPanel && conv != nil && conv.LessonID != nil && *conv.LessonID == c.LessonID {
				cv.URL = "#" + c.Anchor
			} else if p, ok := paths[c.LessonID]; ok {
				cv.URL = urls.Lesson(p, c.LessonID) + "#" + c.Anchor
			}
		}
		if cv.URL == "" {
			cv.URL = "#"
		}
		rv.Citations = append(rv.Citations, cv)
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
