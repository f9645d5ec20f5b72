package views

import (
	"context"
	"time"

	"aula/i18n"
)

// RelativeDate writes a recent time the way chat apps do ("just now",
// "5 min ago", "2 h ago", "yesterday"), an older one as a date; the page
// shows the absolute time on hover (FormatDateTime).
func RelativeDate(ctx context.Context, t time.Time) string {
	now := FrameFrom(ctx).Now
	if now.IsZero() {
		return FormatDate(ctx, t)
	}
	d := now.Sub(t)
	day := func(x time.Time) time.Time {
		y, m, dd := x.UTC().Date()
		return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	}
	switch days := int(day(now).Sub(day(t)).Hours() / 24); {
	case d < 0:
		return FormatDate(ctx, t)
	case d < time.Minute:
		return i18n.T(ctx, "date.just_now")
	case d < time.Hour:
		return i18n.T(ctx, "date.minutes_ago", int(d.Minutes()))
	case days == 0:
		return i18n.T(ctx, "date.hours_ago", int(d.Hours()))
	case days == 1:
		return i18n.T(ctx, "date.yesterday")
	case days < 7:
		return i18n.N(ctx, "date.days_ago", days, days)
	}
	return FormatDate(ctx, t)
}

// FormatDateTime is the absolute date and time (UTC), for a relative date's title.
func FormatDateTime(ctx context.Context, t time.Time) string {
	return FormatDate(ctx, t) + " " + t.UTC().Format("15:04") + " UTC"
}
