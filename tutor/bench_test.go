package tutor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"aula/models"
)

func reportLatencies(b *testing.B, lat []time.Duration, unit string) {
	b.Helper()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns/"+unit)
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns/"+unit)
}

// From the provider handing over its first token to the first byte a
// hub subscriber receives, through the whole service.
func BenchmarkFirstTokenToSubscriber(b *testing.B) {
	f := newFixture(b)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	ready := make(chan struct{})
	sent := make(chan time.Time, 1)
	f.prov.set(func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
		<-ready
		sent <- time.Now()
		if err := on("first"); err != nil {
			return Usage{}, err
		}
		return Usage{}, on(" rest")
	})
	var lat []time.Duration
	for b.Loop() {
		res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "what is a VLAN?"})
		if err != nil {
			b.Fatal(err)
		}
		sub, err := f.svc.Streams().Subscribe(context.Background(), u, res.AssistantMessage.ID, 0)
		if err != nil {
			b.Fatal(err)
		}
		ready <- struct{}{}
		_, _, _, err = sub.Next(context.Background())
		got := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, got.Sub(<-sent))
		f.wait(u, res.AssistantMessage.ID)
	}
	reportLatencies(b, lat, "first-byte")
}

// Building the request (history window, condensation, retrieval, lesson
// context, prompt) for a question in a 500-message lesson conversation.
func BenchmarkBuildRequest500Messages(b *testing.B) {
	f := newFixture(b)
	f.seedLessons(testLessons...)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeLesson, "vlan-basics", "")
	f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status)
		SELECT ?, ?, s, CASE WHEN s % 2 = 0 THEN 'user' ELSE 'assistant' END,
		       'turn ' || s || ': ' || repeat('how do VLANs and trunk ports work on a Cisco switch ', 6), 'complete'
		FROM generate_series(0, 499) s`, c, u)
	f.exec(`UPDATE conversations SET next_seq = 500 WHERE id = ?`, c)
	f.exec(`ANALYZE`)
	conv, err := models.NewConversations(f.db.DB).Get(context.Background(), u, c)
	if err != nil {
		b.Fatal(err)
	}
	j := &job{answer: models.Message{UserID: u, ConversationID: c}, conv: *conv,
		question: "and how do I configure it?", plain: "and how do I configure it?", beforeSeq: 500}
	for b.Loop() {
		req, r, err := f.svc.buildRequest(context.Background(), j, false)
		if err != nil || len(req.History) == 0 || r.TurnsOmitted == 0 {
			b.Fatalf("build: %v (%d turns)", err, len(req.History))
		}
	}
}

// Full-text retrieval over 10,000 chunks in both languages.
func BenchmarkRetrieval10000Chunks(b *testing.B) {
	f := newFixture(b)
	f.seedLessons(testLessons...)
	seedManyChunks(b, f, 200, 50)
	r := NewRetriever(f.db.DB)
	queries := []string{
		"how do I configure a VLAN trunk on a Cisco switch",
		"¿cómo se configura una VLAN en un switch Cisco?",
		"what is a goroutine",
	}
	for _, q := range queries {
		b.Run(strings.Join(strings.Fields(q)[:3], "_"), func(b *testing.B) {
			for b.Loop() {
				got, err := r.Search(context.Background(), q, Scope{Mode: models.ModeTutor, Lang: "en"}, DefaultTopK)
				if err != nil || len(got) == 0 {
					b.Fatalf("search: %v %d", err, len(got))
				}
			}
		})
	}
}

// topics are the subjects of the bulk lessons: a lesson's chunks share its
// topic's keywords, as real lessons do, so a query term matches a few
// percent of the corpus rather than all of it.
var topics = [][]string{
	{"vlan", "trunk", "switch", "cisco", "access", "tagging"},
	{"subnet", "mask", "host", "prefix", "cidr", "broadcast"},
	{"ospf", "area", "router", "cisco", "metric", "neighbor"},
	{"bgp", "peer", "autonomous", "route", "prefix", "policy"},
	{"goroutine", "channel", "select", "runtime", "scheduler", "mutex"},
	{"slice", "map", "append", "capacity", "pointer", "struct"},
	{"dns", "resolver", "record", "zone", "cache", "query"},
	{"tcp", "handshake", "window", "segment", "retransmission", "port"},
	{"firewall", "rule", "acl", "deny", "permit", "interface"},
	{"wifi", "channel", "ssid", "antenna", "interference", "access"},
	{"configuración", "interfaz", "enrutador", "conmutador", "troncal", "etiqueta"},
	{"subred", "máscara", "dirección", "difusión", "prefijo", "equipo"},
	{"gorrutina", "canal", "planificador", "bloqueo", "memoria", "hilo"},
	{"linux", "kernel", "process", "signal", "filesystem", "permission"},
	{"docker", "container", "image", "volume", "registry", "layer"},
	{"http", "request", "header", "cookie", "status", "cache"},
	{"sql", "index", "query", "transaction", "join", "lock"},
	{"python", "list", "dictionary", "function", "module", "exception"},
	{"ipv6", "address", "neighbor", "autoconfiguration", "prefix", "link"},
	{"stp", "bridge", "loop", "root", "switch", "port"},
}

// seedManyChunks adds lessons × perLesson chunks of about 90 words: Zipf-
// distributed filler from a 20,000-word vocabulary plus the lesson topic's
// keywords and a few from other topics.
func seedManyChunks(b testing.TB, f *fixture, lessons, perLesson int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 2, 19999)
	var moduleID int64
	f.scalar(&moduleID, `SELECT id FROM modules LIMIT 1`)
	for l := range lessons {
		id := fmt.Sprintf("bulk-%d", l)
		topic := topics[l%len(topics)]
		lang := "en"
		if l%len(topics) >= 10 && l%len(topics) <= 12 {
			lang = "es"
		}
		f.exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES (?, ?, ?, ?, 'x', 'x')`,
			id, moduleID, "Bulk "+id, lang)
		var sql strings.Builder
		sql.WriteString(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES `)
		var args []any
		for p := range perLesson {
			var words []string
			for range 80 {
				words = append(words, fmt.Sprintf("w%dx", zipf.Uint64()))
			}
			for range 8 {
				words = append(words, topic[rng.IntN(len(topic))])
			}
			for range 2 {
				other := topics[rng.IntN(len(topics))]
				words = append(words, other[rng.IntN(len(other))])
			}
			rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
			text := strings.Join(words, " ") + "."
			if p > 0 {
				sql.WriteString(",")
			}
			sql.WriteString("(?, ?, ?, ?, ?, ?)")
			h := topic[0] + " " + topic[rng.IntN(len(topic))]
			args = append(args, id, p, h, fmt.Sprintf("s-%d", p), text, hashOf(text))
		}
		f.exec(sql.String(), args...)
	}
	// VACUUM flushes the GIN pending lists the bulk insert filled, as
	// autovacuum would; until then the planner shuns the full-text indexes.
	f.exec(`VACUUM ANALYZE lesson_chunks`)
}
