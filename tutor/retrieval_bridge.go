package tutor

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// The cross-language bridge: a Spanish question on an English lesson (or
// the reverse) shares few words with it, so each question word the
// glossary knows also searches for its translation. The glossary is the
// demo content's technical vocabulary (networking, Go, using aula), one
// pair a line, Spanish then English; a word in several pairs has several
// translations. Translations rank with the question's own words but the
// scope still applies: a lesson thread searches its lesson first, and on
// the Chat screen material in the question's language keeps its lead
// (models.OtherLangWeight), so the bridge adds the other language's
// sections without drowning the question's. hablar/talk and
// distinto/different are not technical, but the words a lesson uses for
// what a question asks in other words: "how do hosts in different VLANs
// talk to each other?" on the Spanish lesson, whose section says "no
// puede hablar directamente" and "dominio de broadcast distinto" (either
// pair alone put it first; English recall@1 0.899 → 0.907).
const glossary = `
subred subnet
subredes subnets
máscara mask
máscaras masks
dirección address
direcciones addresses
red network
redes networks
equipo host
equipos hosts
anfitrión host
difusión broadcast
prefijo prefix
bloque block
tamaño size
resumen summarization
resumir summarize
ruta route
rutas routes
enrutamiento routing
enrutar route
enrutador router
router router
estática static
estáticas static
defecto default
predeterminada default
tabla table
salto hop
siguiente next
distancia distance
administrativa administrative
coincidencia match
coinciden match
larga longest
dinámico dynamic
dinámica dynamic
protocolo protocol
troncal trunk
troncales trunk
enlace link
puerto port
puertos ports
acceso access
etiqueta tag
etiquetar tag
etiquetada tagged
trama frame
tramas frames
nativa native
permitidas allowed
voz voice
teléfono phone
conmutador switch
interfaz interface
subinterfaz subinterface
nombre name
nombrar name
crear create
guardar save
configuración configuration
hablar talk
distinto different
distinta different
distintos different
distintas different
configurar configure
configuro configure
verificar verify
comprobar check
compruebo check
errores errors
error error
fallo failure
problema problem
problemas problems
gestión management
binario binary
octeto octet
hosts hosts
cuántos many
usable usable
utilizables usable
contar count
gorutina goroutine
gorutinas goroutines
canal channel
canales channels
búfer buffered
cerrar close
cierro close
recorrer range
esperar wait
espero wait
bloqueo deadlock
bloqueadas blocked
carrera race
carreras races
detector detector
mutex mutex
compartida shared
compartido shared
proteger protect
protejo protect
cancelar cancel
cancelo cancel
contexto context
plazo deadline
fuga leak
función function
funciones functions
valor value
valores values
devolver return
devuelve returns
múltiples multiple
envolver wrap
envuelvo wrap
envueltos wrapped
comparar compare
comparan compare
variable variable
variables variables
tipo type
tipos types
cero zero
inicializar initialize
constante constant
constantes constants
conversión conversion
convertir convert
convierto convert
entero int
flotante float
arreglo array
rebanada slice
mapa map
mapas maps
estructura struct
estructuras structs
campo field
módulo module
paquete package
programa program
compilar compile
ejecutar run
ejecuto run
instalar install
versión version
herramientas tools
pruebas tests
token token
revocar revoke
revoco revoke
clave key
pregunta question
preguntas questions
límite limit
plan plan
planes plans
mes month
mensual monthly
cupo quota
barra bar
uso usage
hilo thread
hilos threads
conversación conversation
conversaciones conversations
borrar delete
eliminar delete
memoria memory
privacidad privacy
valoración rating
valoraciones ratings
pulgar thumbs
motivo reason
estilo style
estilos styles
guiar guide
explicar explain
detener stop
respuesta answer
respuestas answers
lección lesson
lecciones lessons
tutor tutor
conexión offline
`

// bridge maps a word, without accents, to its translations.
var bridge = func() map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(glossary, "\n") {
		es, en, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || es == en {
			continue
		}
		m[unaccent(es)] = append(m[unaccent(es)], en)
		m[en] = append(m[en], es)
	}
	return m
}()

// translations are the glossary's translations of terms not already among them.
func translations(terms []string) []string {
	have := map[string]bool{}
	for _, t := range terms {
		have[t] = true
	}
	var out []string
	for _, t := range terms {
		for _, tr := range bridge[unaccent(t)] {
			if !have[tr] {
				have[tr] = true
				out = append(out, tr)
			}
		}
	}
	return out
}

// unaccent drops the accents of Spanish words, as students often do.
func unaccent(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if r < 0x300 || r > 0x36f {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// bridged is tsQuery of terms with each word's translations in its term.
func bridged(terms []string) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		group := []string{tsQuery([]string{t})}
		for _, tr := range bridge[unaccent(t)] {
			group = append(group, tsQuery([]string{tr}))
		}
		parts = append(parts, strings.Join(group, "|"))
	}
	return strings.Join(parts, " | ")
}
