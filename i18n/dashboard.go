package i18n

// The student dashboard, the upgrade page and the plan names.
var _ = add(map[string][2]string{
	"dash.title":           {"Your dashboard", "Tu panel"},
	"dash.lead":            {"Your activity with the tutor and every earlier session.", "Tu actividad con el tutor y todas tus sesiones anteriores."},
	"dash.activity":        {"Tutor activity", "Actividad con el tutor"},
	"dash.sessions":        {"sessions this month (days with a question)", "sesiones este mes (días con alguna pregunta)"},
	"dash.questions":       {"questions this month", "preguntas este mes"},
	"dash.top_module":      {"most consulted module this month (%d questions)", "módulo más consultado este mes (%d preguntas)"},
	"dash.top_module_none": {"no module consulted this month yet", "aún no has consultado ningún módulo este mes"},
	"dash.weekly":          {"Questions per week, last 8 weeks", "Preguntas por semana, últimas 8 semanas"},
	"dash.week_of":         {"Week of %s", "Semana del %s"},
	"dash.history":         {"History", "Historial"},
	"dash.history_empty":   {"No sessions yet: open a lesson and ask the tutor.", "Aún no hay sesiones: abre una lección y pregunta al tutor."},
	"dash.load_more":       {"Load more", "Cargar más"},
	"dash.bad_cursor":      {"That page link is not valid. Start again from the dashboard.", "Ese enlace de página no es válido. Vuelve a empezar desde el panel."},

	"upgrade.title":     {"Plans", "Planes"},
	"upgrade.lead":      {"Each plan allows a number of tutor questions per calendar month (UTC).", "Cada plan permite un número de preguntas al tutor por mes natural (UTC)."},
	"upgrade.plan":      {"Plan", "Plan"},
	"upgrade.limit":     {"Questions a month", "Preguntas al mes"},
	"upgrade.current":   {"Your plan", "Tu plan"},
	"upgrade.per_month": {"%d questions a month", "%d preguntas al mes"},
	"upgrade.how":       {"There is no online payment: an administrator of your organisation changes your plan. Ask them to upgrade you.", "No hay pago en línea: un administrador de tu organización cambia tu plan. Pídele que te lo mejore."},

	"plan.FREE":            {"Free", "Gratuito"},
	"plan.STARTER":         {"Starter", "Inicial"},
	"plan.PRO":             {"Pro", "Pro"},
	"plan.ELITE":           {"Elite", "Élite"},
	"plan.CORPORATE_USER":  {"Corporate user", "Usuario corporativo"},
	"plan.CORPORATE_ADMIN": {"Corporate admin", "Administrador corporativo"},
	"plan.CONTENT_ADMIN":   {"Content admin", "Administrador de contenidos"},
	"plan.SUPER_ADMIN":     {"Super admin", "Superadministrador"},
})
