package i18n

var _ = add(map[string][2]string{
	"learn.title":         {"Learning paths", "Rutas de aprendizaje"},
	"learn.lead":          {"Pick a path and open a lesson: the tutor is beside it, ready for your questions.", "Elige una ruta y abre una lección: el tutor está al lado, listo para tus preguntas."},
	"learn.lessons.one":   {"%d lesson", "%d lección"},
	"learn.lessons.other": {"%d lessons", "%d lecciones"},
	"learn.start":         {"Start the path", "Empezar la ruta"},
	"learn.prev":          {"Previous", "Anterior"},
	"learn.next":          {"Next", "Siguiente"},
	"learn.lesson_nav":    {"Lesson navigation", "Navegación de lecciones"},
	"learn.breadcrumb":    {"Breadcrumb", "Ruta de navegación"},
	"learn.empty":         {"No lessons yet. Import some with `aula content import DIR`.", "Aún no hay lecciones. Impórtalas con `aula content import DIR`."},
	"learn.lang.en":       {"English", "Inglés"},
	"learn.lang.es":       {"Spanish", "Español"},
	"learn.read_minutes":  {"%d min read", "%d min de lectura"},
	"learn.contents":      {"On this page", "En esta página"},
})
