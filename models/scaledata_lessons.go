package models

import (
	"context"
	"fmt"
	"strings"
)

// scaleTopics are the subjects of the generated lessons, eight words
// each: a lesson's sections share its topic's words, as real lessons do,
// so a question's word matches a few percent of the sections, not all.
var scaleTopics = []string{
	"vlan trunk switch cisco access tagging port frame",
	"subnet mask host prefix cidr broadcast network address",
	"ospf area router cisco metric neighbor route link",
	"bgp peer autonomous route prefix policy router session",
	"goroutine channel select runtime scheduler mutex context worker",
	"slice map append capacity pointer struct type value",
	"dns resolver record zone cache query name server",
	"tcp handshake window segment retransmission port connection socket",
	"firewall rule acl deny permit interface traffic filter",
	"configuración interfaz enrutador conmutador troncal etiqueta puerto red",
	"subred máscara dirección difusión prefijo equipo red host",
	"gorutina canal planificador bloqueo memoria hilo función error",
	"docker container image volume registry layer build network",
	"http request header cookie status cache server client",
	"sql index query transaction join lock table row",
	"error wrap value function return interface type package",
}

// InsertLessons adds n generated lessons of five sections each (a path
// scale-lessons), set-based, for measuring retrieval among many lessons:
// each section is 80 words of Zipf-like filler (w1x … w20000x) and 10 of
// its topic's words; one lesson in three is in Spanish. All published.
func (s *ScaleData) InsertLessons(ctx context.Context, n int) error {
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		for _, st := range lessonScaleSteps(n) {
			if err := tx.Exec(st.sql, st.args...).Error; err != nil {
				return fmt.Errorf("generate %s: %w", st.what, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// VACUUM flushes the GIN pending lists the bulk insert filled, as
	// autovacuum would; until then the planner shuns the full-text indexes.
	if err := conn(ctx, s.db).Exec(`VACUUM ANALYZE lessons, lesson_chunks`).Error; err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	return nil
}

// lessonScaleSteps are InsertLessons' statements, in dependency order.
func lessonScaleSteps(n int) []scaleStep {
	return []scaleStep{
		{"path", `INSERT INTO paths (slug, title, language, position) VALUES ('scale-lessons', 'Scale lessons', 'en', 98)`, nil},
		{"module", `INSERT INTO modules (path_id, slug, title, position)
			SELECT id, 'all', 'All of it', 1 FROM paths WHERE slug = 'scale-lessons'`, nil},
		{"lessons", `INSERT INTO lessons (id, module_id, title, position, language, content_md, content_hash)
			SELECT 'scale-lesson-' || i, m.id, 'Scale lesson ' || i, i, CASE WHEN i % 3 = 0 THEN 'es' ELSE 'en' END,
				'# Scale lesson', 'h' || i
			FROM modules m JOIN paths p ON p.id = m.path_id, generate_series(1, ?) AS i WHERE p.slug = 'scale-lessons'`, []any{n}},
		{"sections", `INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash)
			SELECT l.id, k, initcap(t.w[1 + (l.position + k) % 8]) || ' ' || t.w[1 + (l.position * k) % 8], 'part-' || k, x.text, md5(x.text)
			FROM lessons l
			CROSS JOIN generate_series(1, 5) AS k
			CROSS JOIN LATERAL (SELECT string_to_array((string_to_array(?, '|'))[1 + l.position % ?], ' ') AS w) t
			CROSS JOIN LATERAL (SELECT string_agg(CASE WHEN j % 9 = 0 THEN t.w[1 + abs(hashtext(l.id || k || j)) % 8]
					ELSE 'w' || floor(exp(ln(20000) * (abs(hashtext(l.id || '/' || k || '/' || j)) % 100000) / 100000.0)) || 'x' END, ' ') AS text
				FROM generate_series(1, 90) AS j) x
			WHERE l.id LIKE 'scale-lesson-%'`, []any{strings.Join(scaleTopics, "|"), len(scaleTopics)}},
	}
}
