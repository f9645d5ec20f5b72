package i18n

var _ = add(map[string][2]string{
	"settings.title":           {"Settings", "Ajustes"},
	"settings.tokens":          {"Personal API tokens", "Tokens personales de API"},
	"settings.tokens_lead":     {"A token lets another program — a script, a mobile app, an AI agent over MCP — ask the tutor as you. Questions it asks count against your plan. Keep tokens secret; revoke one you no longer use.", "Un token permite que otro programa —un script, una app móvil, un agente de IA por MCP— pregunte al tutor en tu nombre. Sus preguntas cuentan en tu plan. Mantén los tokens en secreto; revoca los que ya no uses."},
	"settings.api_doc":         {"The API is described in OpenAPI at", "La API está descrita en OpenAPI en"},
	"settings.token_name":      {"Token name", "Nombre del token"},
	"settings.token_name_hint": {"Where you will use it, e.g. “laptop script”.", "Dónde lo usarás, p. ej. «script del portátil»."},
	"settings.create":          {"Create token", "Crear token"},
	"settings.new_token":       {"Your new token “%s”. Copy it now: it is shown only once.", "Tu nuevo token «%s». Cópialo ahora: solo se muestra una vez."},
	"settings.err_name":        {"Give the token a name of up to 100 characters.", "Ponle al token un nombre de hasta 100 caracteres."},
	"settings.none":            {"You have no tokens yet.", "Todavía no tienes tokens."},
	"settings.col_name":        {"Name", "Nombre"},
	"settings.col_created":     {"Created", "Creado"},
	"settings.col_used":        {"Last used", "Último uso"},
	"settings.col_status":      {"Status", "Estado"},
	"settings.never":           {"Never", "Nunca"},
	"settings.active":          {"Active", "Activo"},
	"settings.revoked":         {"Revoked %s", "Revocado el %s"},
	"settings.revoke":          {"Revoke", "Revocar"},
	"settings.revoke_label":    {"Revoke the token “%s”", "Revocar el token «%s»"},
	"settings.revoked_flash":   {"The token was revoked: programs using it are refused from now on.", "Se revocó el token: los programas que lo usen serán rechazados desde ahora."},
})
