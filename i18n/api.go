package i18n

// The JSON API's and MCP's refusals, in the language of the token's owner.
var _ = add(map[string][2]string{
	"api.err.json_empty": {"The request body must be a JSON object.", "El cuerpo de la solicitud debe ser un objeto JSON."},
	"api.err.json_bad":   {"The request body is not valid JSON: %s.", "El cuerpo de la solicitud no es JSON válido: %s."},
	"api.err.int_range":  {"%s must be an integer from %d to %d.", "%s debe ser un número entero de %d a %d."},
	"api.err.cursor":     {"cursor is not one this API gave: start again without it.", "cursor no es uno que haya dado esta API: empieza de nuevo sin él."},
	"api.err.sort":       {"sort is name or done.", "sort es name o done."},
	"api.err.desc":       {"desc is true or false.", "desc es true o false."},
	"api.err.not_found":  {"Not found.", "No encontrado."},

	"api.err.not_org_admin":  {"The owner of this token does not administer an organization: only an organization's admins can use /org.", "Quien tiene este token no administra ninguna organización: solo quien administra una organización puede usar /org."},
	"api.err.group_unknown":  {"Your organization has no group %d.", "Tu organización no tiene el grupo %d."},
	"api.err.assign_what":    {"Give exactly one of pathId, pathSlug or lessonIds (a list of 1 to 100 lesson ids).", "Indica exactamente uno de pathId, pathSlug o lessonIds (una lista de 1 a 100 ids de lección)."},
	"api.err.path_unknown":   {"No path has this id or slug.", "Ningún itinerario tiene este id o slug."},
	"api.err.lesson_unknown": {"At least one of lessonIds names no lesson.", "Al menos uno de lessonIds no es ninguna lección."},
	"api.err.assign_due":     {"dueOn is a day such as 2027-03-31 (years 2000 to 2100).", "dueOn es un día como 2027-03-31 (años 2000 a 2100)."},
	"api.err.assign_taken":   {"This is already assigned to them.", "Esto ya lo tienen asignado."},
})
