package urls

import "net/url"

// ContentLessonImages is a lesson's images: the upload form's action
// (POST) and its page of its own (GET).
func ContentLessonImages(lessonID string) string {
	return "/admin/content/lessons/" + url.PathEscape(lessonID) + "/images"
}

// Media is an uploaded image: its SHA-256 id and its format's extension.
func Media(id, ext string) string { return "/media/" + id + "." + ext }
