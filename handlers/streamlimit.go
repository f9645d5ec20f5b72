package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/i18n"
	"aula/tutor/stream"
)

// CodeTooManyStreams is the API's error when the user already holds the
// most event streams open that one account may.
const CodeTooManyStreams = "TOO_MANY_STREAMS"

// LimitStreams guards an event stream route: the signed-in user's stream
// is admitted while they hold fewer than the broker's StreamsPerUser open
// and counted until the handler returns (the answer ended or the client
// left), else refused with 429 in their language (the site) or as
// TOO_MANY_STREAMS (the API), before anything is asked or streamed.
func LimitStreams(b *stream.Broker) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			u := UserFrom(c)
			if u == nil {
				return next(c) // the door's authentication answers first
			}
			release, ok := b.Admit(u.ID)
			if !ok {
				return tooManyStreams(c, b.StreamsPerUser())
			}
			defer release()
			return next(c)
		}
	}
}

// tooManyStreams is the refusal of a stream past the cap of max.
func tooManyStreams(c echo.Context, max int) error {
	c.Response().Header().Set("Retry-After", "5")
	if IsAPIPath(c.Request().URL.Path) {
		return APIErr(http.StatusTooManyRequests, CodeTooManyStreams,
			"this account already has %d event streams open, the most allowed; close one and try again", max)
	}
	return echo.NewHTTPError(http.StatusTooManyRequests, i18n.T(c.Request().Context(), "stream.too_many", max))
}
