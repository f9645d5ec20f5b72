package views

import (
	"context"
	"strings"

	"aula/i18n"
	"aula/models"
)

// AccountView is what the account sections of /settings show.
type AccountView struct {
	User    *models.User
	Devices []models.Device
	// Flash says what the last form did, already translated, shown once.
	Flash string
	// Section names the form an Error belongs to (profile, password,
	// devices); Error is its i18n key; Name and Locale are what was typed.
	Section, Error string
	Name, Locale   string
}

// DeleteAccountView is the confirmation page before deleting an account.
type DeleteAccountView struct {
	Error string // i18n key
	// SoleAdminOf names the organization the user alone administers, which
	// deleting the account leaves without an admin ("" for none).
	SoleAdminOf string
}

// browsers and systems are matched in order: the first hit names the device.
var (
	browsers = [][2]string{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"HeadlessChrome", "Chrome (headless)"},
		{"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}}
	systems = [][2]string{{"Android", "Android"}, {"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Windows", "Windows"},
		{"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"}}
)

// DeviceName names a device from its user agent, such as "Firefox on Linux".
func DeviceName(ctx context.Context, ua string) string {
	name := func(table [][2]string) string {
		for _, e := range table {
			if strings.Contains(ua, e[0]) {
				return e[1]
			}
		}
		return ""
	}
	b, s := name(browsers), name(systems)
	switch {
	case b != "" && s != "":
		return b + " · " + s
	case b != "" || s != "":
		return b + s
	}
	return i18n.T(ctx, "account.unknown_device")
}

// sectionError is the error of one form, if it is that form's.
func (v AccountView) sectionError(section string) string {
	if v.Section == section {
		return v.Error
	}
	return ""
}

// profileName is the name to show in the profile form: what was typed
// after an error, the stored name otherwise.
func (v AccountView) profileName() string {
	if v.Section == "profile" {
		return v.Name
	}
	return v.User.Name
}

// profileLocale is the selected language of the profile form.
func (v AccountView) profileLocale(ctx context.Context) string {
	switch {
	case v.Section == "profile" && v.Locale != "":
		return v.Locale
	case v.User.Locale != "":
		return v.User.Locale
	}
	return i18n.Lang(ctx)
}
