package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/internal/pgtest"
	"aula/internal/webtest"
	"aula/models"
)

// renderBenchAnswer is a tutor answer of the usual shape: headings'
// worth of bold, lists, code and § links, about 1.6 KB.
const renderBenchAnswer = "A **VLAN** splits one switch into several broadcast domains, " +
	"as [§ What a VLAN is](#what-a-vlan-is) explains.\n\n" +
	"Three problems appear as a network grows:\n\n" +
	"1. **Broadcast traffic** reaches every port, so every host pays for it.\n" +
	"2. **Security**: any host can reach any other on the same segment.\n" +
	"3. **Moves** between floors need recabling instead of a setting.\n\n" +
	"To put a port in VLAN 10 on a Cisco switch:\n\n" +
	"```\ninterface GigabitEthernet0/1\n switchport mode access\n switchport access vlan 10\n```\n\n" +
	"A *trunk* carries several VLANs between switches, each frame tagged with its VLAN id (802.1Q); " +
	"see [§ Trunks](#trunks). Hosts in different VLANs talk through a router or a layer 3 switch, " +
	"which is where you filter what may cross.\n\n" +
	"- Keep management on its own VLAN.\n- Do not use VLAN 1 for users.\n- Document which port is in which VLAN.\n\n" +
	"Try it: which VLAN would you give the printers, and why? Write the `switchport` lines for one of them."

// renderBenchTokens cuts the answer into tokens of about four bytes, as models emit.
func renderBenchTokens() []string {
	var toks []string
	for s := renderBenchAnswer; s != ""; {
		n := min(4, len(s))
		toks = append(toks, s[:n])
		s = s[n:]
	}
	return toks
}

// BenchmarkStreamRenderCPU: the server CPU an answer's stream costs with
// 500 students reading at once, first as raw text (chunks only), then
// with the Markdown rendered while it streams (?render=1, the site's
// bubble: chunks plus an `md` rendering at most every 100 ms), both in
// this run on the same aula binary. The figures are aula's CPU-seconds
// (user + system, from /proc) per stream, for the whole answer: asking,
// the fake OpenAI client, storing, streaming and, in the second, rendering.
func BenchmarkStreamRenderCPU(b *testing.B) {
	const n = 500
	tokens := renderBenchTokens()
	fake := fakellm.Start(b, fakellm.OpenAI, fakellm.Options{Tokens: tokens, TokensPerSecond: 80})
	db := pgtest.New(b)
	ctx := context.Background()
	if _, err := models.NewUsers(db.DB).Create(ctx, models.NewUser{Email: "render@example.com", Name: "Render",
		Password: "a-long-password-1", Plan: models.PlanPro}); err != nil {
		b.Fatal(err)
	}
	u, err := models.NewUsers(db.DB).GetByEmail(ctx, "render@example.com")
	if err != nil {
		b.Fatal(err)
	}
	p := startAula(b, db.URL, "AULA_LLM_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+fake.URL,
		fmt.Sprintf("AULA_STREAMS_PER_USER=%d", n)) // one account reads all n
	st := signInStudent(b, p.URL, "render@example.com", "a-long-password-1", sharedTransport())
	var raw, rendered time.Duration
	var drafts int
	for b.Loop() {
		for _, query := range []string{"", "?render=1"} {
			cids := make([]string, n)
			for i := range cids {
				c, err := models.NewConversations(db.DB).Create(ctx, u.ID, models.ModeTutor, "", 0, "")
				if err != nil {
					b.Fatal(err)
				}
				cids[i] = c.ID
			}
			before, err := p.cpu()
			if err != nil {
				b.Fatal(err)
			}
			mds := streamAll(b, st, cids, query)
			after, err := p.cpu()
			if err != nil {
				b.Fatal(err)
			}
			if query == "" {
				raw += after - before
			} else {
				rendered += after - before
				drafts += mds
			}
		}
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(n*b.N) }
	b.ReportMetric(per(raw), "cpu-s/stream-raw")
	b.ReportMetric(per(rendered), "cpu-s/stream-rendered")
	b.ReportMetric(per(rendered-raw), "cpu-s/stream-rendering")
	b.ReportMetric(float64(drafts)/float64(n*b.N), "md-events/stream")
}

// streamAll asks in every thread at once and reads each answer to its
// end; every one must complete. It returns how many `md` events came.
func streamAll(b *testing.B, st *student, cids []string, query string) int {
	b.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var wg sync.WaitGroup
	mds := 0
	errs := make(chan error, len(cids))
	for _, cid := range cids {
		wg.Go(func() {
			mid, status, err := st.ask(ctx, cid, "Explain VLANs, please.")
			if err != nil || status != http.StatusOK {
				errs <- fmt.Errorf("ask: %d %v", status, err)
				return
			}
			mine := 0
			final, err := st.streamAt(ctx, mid, query, func(ev webtest.SSEEvent, _ time.Time) bool {
				if ev.Type == "md" {
					mine++
				}
				return true
			})
			if err != nil || final.Type != "done" || !strings.Contains(final.Data, "<strong>VLAN</strong>") {
				errs <- fmt.Errorf("stream %s%s: %v, final %q", mid, query, err, final.Type)
				return
			}
			mu.Lock()
			mds += mine
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return mds
}
