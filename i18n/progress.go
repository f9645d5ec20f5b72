package i18n

// The student's progress: lessons read, sections checked and mastered, where to go on.
var _ = add(map[string][2]string{
	"progress.lessons_read.one":     {"%d of %d lesson read", "%d de %d lección leída"},
	"progress.lessons_read.other":   {"%d of %d lessons read", "%d de %d lecciones leídas"},
	"progress.sections_state.one":   {"%d of %d section checked, %d mastered", "%d de %d sección comprobada, %d dominada"},
	"progress.sections_state.other": {"%d of %d sections checked, %d mastered", "%d de %d secciones comprobadas, %d dominadas"},
	"progress.read":                 {"Read ✓", "Leída ✓"},
	"progress.mark_done":            {"Mark as done", "Marcar como hecha"},
	"progress.end":                  {"End of the lesson", "Fin de la lección"},
	"progress.up_next":              {"Up next:", "A continuación:"},
	"progress.path_end":             {"This is the last lesson of the path.", "Es la última lección de la ruta."},
	"progress.back_to_path":         {"Back to %s", "Volver a %s"},
	"progress.resume":               {"Continue where you left off", "Continúa donde lo dejaste"},
	"progress.resume_label":         {"Your progress", "Tu progreso"},
	"progress.review_one":           {"Review 1 section due", "Repasar 1 sección pendiente"},
	"progress.review_many":          {"Review %d sections due", "Repasar %d secciones pendientes"},
	"progress.section_mastered":     {"Mastered", "Dominada"},
	"progress.section_due":          {"Due for review", "Toca repasar"},
	"progress.section_checked":      {"Checked", "Comprobada"},
	"progress.nothing_due":          {"No sections due for review.", "No hay secciones pendientes de repaso."},
})
