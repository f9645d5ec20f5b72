package i18n

// The knowledge check: its buttons, its screen and its refusals.
var _ = add(map[string][2]string{
	"check.start":            {"Check my understanding", "Comprobar lo que he entendido"},
	"check.start_section":    {"Check this section", "Comprobar esta sección"},
	"check.start_section_of": {"Check my understanding of “%s”", "Comprobar lo que he entendido de «%s»"},
	"check.start_hint":       {"Up to five questions, one at a time. A check counts as one question of your plan.", "Hasta cinco preguntas, de una en una. Una comprobación cuenta como una pregunta de tu plan."},
	"check.progress":         {"Question %d of %d", "Pregunta %d de %d"},
	"check.answer_label":     {"Your answer", "Tu respuesta"},
	"check.choices_label":    {"Choose one", "Elige una"},
	"check.submit":           {"Submit", "Enviar"},
	"check.second_try":       {"Second try", "Segundo intento"},
	"check.verdict.correct":  {"Correct", "Correcto"},
	"check.verdict.partly":   {"Partly", "En parte"},
	"check.verdict.not_yet":  {"Not yet", "Todavía no"},
	"check.verdict.hint":     {"Hint", "Pista"},
	"check.your_answer":      {"Your answer: %s", "Tu respuesta: %s"},
	"check.done":             {"Check finished", "Comprobación terminada"},
	"check.summary":          {"%d of %d correct, %d partly, %d not yet.", "%d de %d correctas, %d en parte, %d todavía no."},
	"check.again":            {"Check again", "Comprobar otra vez"},
	"check.back_to_lesson":   {"Back to the lesson", "Volver a la lección"},
	"chat.mode.check":        {"Check", "Comprobación"},
	"check.err.empty":        {"Write an answer first.", "Escribe primero una respuesta."},
	"check.err.too_long":     {"An answer can have at most 1,000 characters (this one has %d).", "Una respuesta puede tener como máximo 1.000 caracteres (esta tiene %d)."},
	"check.err.finished":     {"That question was already answered, or the check has ended; start a new check to answer more questions.", "Esa pregunta ya tenía respuesta, o la comprobación ha terminado; empieza otra para responder más preguntas."},
	"check.err.ungraded":     {"The tutor couldn't grade that answer. Nothing was recorded; send it again in a moment.", "El tutor no pudo calificar esa respuesta. No se ha registrado nada; vuelve a enviarla en un momento."},
})
