package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// catalogStatuses gives the demo catalog one of each status: a hidden path
// "ops" with a draft lesson, and routing-basics unpublished.
func catalogStatuses(t *testing.T, s *apptest.Server) {
	t.Helper()
	ctx, who := context.Background(), models.Actor{}
	c := s.App.Content
	if _, err := c.CreatePath(ctx, who, models.NewPath{Slug: "ops", Title: "Operations", Description: "Running services in production.", Language: "en"}); err != nil {
		t.Fatal(err)
	}
	m, err := c.CreateModule(ctx, who, "ops", models.NewModule{Slug: "basics", Title: "Basics"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateLesson(ctx, who, m.ID, models.NewLesson{ID: "on-call-with-a-rather-long-identifier", Title: "Being on call without burning out"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Unpublish(ctx, "routing-basics", who); err != nil {
		t.Fatal(err)
	}
}

// domOrder is the lesson ids of module mid as the page shows them.
func domOrder(b *browser.Browser, mid string) string {
	b.T.Helper()
	return eval[string](b, `[...document.querySelectorAll('#module-`+mid+` .content-lesson')].map(l => l.dataset.lesson).join(',')`)
}

// dragBelowJS drags lesson a by its head and drops it on the lower half
// of lesson b, as HTML5 drag and drop does.
const dragBelowJS = `((a, b) => {
	const from = document.querySelector('#lesson-' + a + ' > .content-head'), to = document.querySelector('#lesson-' + b);
	to.scrollIntoView({block: 'center'});
	const r = to.getBoundingClientRect(), dt = new DataTransfer();
	const at = {bubbles: true, cancelable: true, dataTransfer: dt, clientX: r.left + 20, clientY: r.bottom - 3};
	from.dispatchEvent(new DragEvent('dragstart', {bubbles: true, cancelable: true, dataTransfer: dt}));
	to.dispatchEvent(new DragEvent('dragover', at));
	to.dispatchEvent(new DragEvent('drop', at));
	return from.draggable;
})(%q, %q)`

// outlineJS reports the focused element's class, whether it shows its
// focus as the keyboard's, and its outline.
const outlineJS = `(() => {
	const el = document.activeElement, cs = getComputedStyle(el);
	return el.className + ' ' + el.matches(':focus-visible') + ' ' + cs.outlineStyle + ' ' + cs.outlineWidth;
})()`

// In Chromium, with JavaScript on and off: the author opens Content from
// the admin menu and finds each status in words on a badge at 4.5:1 or
// more (light and dark), the page never wider than 1366 or 390 px, in
// English and Spanish; the arrow buttons show their focus ring when
// reached by Tab. With JavaScript a lesson dragged below another stays
// there after a reload; without, its down button does the same.
func TestBrowserContentCatalog(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t, fastTutor)
			s.User(t, "author@example.com", authorPass, models.PlanContentAdmin)
			catalogStatuses(t, s)
			b := browser.New(t, tt.opts...)
			browserSignIn(b, s, "author@example.com", authorPass)
			b.ClickAndWait(`.nav a[href="/admin"]`)
			b.ClickAndWait("#tab-content")
			b.WaitVisible("#paths")
			for _, want := range []string{"Draft", "Published", "Unpublished", "Not visible to students"} {
				if !strings.Contains(b.Text("#paths"), want) {
					b.Fatalf("the catalog shows no %q badge", want)
				}
			}
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				if w := worstContrast(b, "#paths .badge"); w.N < 5 || w.Ratio < 4.5 {
					b.Errorf("%s: the badges' lowest contrast is %.2f (%s, %d badges)", sch, w.Ratio, w.What, w.N)
				}
			}
			b.ColorScheme("light")
			mode := map[bool]string{true: "nojs", false: "js"}[b.NoJS]
			orgShots(b, true, "content-catalog-"+mode)
			b.Navigate(s.URL + "/admin/content#path-ops")
			b.WaitVisible("#path-ops")
			orgShots(b, true, "content-catalog-ops-"+mode)
			focusRing(b)
			reorderInBrowser(t, s, b)
			b.ClickAndWait("#lang-switch")
			b.WaitVisible("#paths")
			if !strings.Contains(b.Text("#paths"), "Borrador") || !strings.Contains(b.Text("#paths"), "No visible para los estudiantes") {
				b.Fatalf("in Spanish: %q", b.Text("#path-ops"))
			}
			orgShots(b, true, "content-catalog-es-"+mode)
			b.ClickAndWait("#content-audit-link")
			b.WaitVisible("#content-audit")
			orgShots(b, true, "content-audit-es-"+mode)
			if !b.NoJS {
				axeEach(t, b, s.URL, "/admin/content", "/admin/content/audit")
			}
		})
	}
}

// focusRing tabs from a middle lesson's up button to its down button and
// checks the ring shows.
func focusRing(b *browser.Browser) {
	b.T.Helper()
	eval[bool](b, `document.querySelector('#lesson-go-functions-errors .order-up').focus(), true`)
	pressKey(b, "\t")
	if got := eval[string](b, outlineJS); !strings.HasPrefix(got, "order-down true solid") || strings.HasSuffix(got, " 0px") {
		b.Errorf("the down button reached by Tab shows %q, want a visible solid outline", got)
	}
}

// reorderInBrowser moves vlan-basics below vlan-cisco-ios: by dragging
// with JavaScript, by its down button without; the order holds after a reload.
func reorderInBrowser(t *testing.T, s *apptest.Server, b *browser.Browser) {
	t.Helper()
	mid := moduleIDOf(t, s, "networking", "switching")
	if got := domOrder(b, mid); got != "vlan-basics,vlan-cisco-ios" {
		b.Fatalf("the switching module shows %s", got)
	}
	if b.NoJS {
		b.ClickAndWait("#lesson-vlan-basics .order-down")
	} else {
		if !eval[bool](b, `document.querySelector('#lesson-vlan-basics > .content-head').draggable`) {
			b.Fatalf("the lesson's head is not draggable")
		}
		// The drop posts the reorder form: wait for the page it leads to.
		ctx, cancel := context.WithTimeout(b.Ctx, browser.StepTimeout)
		defer cancel()
		drag := fmt.Sprintf(dragBelowJS, "vlan-basics", "vlan-cisco-ios")
		if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Evaluate[bool](drag))); err != nil {
			b.Fatalf("drag and drop: %v", err)
		}
		if b.Location() == "" || !strings.HasSuffix(b.Location(), "/admin/content#lesson-vlan-basics") {
			b.Fatalf("after the drop: at %s", b.Location())
		}
	}
	b.Reload()
	b.WaitVisible("#paths")
	if got := domOrder(b, mid); got != "vlan-cisco-ios,vlan-basics" {
		b.Fatalf("after the move and a reload: %s", got)
	}
	if ids, dense := storedOrder(t, s, mid); strings.Join(ids, ",") != "vlan-cisco-ios,vlan-basics" || !dense {
		b.Fatalf("stored: %v dense=%v", ids, dense)
	}
}
