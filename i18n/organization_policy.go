package i18n

// An organization's tutor policy: /org/settings, and what its members meet.
var _ = add(map[string][2]string{
	"org.tab_home":          {"Members and learning", "Miembros y aprendizaje"},
	"org.tab_settings":      {"Tutor policy", "Política del tutor"},
	"org.policy_title":      {"Tutor policy", "Política del tutor"},
	"org.policy_lead":       {"How the tutor works for the members of %s.", "Cómo trabaja el tutor para los miembros de %s."},
	"org.policy_style":      {"Default teaching style", "Estilo de enseñanza predeterminado"},
	"org.policy_style_hint": {"Every new conversation of a member starts in this style. Members can still switch a conversation's style with its switch.", "Cada conversación nueva de un miembro empieza con este estilo. Los miembros pueden cambiar el estilo de una conversación con su selector."},
	"org.policy_guide":      {"Guide only during checks", "Solo guiar durante las comprobaciones"},
	"org.policy_guide_hint": {"While a member has a knowledge check open on a lesson, the tutor of that lesson gives hints and questions, never the check's answers, whatever style the member chose. It answers fully again once the check is finished.", "Mientras un miembro tiene abierta una comprobación de una lección, el tutor de esa lección da pistas y preguntas, nunca las respuestas de la comprobación, elija el estilo que elija el miembro. Vuelve a responder por completo cuando la comprobación termina."},
	"org.policy_help":       {"Help mode", "Modo ayuda"},
	"org.policy_help_hint":  {"Members can open help conversations, which answer questions about using aula from its help articles. Off: members keep the lesson tutor and the general tutor only.", "Los miembros pueden abrir conversaciones de ayuda, que responden dudas sobre el uso de aula con sus artículos de ayuda. Desactivado: los miembros solo tienen el tutor de las lecciones y el tutor general."},
	"org.policy_cap":        {"Monthly question cap per member", "Límite mensual de preguntas por miembro"},
	"org.policy_cap_hint":   {"A whole number from 1 to 100,000; empty means unlimited. Members see how many they have used, and the count starts again on the first day of each month.", "Un número entero de 1 a 100.000; vacío significa ilimitado. Los miembros ven cuántas han usado, y la cuenta empieza de nuevo el primer día de cada mes."},
	"org.policy_admins":     {"The policy applies to members; the organization's admins are not bound by it.", "La política se aplica a los miembros; los administradores de la organización no están sujetos a ella."},
	"org.policy_save":       {"Save the policy", "Guardar la política"},
	"org.policy_saved":      {"Tutor policy saved.", "Política del tutor guardada."},
	"org.policy_err_style":  {"Choose the default teaching style: Explain or Guide me.", "Elige el estilo de enseñanza predeterminado: Explicar o Guíame."},
	"org.policy_err_cap":    {"The monthly question cap is a whole number from 1 to 100,000, or empty for unlimited.", "El límite mensual de preguntas es un número entero de 1 a 100.000, o vacío para ilimitado."},
	"org.policy_err_flag":   {"A switch of the policy can only be on or off.", "Un interruptor de la política solo puede estar activado o desactivado."},

	"ask.err.help_off": {"Your organization has turned help mode off: ask the lesson tutor or the general tutor instead.", "Tu organización ha desactivado el modo ayuda: pregunta al tutor de la lección o al tutor general."},
	"usage.org_cap":    {"Your organization sets this monthly limit; ask its admin if you need more.", "Tu organización fija este límite mensual; pide más a su administrador si lo necesitas."},
})
