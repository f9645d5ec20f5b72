package i18n

// Images in lessons: the upload form beside the lesson editor and its refusals.
var _ = add(map[string][2]string{
	"images.title":      {"Images", "Imágenes"},
	"images.back":       {"← Back to the editor", "← Volver al editor"},
	"images.page_title": {"Images of “%s”", "Imágenes de «%s»"},
	"images.file":       {"Image file", "Archivo de imagen"},
	"images.file_hint": {"PNG, JPEG, WebP or GIF, up to %d MiB, %d megapixels and %d pixels a side. SVG and HTML are not accepted.",
		"PNG, JPEG, WebP o GIF, hasta %d MiB, %d megapíxeles y %d píxeles por lado. No se aceptan SVG ni HTML."},
	"images.alt": {"Description (alt text, required)", "Descripción (texto alternativo, obligatorio)"},
	"images.alt_hint": {"What the image shows, for a student who cannot see it. Up to 250 characters.",
		"Lo que muestra la imagen, para quien no pueda verla. Hasta 250 caracteres."},
	"images.upload": {"Upload image", "Subir imagen"},
	"images.nojs_hint": {"Save the lesson's text first: without JavaScript, uploading reloads the editor with the saved text.",
		"Guarda antes el texto de la lección: sin JavaScript, subir recarga el editor con el texto guardado."},
	"images.uploaded": {"Image uploaded. Put this Markdown where it should appear in the lesson:", "Imagen subida. Pon este Markdown donde deba aparecer en la lección:"},
	"images.list":     {"This lesson's images", "Imágenes de esta lección"},
	"images.none":     {"No images yet.", "Todavía no hay imágenes."},
	"images.insert":   {"Insert into the text", "Insertar en el texto"},
	"images.inserted": {"Inserted", "Insertada"},

	"images.err_file":     {"Choose an image file to upload.", "Elige un archivo de imagen para subir."},
	"images.err_type":     {"That file is not a PNG, JPEG, WebP or GIF image (its content decides, not its name). SVG and HTML are not accepted.", "Ese archivo no es una imagen PNG, JPEG, WebP o GIF (decide su contenido, no su nombre). No se aceptan SVG ni HTML."},
	"images.err_large":    {"That image is larger than %d MiB.", "Esa imagen supera los %d MiB."},
	"images.err_pixels":   {"That image has too many pixels: at most %d megapixels and %d pixels a side.", "Esa imagen tiene demasiados píxeles: como mucho %d megapíxeles y %d píxeles por lado."},
	"images.err_broken":   {"That image is truncated or damaged and cannot be read whole.", "Esa imagen está cortada o dañada y no se puede leer entera."},
	"images.err_alt":      {"Describe the image: the alt text is required.", "Describe la imagen: el texto alternativo es obligatorio."},
	"images.err_alt_long": {"The description is longer than 250 characters.", "La descripción supera los 250 caracteres."},
})
