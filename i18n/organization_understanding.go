package i18n

// The organization's Understanding page (/org/understanding), its tab in
// the /org menu, and the weekly digest: its toggle on /org and its letter.
var _ = add(map[string][2]string{
	"org.tab_understanding": {"Understanding", "Comprensión"},

	"org.u_title": {"Understanding", "Comprensión"},
	"org.u_lead": {"How your people answered the knowledge checks: the sections they fail and how their wrong answers fall. Counts only; no one's answers or conversations are shown.",
		"Cómo respondieron tus miembros a las comprobaciones: las secciones que fallan y cómo se reparten sus respuestas erróneas. Solo cifras; no se muestran las respuestas ni las conversaciones de nadie."},
	"org.u_scope":       {"Whose answers", "Respuestas de"},
	"org.u_sections":    {"Sections, most missed first", "Secciones, las más falladas primero"},
	"org.u_everyone":    {"Everyone", "Todos"},
	"org.u_apply":       {"Show", "Mostrar"},
	"org.u_scope_group": {"Group: %s", "Grupo: %s"},
	"org.u_bad_group":   {"Choose a group from the list.", "Elige un grupo de la lista."},
	"org.u_sections_lead": {"Answers about the section as it reads now and before any edit. Members missing it: how many people got at least one answer on the section graded not yet, of those who answered. After a hint: wrong even after the tutor's hint.",
		"Respuestas sobre la sección tal como se lee hoy y antes de cualquier edición. Miembros que fallan: cuántas personas tienen al menos una respuesta «todavía no» en la sección, de las que respondieron. Tras una pista: erróneas incluso después de la pista del tutor."},
	"org.u_missing":    {"Members missing it", "Miembros que fallan"},
	"org.u_partly":     {"Partly right", "En parte"},
	"org.u_after_hint": {"Not yet after a hint", "«Todavía no» tras una pista"},
	"org.u_none":       {"No check answered yet by these members.", "Estos miembros aún no han respondido ninguna comprobación."},

	"org.digest":         {"Weekly digest", "Resumen semanal"},
	"org.digest_lead":    {"A letter each week to you alone: who fell behind on assignments and which sections the organization struggles with. No conversation text.", "Una carta cada semana solo para ti: quién se retrasó en sus tareas y qué secciones le cuestan a la organización. Sin texto de conversaciones."},
	"org.digest_on":      {"You get the weekly digest.", "Recibes el resumen semanal."},
	"org.digest_off":     {"You do not get the weekly digest.", "No recibes el resumen semanal."},
	"org.digest_start":   {"Send me the weekly digest", "Enviarme el resumen semanal"},
	"org.digest_stop":    {"Stop the weekly digest", "Dejar de recibir el resumen semanal"},
	"org.digest_started": {"You will get the weekly digest, starting with this week's.", "Recibirás el resumen semanal, empezando por el de esta semana."},
	"org.digest_stopped": {"The weekly digest is off.", "El resumen semanal está desactivado."},
	"org.digest_no_mail": {"This server sends no email, so no digest goes out until an operator sets it up.", "Este servidor no envía correo, así que no saldrá ningún resumen hasta que se configure."},
	"org.digest_bad":     {"Choose on or off.", "Elige activar o desactivar."},

	"mail.digest_subject":          {"%s this week", "%s esta semana"},
	"mail.digest_behind":           {"Behind on assignments (%d):", "Con tareas atrasadas (%d):"},
	"mail.digest_behind_one.one":   {"%s — %d assignment overdue", "%s — %d tarea atrasada"},
	"mail.digest_behind_one.other": {"%s — %d assignments overdue", "%s — %d tareas atrasadas"},
	"mail.digest_more":             {"and %d more.", "y %d más."},
	"mail.digest_sections":         {"Sections your members struggle with:", "Secciones que les cuestan a tus miembros:"},
	"mail.digest_section_one":      {"%s › %s — %d of %d answers not yet", "%s › %s — %d de %d respuestas «todavía no»"},
	"mail.digest_on_track":         {"All on track: no one is behind on an assignment and no section stands out in the checks.", "Todo en orden: nadie tiene tareas atrasadas y ninguna sección destaca en las comprobaciones."},
	"mail.digest_none_behind":      {"No one is behind on an assignment.", "Nadie tiene tareas atrasadas."},
	"mail.digest_no_sections":      {"No section stands out in the checks.", "Ninguna sección destaca en las comprobaciones."},
	"mail.digest_action":           {"See the details", "Ver los detalles"},
	"mail.digest_stop":             {"You get this letter because you turned the weekly digest on. To stop it, use “Stop the weekly digest” on your organization page:", "Recibes esta carta porque activaste el resumen semanal. Para dejar de recibirla, usa «Dejar de recibir el resumen semanal» en la página de tu organización:"},
})
