package urls

import "net/url"

// ContentLessonFeedback is the page of what students made of each section of lesson id.
func ContentLessonFeedback(id string) string { return ContentLesson(id) + "/feedback" }

// ContentLessonSuggest asks the tutor for three suggested questions for lesson id.
func ContentLessonSuggest(id string) string { return ContentLesson(id) + "/suggest" }

// ContentLessonPreviewCheck shows the check questions a section of lesson id would get.
func ContentLessonPreviewCheck(id string) string { return ContentLesson(id) + "/preview-check" }

// AdminRatingsSection is a section's row on the ratings page.
func AdminRatingsSection(lessonID, anchor string) string {
	return "/admin/ratings?lesson=" + url.QueryEscape(lessonID) + "#sr-" + lessonID + "-" + anchor
}

// AdminRatingsComment is a 👎 comment on the ratings page.
func AdminRatingsComment(lessonID, messageID string) string {
	return "/admin/ratings?lesson=" + url.QueryEscape(lessonID) + "#rc-" + messageID
}

// AdminUnderstandingSection is a section's row on the Understanding page.
func AdminUnderstandingSection(lessonID, anchor string) string {
	return "/admin/understanding#us-" + lessonID + "-" + anchor
}
