package models

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Bounds of one invitation request (a pasted list or a CSV file).
const (
	MaxInvitees     = 1000
	MaxInviteeBytes = 1 << 20
)

// Errors of an invitation request as a whole, and of its rows.
var (
	ErrInviteEmpty    = errors.New("no address to invite")
	ErrInviteTooMany  = fmt.Errorf("at most %d addresses at once", MaxInvitees)
	ErrInviteTooLarge = fmt.Errorf("at most %d bytes at once", MaxInviteeBytes)
	// ErrInviteEncoding is text that is not UTF-8 or holds a NUL.
	ErrInviteEncoding = errors.New("the list is not plain UTF-8 text")
	ErrInviteCSV      = errors.New("the file is not a CSV of email[,language]")
	// Per row.
	ErrInviteAddress   = errors.New("not an email address")
	ErrInviteDuplicate = errors.New("the address appears twice")
	ErrInviteLanguage  = errors.New("the language is neither en nor es")
)

// Invitee is one row of an invitation request: its line, the address, the
// language of its letter, and why it is refused (nil when it is not).
type Invitee struct {
	Line          int
	Email, Locale string
	Err           error
}

// checkText refuses input that is too large, not UTF-8 or holds a NUL.
func checkText(b []byte) error {
	switch {
	case len(b) > MaxInviteeBytes:
		return ErrInviteTooLarge
	case !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0:
		return ErrInviteEncoding
	}
	return nil
}

// newInvitee normalizes one address and language (lang "" is fallback).
func newInvitee(line int, email, lang, fallback string) Invitee {
	r := Invitee{Line: line, Email: NormalizeEmail(email), Locale: strings.ToLower(strings.TrimSpace(lang))}
	if r.Locale == "" {
		r.Locale = fallback
	}
	switch {
	case !validEmail(r.Email) || len(r.Email) < 3:
		r.Err = ErrInviteAddress
	case r.Locale != "en" && r.Locale != "es":
		r.Err, r.Locale = ErrInviteLanguage, fallback
	}
	return r
}

// ParseInvitees reads a pasted list: addresses separated by commas,
// semicolons, spaces or new lines, each in language fallback.
func ParseInvitees(text []byte, fallback string) ([]Invitee, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	var out []Invitee
	for i, line := range strings.Split(string(text), "\n") {
		for _, f := range strings.FieldsFunc(line, func(r rune) bool {
			return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\r'
		}) {
			if len(out) == MaxInvitees {
				return nil, ErrInviteTooMany
			}
			out = append(out, newInvitee(i+1, f, "", fallback))
		}
	}
	if len(out) == 0 {
		return nil, ErrInviteEmpty
	}
	return out, nil
}

// ParseInviteCSV reads a CSV of email[,language] rows; a first row whose
// first cell is not an address (such as "email,language") is a header.
func ParseInviteCSV(data []byte, fallback string) ([]Invitee, error) {
	if err := checkText(data); err != nil {
		return nil, err
	}
	rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	rd.FieldsPerRecord, rd.TrimLeadingSpace = -1, true
	var out []Invitee
	for line := 1; ; line++ {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || len(rec) > 2 {
			return nil, ErrInviteCSV
		}
		if line == 1 && !strings.Contains(rec[0], "@") {
			continue
		}
		if len(out) == MaxInvitees {
			return nil, ErrInviteTooMany
		}
		lang := ""
		if len(rec) == 2 {
			lang = rec[1]
		}
		out = append(out, newInvitee(line, rec[0], lang, fallback))
	}
	if len(out) == 0 {
		return nil, ErrInviteEmpty
	}
	return out, nil
}
