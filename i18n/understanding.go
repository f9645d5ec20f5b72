package i18n

// The admin Understanding page: how students answer the knowledge checks.
var _ = add(map[string][2]string{
	"admin.understanding":     {"Understanding", "Comprensión"},
	"admin.u_lead":            {"How students answered the knowledge checks. A section with a high share of answers graded not yet, and thumbs-down beside it, is one to rewrite.", "Cómo respondieron los estudiantes a las comprobaciones. Una sección con mucha proporción de respuestas «todavía no», y votos negativos a su lado, es una que conviene reescribir."},
	"admin.u_answers_n.one":   {"check answer graded", "respuesta de comprobación calificada"},
	"admin.u_answers_n.other": {"check answers graded", "respuestas de comprobación calificadas"},
	"admin.u_not_yet_n":       {"graded not yet (%d)", "calificadas «todavía no» (%d)"},
	"admin.u_lessons":         {"Lessons with the most answers graded not yet", "Lecciones con más respuestas «todavía no»"},
	"admin.u_sections":        {"Sections, now and before the lesson was edited", "Secciones, ahora y antes de editar la lección"},
	"admin.u_sections_lead":   {"Now counts the answers about the section as it reads today; before, the answers about its earlier versions.", "Ahora cuenta las respuestas sobre la sección tal como se lee hoy; antes, las respuestas sobre sus versiones anteriores."},
	"admin.thumbs_up":         {"Thumbs up", "Pulgar arriba"},
	"admin.thumbs_down":       {"Thumbs down", "Pulgar abajo"},
	"admin.u_missed":          {"Questions students miss most", "Preguntas que más fallan los estudiantes"},
	"admin.u_answers":         {"Answers", "Respuestas"},
	"admin.u_not_yet":         {"Not yet", "Todavía no"},
	"admin.u_share":           {"Share not yet", "Proporción «todavía no»"},
	"admin.u_now":             {"Now", "Ahora"},
	"admin.u_before":          {"Before the edit", "Antes de la edición"},
	"admin.u_change":          {"Change", "Cambio"},
	"admin.u_points":          {"%s pts", "%s pts"},
	"admin.u_question":        {"Question", "Pregunta"},
	"admin.u_earlier":         {"earlier version", "versión anterior"},
	"admin.u_gone":            {"%s (removed)", "%s (eliminada)"},
	"admin.u_next":            {"More sections", "Más secciones"},
	"admin.u_first":           {"First sections", "Primeras secciones"},
	"admin.bad_cursor":        {"That page link is not valid. Start again from the first page.", "Ese enlace de página no es válido. Vuelve a empezar desde la primera página."},
})
