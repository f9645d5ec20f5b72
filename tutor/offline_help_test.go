package tutor

import (
	"context"
	"strings"
	"testing"

	"aula/content"
	"aula/content/importer"
	"aula/models"
)

// The offline tutor on the real help articles, in both languages: a
// question the help answers cites its section; one it does not answer
// (passwords, accounts, email) says so in the question's language instead
// of quoting a section that merely shares a verb with it ("cambio" and
// "Cambiar de plan").
func TestOfflineHelpCoverage(t *testing.T) {
	f := offlineOnContent(t)
	uid := f.user(models.PlanPro)
	for _, tc := range []struct {
		q, cites string // cites: the heading quoted; "" the help does not cover it
	}{
		{"¿Cómo cambio mi contraseña?", ""},
		{"How do I change my password?", ""},
		{"¿Cómo cambio la contraseña de mi cuenta?", ""},
		{"¿Cómo borro mi cuenta?", ""},
		{"How do I delete my account?", ""},
		{"¿Cómo cambio mi correo electrónico?", ""},
		{"¿Cómo cambio de plan?", "Cambiar de plan"},
		{"How do I change my plan?", "Changing your plan"},
		{"¿Cómo cambio de hilo?", "Cambiar de hilo"},
		{"¿Cómo revoco un token?", "Revocar un token"},
		{"How do I revoke a token?", "Revoking a token"},
		{"¿Cómo se cuentan las preguntas?", "Cómo se cuentan las preguntas"},
	} {
		t.Run(tc.q, func(t *testing.T) {
			m := f.ask(uid, f.conv(uid, models.ModeHelp, "", "explain"), tc.q)
			lang := DetectLanguage(tc.q)
			cited := citationRE.FindAllStringSubmatch(m.Content, -1)
			if tc.cites == "" {
				if len(cited) > 0 || !strings.Contains(m.Content, offlineTexts[lang].nothingHelp) {
					t.Errorf("answered with help text instead of saying the help does not cover it:\n%s", m.Content)
				}
				return
			}
			for _, c := range cited {
				if strings.Contains(c[1], tc.cites) {
					return
				}
			}
			t.Errorf("does not cite %q:\n%s", tc.cites, m.Content)
		})
	}
}

// offlineOnContent is a fixture answering with the offline tutor from the
// real lessons and help articles.
func offlineOnContent(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, func(c *Config) {
		c.NewProvider = func(context.Context, string, string, Credentials) (Provider, error) { return NewOffline(0), nil }
	})
	if _, err := importer.Import(context.Background(), models.NewContent(f.db.DB), content.FS); err != nil {
		t.Fatal(err)
	}
	return f
}
