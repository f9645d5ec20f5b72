package i18n

var _ = add(map[string][2]string{
	"error.home":       {"Go to the lessons", "Ir a las lecciones"},
	"error.400.title":  {"That request could not be read", "No se pudo leer la solicitud"},
	"error.400.body":   {"Something in the request was malformed. Go back and try again.", "Algo en la solicitud estaba mal formado. Vuelve atrás e inténtalo de nuevo."},
	"error.403.title":  {"This form has expired", "Este formulario ha caducado"},
	"error.403.body":   {"For your safety the form was refused: it expired or came from another site. Go back, reload the page and send it again.", "Por tu seguridad se rechazó el formulario: caducó o vino de otro sitio. Vuelve atrás, recarga la página y envíalo de nuevo."},
	"error.404.title":  {"Page not found", "Página no encontrada"},
	"error.404.body":   {"There is nothing here. The link may be wrong or the page may have been removed.", "Aquí no hay nada. Puede que el enlace esté mal o que la página se haya eliminado."},
	"error.405.title":  {"Not allowed", "No permitido"},
	"error.405.body":   {"That action is not available here.", "Esa acción no está disponible aquí."},
	"error.413.title":  {"That is too large", "Es demasiado grande"},
	"error.413.body":   {"What you sent is larger than aula accepts.", "Lo que enviaste supera el tamaño que aula acepta."},
	"error.422.title":  {"Please check what you sent", "Revisa lo que enviaste"},
	"error.422.body":   {"Some of the data was not valid.", "Algunos datos no eran válidos."},
	"error.429.title":  {"Slow down a little", "Ve un poco más despacio"},
	"error.429.body":   {"Too many requests. Wait a moment and try again.", "Demasiadas solicitudes. Espera un momento y vuelve a intentarlo."},
	"error.500.title":  {"Something went wrong", "Algo salió mal"},
	"error.500.body":   {"aula hit an unexpected error. It has been logged; please try again.", "aula tuvo un error inesperado. Quedó registrado; inténtalo de nuevo."},
	"error.503.title":  {"aula is briefly unavailable", "aula no está disponible por un momento"},
	"error.503.body":   {"The database cannot be reached right now. Nothing you saved is lost; try again in a moment.", "No se puede acceder a la base de datos ahora mismo. No se ha perdido nada de lo guardado; vuelve a intentarlo en un momento."},
	"error.request_id": {"Request id: %s", "Id de solicitud: %s"},
})
