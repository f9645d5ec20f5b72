package urls

import (
	"net/url"
	"strconv"
)

// LessonEditor is a lesson's editor (GET) and where it saves (POST).
func LessonEditor(lessonID string) string {
	return "/admin/content/lessons/" + url.PathEscape(lessonID)
}

// LessonUnpublish hides a published lesson from students (POST).
func LessonUnpublish(lessonID string) string { return LessonEditor(lessonID) + "/unpublish" }

// LessonVersions is a lesson's history, before version number before (0: the newest).
func LessonVersions(lessonID string, before int) string {
	if before > 0 {
		return LessonEditor(lessonID) + "/history?before=" + strconv.Itoa(before)
	}
	return LessonEditor(lessonID) + "/history"
}

// LessonDiff compares two versions of a lesson section by section.
func LessonDiff(lessonID string, from, to int) string {
	return LessonEditor(lessonID) + "/diff?from=" + strconv.Itoa(from) + "&to=" + strconv.Itoa(to)
}

// LessonDiffForm is where the history's compare form sends its choice (GET).
func LessonDiffForm(lessonID string) string { return LessonEditor(lessonID) + "/diff" }

// LessonRestore makes an old version the newest again (POST).
func LessonRestore(lessonID string) string { return LessonEditor(lessonID) + "/restore" }
