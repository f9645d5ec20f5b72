package models

import (
	_ "embed" // the common-password list
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Password rule errors; the fronts translate them.
var (
	ErrShortPassword  = errors.New("password must have at least 10 characters")
	ErrLongPassword   = errors.New("password must have at most 256 characters")
	ErrCommonPassword = errors.New("password is too common or too easy to guess")
)

// MinPasswordLen is the shortest password accepted.
const MinPasswordLen = 10

// MaxPasswordBytes bounds what is hashed.
const MaxPasswordBytes = 256

//go:embed common_passwords.txt
var commonPasswordList string

// commonPasswords holds the list's entries (comments and blank lines skipped).
var commonPasswords = func() map[string]bool {
	m := make(map[string]bool)
	for _, l := range strings.Split(commonPasswordList, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}()

// ValidatePassword applies the password rules to any new password (sign-up,
// change, reset, set by an operator): at least MinPasswordLen characters,
// at most MaxPasswordBytes bytes, and neither common nor trivial.
func ValidatePassword(password string) error {
	switch {
	case utf8.RuneCountInString(password) < MinPasswordLen:
		return ErrShortPassword
	case len(password) > MaxPasswordBytes:
		return ErrLongPassword
	case trivialPassword(password) || commonPassword(password):
		return ErrCommonPassword
	}
	return nil
}

// trivialPassword: fewer than 4 different characters ("aaaaaaaaaa",
// "ababababab", ten spaces) or one run up or down ("1234567890",
// "abcdefghij", "9876543210").
func trivialPassword(p string) bool {
	distinct := map[rune]bool{}
	for _, r := range p {
		distinct[unicode.ToLower(r)] = true
	}
	if len(distinct) < 4 || strings.TrimSpace(p) == "" {
		return true
	}
	rs := []rune(strings.ToLower(p))
	step := rs[1] - rs[0]
	if step != 1 && step != -1 {
		return false
	}
	for i := 2; i < len(rs); i++ {
		if rs[i]-rs[i-1] != step {
			return false
		}
	}
	return true
}

// leet reads common substitutions back as letters.
var leet = strings.NewReplacer("0", "o", "1", "l", "3", "e", "4", "a", "5", "s", "@", "a", "$", "s", "!", "i")

// commonPassword: on the list as typed (lower-cased, spaces removed), or
// once the digits and symbols at its end are dropped ("Password2024!"),
// or with common substitutions read back ("P@ssw0rd").
func commonPassword(p string) bool {
	p = strings.ToLower(strings.Join(strings.Fields(p), ""))
	stem := strings.TrimRightFunc(p, func(r rune) bool { return !unicode.IsLetter(r) })
	word := strings.TrimRightFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, c := range []string{p, word, stem, leet.Replace(p), leet.Replace(stem)} {
		if commonPasswords[c] {
			return true
		}
	}
	return false
}
