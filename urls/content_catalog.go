package urls

import (
	"net/url"
	"strconv"
)

// Content is the authors' catalog under Admin → Content.
func Content() string { return "/admin/content" }

// ContentAt is the catalog scrolled to the item with that HTML id.
func ContentAt(anchor string) string { return Content() + "#" + anchor }

// ContentPaths is where a new path is created (POST).
func ContentPaths() string { return Content() + "/paths" }

// ContentPath is where a path is renamed (POST).
func ContentPath(slug string) string { return ContentPaths() + "/" + url.PathEscape(slug) }

// ContentPathOrder moves a path in the catalog's order (POST, step or to).
func ContentPathOrder(slug string) string { return ContentPath(slug) + "/order" }

// ContentPathDelete asks before deleting an empty path (GET) and deletes it (POST).
func ContentPathDelete(slug string) string { return ContentPath(slug) + "/delete" }

// ContentPathModules is where a module is added to a path (POST).
func ContentPathModules(slug string) string { return ContentPath(slug) + "/modules" }

// ContentModule is where a module is renamed (POST).
func ContentModule(id int64) string { return Content() + "/modules/" + strconv.FormatInt(id, 10) }

// ContentModuleOrder moves a module within its path (POST, step or to).
func ContentModuleOrder(id int64) string { return ContentModule(id) + "/order" }

// ContentModuleDelete asks before deleting an empty module (GET) and deletes it (POST).
func ContentModuleDelete(id int64) string { return ContentModule(id) + "/delete" }

// ContentModuleLessons is where a lesson is added to a module (POST).
func ContentModuleLessons(id int64) string { return ContentModule(id) + "/lessons" }

// ContentLesson is a lesson's page in the editor.
func ContentLesson(id string) string { return Content() + "/lessons/" + url.PathEscape(id) }

// ContentLessonOrder moves a lesson within its module (POST, step or to).
func ContentLessonOrder(id string) string { return ContentLesson(id) + "/order" }

// ContentLessonModule moves a lesson to another module (POST, field module).
func ContentLessonModule(id string) string { return ContentLesson(id) + "/module" }

// ContentLessonDelete asks before deleting a lesson (GET) and deletes it (POST).
func ContentLessonDelete(id string) string { return ContentLesson(id) + "/delete" }

// ContentAudit is the content audit log, its entries before id when before > 0.
func ContentAudit(before int64) string {
	if before > 0 {
		return Content() + "/audit?before=" + strconv.FormatInt(before, 10)
	}
	return Content() + "/audit"
}
