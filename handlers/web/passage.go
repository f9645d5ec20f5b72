package web

import (
	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// passageField is the question form's field with the lesson passage the
// question is about (set by passage.js from a selection; "" none).
const passageField = "passage"

// passageView is the passage question m asked about, linked to its
// section: on the lesson page itself (the panel) by anchor, elsewhere
// through its lesson's page in paths; nil when it asked about none.
func passageView(m models.Message, paths map[string]string, inPanel bool) *views.PassageView {
	p := tutor.PassageOf(m.Metadata)
	if p == nil {
		return nil
	}
	v := &views.PassageView{Text: p.Text, Heading: p.Heading, URL: markdown.Fragment(p.Anchor)}
	if path, ok := paths[p.LessonID]; ok && !inPanel {
		v.URL = urls.Lesson(path, p.LessonID) + markdown.Fragment(p.Anchor)
	}
	return v
}
