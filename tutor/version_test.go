package tutor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"aula/models"
)

// TestRegenerateKeepsVersions: regenerating a finished answer keeps the
// earlier version; only the version on display enters later prompts;
// switching back shows the first again; each regeneration counts as a
// question.
func TestRegenerateKeepsVersions(t *testing.T) {
	f := newFixture(t)
	n := 0
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		n++
		return emit(fmt.Sprintf("Version %d of the answer.", n))(ctx, req, on)
	})
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	first := f.ask(u, c, "What is a VLAN?")
	msgs := models.NewMessages(f.db.DB)
	ctx := context.Background()
	if _, err := f.svc.Retry(ctx, u, first.ID); err != nil {
		t.Fatal(err)
	}
	second := f.wait(u, first.ID)
	counts, err := msgs.VersionCounts(ctx, u, []string{first.ID})
	if err != nil {
		t.Fatal(err)
	}
	if second.Content != "Version 2 of the answer." || second.Version != 2 || counts[first.ID] != 2 {
		t.Fatalf("after regenerating: %q version %d of %d", second.Content, second.Version, counts[first.ID])
	}
	remembered := func() string {
		t.Helper()
		f.ask(u, c, "and then?")
		var all []string
		for _, h := range f.prov.last(t).History {
			all = append(all, h.Content)
		}
		return strings.Join(all, "\n")
	}
	if h := remembered(); !strings.Contains(h, "Version 2 of") || strings.Contains(h, "Version 1 of") {
		t.Fatalf("history with version 2 on display:\n%s", h)
	}
	shown, err := msgs.ShowVersion(ctx, u, first.ID, 1)
	if err != nil || shown.Content != "Version 1 of the answer." {
		t.Fatalf("show version 1: %v %+v", err, shown)
	}
	if h := remembered(); !strings.Contains(h, "Version 1 of") || strings.Contains(h, "Version 2 of") {
		t.Fatalf("history with version 1 on display:\n%s", h)
	}
	if counts, _ := msgs.VersionCounts(ctx, u, []string{first.ID}); counts[first.ID] != 2 {
		t.Fatalf("switching lost a version: %d", counts[first.ID])
	}
	if _, err := msgs.ShowVersion(ctx, f.user(models.PlanPro), first.ID, 2); err == nil {
		t.Fatal("someone else switched the answer's version")
	}
	if f.used(u) != 4 {
		t.Fatalf("questions counted %d; want 4 (ask, regenerate, two follow-ups)", f.used(u))
	}
}
