// Package digest sends organization admins their weekly digest letter:
// who fell behind on assignments and which sections the members struggle
// with. The server runs it every hour (Run); `aula digest` runs one round.
package digest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"aula/mail"
	"aula/models"
)

// Sender sends the digests that are due.
type Sender struct {
	Orgs  *models.Organizations
	Stats *models.Stats
	Post  *mail.Post
	Log   *slog.Logger
	// Now is the clock (the tutor's, so tests can set the week).
	Now func() time.Time
}

// New returns a sender on db through post.
func New(db *gorm.DB, post *mail.Post, log *slog.Logger, now func() time.Time) *Sender {
	return &Sender{Orgs: models.NewOrganizations(db), Stats: models.NewStats(db), Post: post, Log: log, Now: now}
}

// ErrNoMail is a round asked of a server that sends no email.
var ErrNoMail = errors.New("aula sends no email: AULA_SMTP_URL is not set")

// SendDue sends every digest due this week, one admin at a time, each
// claimed before its letter is written so that senders running at once
// (two servers, or a server and `aula digest`) never send one twice. The
// letters that fail are given back at the end of the round, for the next
// one to try again. It returns how many letters went out.
func (s *Sender) SendDue(ctx context.Context) (int, error) {
	if !s.Post.Enabled() {
		return 0, ErrNoMail
	}
	sent := 0
	var failed []*models.DigestAdmin
	var errs []error
	for ctx.Err() == nil {
		admin, err := s.Orgs.ClaimDigest(ctx, s.Now())
		if errors.Is(err, models.ErrNoDigestDue) {
			break
		}
		if err != nil {
			errs = append(errs, err)
			break
		}
		if err := s.send(ctx, admin); err != nil {
			failed = append(failed, admin)
			errs = append(errs, fmt.Errorf("weekly digest to %s: %w", admin.Email, err))
			continue
		}
		sent++
	}
	// Given back with a context of its own: ctx may be what failed.
	for _, admin := range failed {
		errs = append(errs, s.Orgs.ReleaseDigest(context.WithoutCancel(ctx), admin))
	}
	return sent, errors.Join(append(errs, ctx.Err())...)
}

// send gathers the admin's organization's digest and mails it.
func (s *Sender) send(ctx context.Context, admin *models.DigestAdmin) error {
	d := &models.Digest{}
	var err error
	if d.Behind, d.BehindTotal, err = s.Orgs.OverdueMembers(ctx, admin.OrganizationID, s.Now(), models.DigestTop); err != nil {
		return err
	}
	u, err := s.Stats.ScopedUnderstanding(ctx, models.UnderstandingScope{OrgID: admin.OrganizationID}, nil)
	if err != nil {
		return err
	}
	for _, sec := range u.Sections {
		if sec.NotYet > 0 && len(d.Sections) < models.DigestSections {
			d.Sections = append(d.Sections, sec)
		}
	}
	return s.Post.Digest(ctx, admin, d)
}

// Run sends the due digests now and then every interval until ctx ends;
// without email it does nothing.
func (s *Sender) Run(ctx context.Context, every time.Duration) {
	if !s.Post.Enabled() {
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if n, err := s.SendDue(ctx); err != nil && ctx.Err() == nil {
			s.Log.Warn("weekly digests", "sent", n, "error", err)
		} else if n > 0 {
			s.Log.Info("weekly digests sent", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
