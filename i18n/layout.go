package i18n

var _ = add(map[string][2]string{
	"app.name":          {"aula", "aula"},
	"app.tagline":       {"Learn with a tutor beside every lesson", "Aprende con un tutor junto a cada lección"},
	"nav.main":          {"Main navigation", "Navegación principal"},
	"nav.skip":          {"Skip to content", "Saltar al contenido"},
	"nav.learn":         {"Learn", "Aprender"},
	"nav.chat":          {"Chat", "Chat"},
	"nav.dashboard":     {"Dashboard", "Panel"},
	"nav.admin":         {"Admin", "Administración"},
	"nav.settings":      {"Settings", "Ajustes"},
	"nav.signout":       {"Sign out", "Cerrar sesión"},
	"nav.signin":        {"Sign in", "Iniciar sesión"},
	"nav.signup":        {"Sign up", "Crear cuenta"},
	"nav.language":      {"Language", "Idioma"},
	"nav.switch_to":     {"Español", "English"},
	"nav.switch_to_tip": {"Cambiar a español", "Switch to English"},
	"footer.text":       {"aula — a learning platform with an AI tutor.", "aula — una plataforma de aprendizaje con tutor IA."},
})

// Relative dates in lists of conversations.
var _ = add(map[string][2]string{
	"date.just_now":       {"just now", "ahora mismo"},
	"date.minutes_ago":    {"%d min ago", "hace %d min"},
	"date.hours_ago":      {"%d h ago", "hace %d h"},
	"date.yesterday":      {"yesterday", "ayer"},
	"date.days_ago.one":   {"%d day ago", "hace %d día"},
	"date.days_ago.other": {"%d days ago", "hace %d días"},
})
