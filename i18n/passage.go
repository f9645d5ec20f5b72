package i18n

// Asking the tutor about a passage selected in a lesson.
var _ = add(map[string][2]string{
	"passage.ask":          {"Ask the tutor", "Preguntar al tutor"},
	"passage.ask_tip":      {"Ask the tutor about the selected text (Alt+Shift+A)", "Pregunta al tutor por el texto seleccionado (Alt+Mayús+A)"},
	"passage.selected":     {"Text selected. Press Alt+Shift+A to ask the tutor about it, or go on to the Ask the tutor button after it.", "Texto seleccionado. Pulsa Alt+Mayús+A para preguntar al tutor por él, o sigue hasta el botón Preguntar al tutor que viene después."},
	"passage.quoted":       {"Asking about this passage", "Preguntas por este fragmento"},
	"passage.remove":       {"Remove the quoted passage", "Quitar el fragmento citado"},
	"passage.added":        {"The passage is quoted above your question.", "El fragmento aparece citado encima de tu pregunta."},
	"ask.err.passage":      {"The quoted passage is not part of this lesson. Remove it and ask again.", "El fragmento citado no forma parte de esta lección. Quítalo y vuelve a preguntar."},
	"ask.err.passage_long": {"A quoted passage can have at most 2,000 characters (this one has %d). Select a shorter one.", "Un fragmento citado puede tener como máximo 2.000 caracteres (este tiene %d). Selecciona uno más corto."},
})
