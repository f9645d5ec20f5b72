package tutor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

type chunkFixture struct{ heading, text string }

type lessonFixture struct {
	id, title, lang string
	chunks          []chunkFixture
}

// The lessons retrieval tests search: VLANs, subnetting and Go, in both
// languages, with near misses (Cisco router configuration, Go toolchain
// configuration) so a follow-up has to carry its topic to find the right one.
var testLessons = []lessonFixture{
	{"vlan-basics", "VLAN basics", "en", []chunkFixture{
		{"What is a VLAN", "A VLAN (virtual LAN) splits one physical switch into separate broadcast domains. Devices in different VLANs cannot talk to each other without a router."},
		{"Configuring VLANs on a Cisco switch", "On a Cisco switch, create the VLAN with the command vlan 10 in global configuration mode, give it a name, then assign access ports with switchport mode access and switchport access vlan 10."},
		{"Trunk ports", "A trunk port carries the traffic of many VLANs between switches, tagging each frame with its 802.1Q VLAN id."},
	}},
	{"subnetting", "Subnetting", "en", []chunkFixture{
		{"Subnet masks", "A subnet mask such as 255.255.255.0 tells which part of an IPv4 address is the network and which part is the host."},
		{"Configuring an IP address on a Cisco router", "On a Cisco router, enter interface configuration mode and set the address with ip address 192.168.1.1 255.255.255.0, then bring the interface up with no shutdown."},
		{"Counting hosts", "A /26 network has 64 addresses; removing the network and broadcast addresses leaves 62 usable hosts."},
	}},
	{"go-basics", "Go basics", "en", []chunkFixture{
		{"Goroutines", "A goroutine is a lightweight thread managed by the Go runtime; start one with the go keyword."},
		{"Configuring the Go toolchain", "Configure GOPATH, GOPROXY and other settings with go env -w; the configuration is stored per user."},
	}},
	{"vlan-fundamentos", "Fundamentos de VLAN", "es", []chunkFixture{
		{"Qué es una VLAN", "Una VLAN (red de área local virtual) divide un switch físico en varios dominios de difusión separados. Los equipos de VLAN distintas no se comunican sin un router."},
		{"Configuración de VLAN en Cisco", "En un switch Cisco, la VLAN se crea con el comando vlan 10 en el modo de configuración global, se le asigna un nombre y los puertos de acceso se configuran con switchport access vlan 10."},
		{"Puertos troncales", "Un puerto troncal transporta el tráfico de muchas VLAN entre switches y etiqueta cada trama con 802.1Q."},
	}},
	{"subredes", "Subredes", "es", []chunkFixture{
		{"Máscaras de subred", "Una máscara de subred como 255.255.255.0 indica qué parte de la dirección IPv4 es la red y qué parte es el host."},
		{"Configurar una dirección IP en un router Cisco", "En un router Cisco, entra en el modo de configuración de la interfaz, asigna la dirección con ip address y activa la interfaz con no shutdown."},
	}},
	{"go-fundamentos", "Fundamentos de Go", "es", []chunkFixture{
		{"Gorrutinas", "Una gorrutina es un hilo ligero gestionado por el runtime de Go; se inicia con la palabra clave go."},
	}},
}

func anchorOf(heading string) string {
	return strings.ToLower(strings.Join(strings.Fields(heading), "-"))
}

func hashOf(text string) string {
	s := sha256.Sum256([]byte(text))
	return hex.EncodeToString(s[:])
}

// seedLessons inserts the test lessons (content_md built from the chunks)
// and returns the module id.
func (f *fixture) seedLessons(lessons ...lessonFixture) int64 {
	f.t.Helper()
	var pathID, moduleID int64
	f.scalar(&pathID, `INSERT INTO paths (slug, title, language) VALUES ('net', 'Networking', 'en')
		ON CONFLICT (slug) DO UPDATE SET title = excluded.title RETURNING id`)
	f.scalar(&moduleID, `INSERT INTO modules (path_id, slug, title) VALUES (?, 'm1', 'Module')
		ON CONFLICT (path_id, slug) DO UPDATE SET title = excluded.title RETURNING id`, pathID)
	for _, l := range lessons {
		var md strings.Builder
		fmt.Fprintf(&md, "# %s\n\n", l.title)
		for _, c := range l.chunks {
			fmt.Fprintf(&md, "## %s\n\n%s\n\n", c.heading, c.text)
		}
		f.exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES (?, ?, ?, ?, ?, ?)`,
			l.id, moduleID, l.title, l.lang, md.String(), hashOf(md.String()))
		for i, c := range l.chunks {
			f.exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES (?, ?, ?, ?, ?, ?)`,
				l.id, i, c.heading, anchorOf(c.heading), c.text, hashOf(c.text))
		}
	}
	return moduleID
}

func (f *fixture) seedHelp() {
	f.t.Helper()
	f.exec(`INSERT INTO help_articles (id, title, language, content_md, content_hash) VALUES
		('asking', 'Asking the tutor', 'en', 'x', 'x'), ('plans', 'Plans and limits', 'en', 'x', 'x')`)
	f.exec(`INSERT INTO help_chunks (article_id, position, heading, anchor, text, hash) VALUES
		('asking', 0, 'Starting a new thread', 'new-thread', 'Press New thread in the tutor panel to start a conversation with no history.', 'h1'),
		('plans', 0, 'Monthly question limit', 'limit', 'The FREE plan allows 3 questions a month; the limit resets on the first day of each month.', 'h2')`)
}
