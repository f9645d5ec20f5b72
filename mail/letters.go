package mail

import (
	"bytes"
	"context"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"

	"aula/i18n"
	"aula/models"
	"aula/urls"
)

// letter is what one email says, rendered as plain text and as HTML from
// the same fields.
type letter struct {
	Lang, Greeting, Signature string
	Paragraphs                []string
	ActionText, ActionURL     string
	// StopText and StopURL end optional email with the way to turn it off.
	StopText, StopURL string
}

var textLetter = texttemplate.Must(texttemplate.New("text").Parse(`{{.Greeting}}
{{range .Paragraphs}}
{{.}}
{{end}}{{if .ActionURL}}
{{.ActionText}}:
{{.ActionURL}}
{{end}}
{{.Signature}}
{{if .StopURL}}
--
{{.StopText}}
{{.StopURL}}
{{end}}`))

var htmlLetter = htmltemplate.Must(htmltemplate.New("html").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>
<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2933;max-width:36rem;margin:0 auto;padding:1rem">
<p>{{.Greeting}}</p>
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{if .ActionURL}}<p><a href="{{.ActionURL}}" style="display:inline-block;background:#1d4ed8;color:#fff;padding:.6rem 1rem;border-radius:.4rem;text-decoration:none">{{.ActionText}}</a></p>
<p style="font-size:.85rem;color:#52606d">{{.ActionURL}}</p>
{{end}}<p>{{.Signature}}</p>
{{if .StopURL}}<hr><p style="font-size:.85rem;color:#52606d">{{.StopText}} <a href="{{.StopURL}}">{{.StopURL}}</a></p>
{{end}}</body></html>
`))

// compose renders a letter to a message for to with the given subject.
func compose(to, subject string, l letter) (Message, error) {
	var text, html bytes.Buffer
	if err := textLetter.Execute(&text, l); err != nil {
		return Message{}, err
	}
	if err := htmlLetter.Execute(&html, l); err != nil {
		return Message{}, err
	}
	return Message{To: to, Subject: subject, Text: text.String(), HTML: html.String()}, nil
}

// Post writes aula's emails to users, in their language, and queues them.
// A nil *Post (no AULA_SMTP_URL) sends nothing.
type Post struct {
	mailer  *Mailer
	baseURL string
}

// NewPost returns the post office for a mailer and the public base URL
// (AULA_BASE_URL) that links in emails start with.
func NewPost(m *Mailer, baseURL string) *Post {
	return &Post{mailer: m, baseURL: strings.TrimRight(baseURL, "/")}
}

// Enabled reports whether email can be sent.
func (p *Post) Enabled() bool { return p != nil && p.mailer != nil }

// Wait blocks until queued email is sent, for a clean shutdown.
func (p *Post) Wait() {
	if p.Enabled() {
		p.mailer.Wait()
	}
}

func (p *Post) letter(u *models.User, optional bool, paragraphs ...string) letter {
	lang := i18n.Normalize(u.Locale)
	l := letter{Lang: lang, Greeting: i18n.In(lang, "mail.greeting", u.FirstName()),
		Signature: i18n.In(lang, "mail.signature"), Paragraphs: paragraphs}
	if optional {
		l.StopText, l.StopURL = i18n.In(lang, "mail.stop"), p.baseURL+urls.Settings("email")
	}
	return l
}

func (p *Post) queue(to, subject string, l letter) error {
	msg, err := compose(to, subject, l)
	if err != nil {
		return err
	}
	p.mailer.Queue(msg)
	return nil
}

// Welcome greets a new user, unless they turned optional email off.
func (p *Post) Welcome(u *models.User) error {
	if !p.Enabled() || !u.OptionalEmail {
		return nil
	}
	lang := i18n.Normalize(u.Locale)
	l := p.letter(u, true, i18n.In(lang, "mail.welcome_body"))
	l.ActionText, l.ActionURL = i18n.In(lang, "mail.welcome_action"), p.baseURL+urls.Learn()
	return p.queue(u.Email, i18n.In(lang, "mail.welcome_subject"), l)
}

// ResetLink sends the single-use password reset link for token; it is
// essential (the user asked for it), so it goes out whatever their choice.
func (p *Post) ResetLink(u *models.User, token string) error {
	if !p.Enabled() {
		return nil
	}
	lang := i18n.Normalize(u.Locale)
	l := p.letter(u, false, i18n.In(lang, "mail.reset_body"), i18n.In(lang, "mail.reset_ignore"))
	l.ActionText, l.ActionURL = i18n.In(lang, "mail.reset_action"), p.ResetURL(token)
	return p.queue(u.Email, i18n.In(lang, "mail.reset_subject"), l)
}

// ResetURL is the page that redeems a reset token.
func (p *Post) ResetURL(token string) string { return p.baseURL + urls.PasswordReset(token) }

// UpgradeDecision tells a student an admin approved or declined their
// request to move to plan. It waits for the upgrade requests feature,
// which will call it from its approve and decline actions.
func (p *Post) UpgradeDecision(u *models.User, plan string, approved bool) error {
	if !p.Enabled() || !u.OptionalEmail {
		return nil
	}
	lang := i18n.Normalize(u.Locale)
	subject, body := "mail.declined_subject", "mail.declined_body"
	if approved {
		subject, body = "mail.approved_subject", "mail.approved_body"
	}
	l := p.letter(u, true, i18n.In(lang, body, plan))
	l.ActionText, l.ActionURL = i18n.In(lang, "mail.plans_action"), p.baseURL+"/upgrade"
	return p.queue(u.Email, i18n.In(lang, subject, plan), l)
}

// Test sends a test message to address now, in lang, and returns the SMTP
// outcome (`aula mail test`).
func (p *Post) Test(ctx context.Context, address, lang string) error {
	lang = i18n.Normalize(lang)
	l := letter{Lang: lang, Greeting: i18n.In(lang, "mail.greeting", address),
		Signature: i18n.In(lang, "mail.signature"), Paragraphs: []string{i18n.In(lang, "mail.test_body")}}
	msg, err := compose(address, i18n.In(lang, "mail.test_subject"), l)
	if err != nil {
		return err
	}
	return p.mailer.Send(ctx, msg)
}

// Invitation invites address to join orgName, in lang, with the
// single-use link for token that works until expires; it is essential
// (an admin sent it), and addressed by email since the person may have no
// account yet.
func (p *Post) Invitation(address, lang, orgName, token, expires string) error {
	return p.invitation("mail.invite", address, lang, orgName, token, expires)
}

// AdminInvitation invites address to administer orgName (a SUPER_ADMIN
// named its admin by email), as Invitation does.
func (p *Post) AdminInvitation(address, lang, orgName, token, expires string) error {
	return p.invitation("mail.admin_invite", address, lang, orgName, token, expires)
}

// invitation sends an invitation letter whose subject, body and action
// are the keys under prefix.
func (p *Post) invitation(prefix, address, lang, orgName, token, expires string) error {
	if !p.Enabled() {
		return nil
	}
	lang = i18n.Normalize(lang)
	l := letter{Lang: lang, Greeting: i18n.In(lang, "mail.invite_greeting"), Signature: i18n.In(lang, "mail.signature"),
		Paragraphs: []string{i18n.In(lang, prefix+"_body", orgName), i18n.In(lang, "mail.invite_expires", expires),
			i18n.In(lang, "mail.invite_ignore")}}
	l.ActionText, l.ActionURL = i18n.In(lang, prefix+"_action", orgName), p.baseURL+urls.JoinInvite(token)
	return p.queue(address, i18n.In(lang, prefix+"_subject", orgName), l)
}

// Digest sends admin their organization's weekly digest now, in their
// language, and returns the SMTP outcome, so a failed letter can be tried
// again: who is behind on assignments and the sections the members
// struggle with (lesson and section names only, never what anyone
// wrote), or that all is on track; it ends with the way to stop it.
func (p *Post) Digest(ctx context.Context, admin *models.DigestAdmin, d *models.Digest) error {
	lang := i18n.Normalize(admin.Locale)
	u := &models.User{Name: admin.Name, Locale: lang}
	l := p.letter(u, false, digestParagraphs(lang, d)...)
	l.ActionText, l.ActionURL = i18n.In(lang, "mail.digest_action"), p.baseURL+urls.OrgUnderstanding(0, "")
	l.StopText, l.StopURL = i18n.In(lang, "mail.digest_stop"), p.baseURL+urls.Org("")+"#digest"
	msg, err := compose(admin.Email, i18n.In(lang, "mail.digest_subject", admin.OrgName), l)
	if err != nil {
		return err
	}
	return p.mailer.Send(ctx, msg)
}

// digestParagraphs are a digest's lines: the members behind, then the
// struggling sections, each list with its heading.
func digestParagraphs(lang string, d *models.Digest) []string {
	if d.OnTrack() {
		return []string{i18n.In(lang, "mail.digest_on_track")}
	}
	var out []string
	if d.BehindTotal == 0 {
		out = append(out, i18n.In(lang, "mail.digest_none_behind"))
	} else {
		out = append(out, i18n.In(lang, "mail.digest_behind", d.BehindTotal))
		for _, m := range d.Behind {
			out = append(out, "• "+i18n.InN(lang, "mail.digest_behind_one", m.Overdue, m.Name, m.Overdue))
		}
		if more := d.BehindTotal - len(d.Behind); more > 0 {
			out = append(out, i18n.In(lang, "mail.digest_more", more))
		}
	}
	if len(d.Sections) == 0 {
		return append(out, i18n.In(lang, "mail.digest_no_sections"))
	}
	out = append(out, i18n.In(lang, "mail.digest_sections"))
	for _, s := range d.Sections {
		heading := s.Heading
		if heading == "" {
			heading = "#" + s.Anchor
		}
		out = append(out, "• "+i18n.In(lang, "mail.digest_section_one", s.LessonTitle, heading, s.NotYet, s.Answers))
	}
	return out
}
