package models

import (
	"crypto/sha256"
	"encoding/hex"

	"aula/markdown"
)

// LessonSections cuts a lesson or help article into the sections retrieval
// searches, each with the hash receipts compare to flag a changed section.
// The importer and the editor's publish both cut through it, so the same
// text gives the same sections whichever way it came in.
func LessonSections(title, body string) []ContentChunk {
	var out []ContentChunk
	for _, c := range markdown.Chunks(title, body) {
		out = append(out, ContentChunk{Heading: c.Heading, Anchor: c.Anchor, Text: c.Text, Hash: hashHex(c.Text)})
	}
	return out
}

// ContentHash is a lesson's or article's hash over what students read: an
// unchanged hash means an import or publish has nothing to rewrite.
func ContentHash(title, summary, body string) string {
	return hashHex(title + "\x00" + summary + "\x00" + body)
}

func hashHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
