package tutor

// checkTexts are what a check writes into its thread, in the lesson's
// language (like the offline tutor's answers, they are content, not UI).
type checkTexts struct {
	title, reviewTitle string
	blank, choice      string // %s heading, %s the sentence with its blank
	open               string // %s the model's question, %s heading
	correct, partly    string // %s the expected answer, %s the § link
	notYet             string
	hintBlank          string // %s first letter, %d length, %s § link
	hintChoice         string // %s the wrong choice, %s § link
	modelSee           string // %s § link, after a model's feedback
	modelHint          string // %s the model's hint, %s § link
}

var checkTextsEN = checkTexts{
	title:       "Check: ",
	reviewTitle: "Review",
	blank:       "**Fill in the blank** (from “%s”):\n\n> %s",
	choice:      "**Which of these completes the sentence?** (from “%s”)\n\n> %s\n",
	open:        "%s\n\n*(from “%s”)*",
	correct:     "“%s” is right. See %s.",
	partly:      "On the way: the whole answer is “%s”. See %s.",
	notYet:      "The answer is “%s”. Read %s again.",
	hintBlank:   "Not quite. Hint: it starts with “%s” and has %d characters. Look at %s and try once more.",
	hintChoice:  "Not “%s”. Look at %s again and try once more.",
	modelSee:    " See %s.",
	modelHint:   "Not quite. Hint: %s Look at %s and try once more.",
}

var checkTextsES = checkTexts{
	title:       "Comprobación: ",
	reviewTitle: "Repaso",
	blank:       "**Completa el espacio** (de «%s»):\n\n> %s",
	choice:      "**¿Cuál de estas opciones completa la frase?** (de «%s»)\n\n> %s\n",
	open:        "%s\n\n*(de «%s»)*",
	correct:     "«%s» es correcto. Consulta %s.",
	partly:      "Vas bien: la respuesta completa es «%s». Consulta %s.",
	notYet:      "La respuesta es «%s». Vuelve a leer %s.",
	hintBlank:   "Casi. Pista: empieza por «%s» y tiene %d caracteres. Mira %s e inténtalo otra vez.",
	hintChoice:  "No es «%s». Vuelve a mirar %s e inténtalo otra vez.",
	modelSee:    " Consulta %s.",
	modelHint:   "Casi. Pista: %s Mira %s e inténtalo otra vez.",
}

// checkText is the check's texts in lang ("es" or English).
func checkText(lang string) checkTexts {
	if lang == LangSpanish {
		return checkTextsES
	}
	return checkTextsEN
}
