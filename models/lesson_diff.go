package models

import (
	"slices"
	"strings"

	"aula/textdiff"
)

// Section changes between two versions.
const (
	SectionUnchanged = "unchanged"
	SectionChanged   = "changed"
	SectionAdded     = "added"
	SectionRemoved   = "removed"
)

// SectionDiff is one section of two versions compared: matched by anchor
// (a renamed heading is a new anchor, so it shows as removed and added),
// with a line diff when its text changed.
type SectionDiff struct {
	Anchor, Heading, Change string
	Lines                   []textdiff.Line
}

// FieldDiff is a front-matter field that differs between two versions.
type FieldDiff struct{ Field, From, To string }

// VersionDiff compares version from with version to.
type VersionDiff struct {
	Fields   []FieldDiff
	Sections []SectionDiff
}

// section is a version's section: its chunks joined back.
type section struct{ anchor, heading, text string }

// versionSections cuts a version as publishing does, one entry per anchor.
func versionSections(v *LessonVersion) []section {
	var out []section
	for _, c := range LessonSections(v.Title, v.ContentMD) {
		if n := len(out); n > 0 && out[n-1].anchor == c.Anchor {
			out[n-1].text += "\n\n" + c.Text
			continue
		}
		out = append(out, section{c.Anchor, c.Heading, c.Text})
	}
	return out
}

// DiffVersions compares two versions section by section, in the newer
// text's order, each removed section after the one it followed.
func DiffVersions(from, to *LessonVersion) VersionDiff {
	var d VersionDiff
	for _, f := range []FieldDiff{{"title", from.Title, to.Title}, {"summary", from.Summary, to.Summary},
		{"language", from.Language, to.Language},
		{"suggestions", strings.Join(from.Suggestions, "\n"), strings.Join(to.Suggestions, "\n")}} {
		if f.From != f.To {
			d.Fields = append(d.Fields, f)
		}
	}
	old, cur := versionSections(from), versionSections(to)
	oldBy := map[string]section{}
	for _, s := range old {
		oldBy[s.anchor] = s
	}
	for _, s := range cur {
		o, ok := oldBy[s.anchor]
		switch {
		case !ok:
			d.Sections = append(d.Sections, SectionDiff{s.anchor, s.heading, SectionAdded, textdiff.Lines(nil, textdiff.Split(s.text))})
		case o.text == s.text:
			d.Sections = append(d.Sections, SectionDiff{s.anchor, s.heading, SectionUnchanged, nil})
		default:
			d.Sections = append(d.Sections, SectionDiff{s.anchor, s.heading, SectionChanged, textdiff.Lines(textdiff.Split(o.text), textdiff.Split(s.text))})
		}
	}
	d.Sections = placeRemoved(d.Sections, old, cur)
	return d
}

// placeRemoved inserts the sections only old has, each after the section
// before it in old (or first when none is left).
func placeRemoved(out []SectionDiff, old, cur []section) []SectionDiff {
	inCur := map[string]bool{}
	for _, s := range cur {
		inCur[s.anchor] = true
	}
	after := -1 // index in out of the last old section seen
	for _, o := range old {
		if inCur[o.anchor] {
			after = slices.IndexFunc(out, func(s SectionDiff) bool { return s.Anchor == o.anchor && s.Change != SectionRemoved })
			continue
		}
		after++
		out = slices.Insert(out, after, SectionDiff{o.anchor, o.heading, SectionRemoved, textdiff.Lines(textdiff.Split(o.text), nil)})
	}
	return out
}
