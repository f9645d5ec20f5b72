package tutor

import (
	"strings"
	"testing"

	"aula/models"
)

// TestUncoveredQuestionCitesNothing: a question whose words the lessons
// never mention gets no section, even though one of its words matches
// some ("work"), and the lesson's tutor is told to say the lesson does
// not cover it; a typo of a lesson's word still finds its section.
func TestUncoveredQuestionCitesNothing(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(testLessons...)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeLesson, "vlan-basics", "")
	r := ParseReceipt(f.ask(u, c, "How does IPv6 stateless autoconfiguration work?").Metadata)
	if len(r.Citations) != 0 {
		t.Fatalf("an uncovered question cited %+v", r.Citations)
	}
	if req := f.prov.last(t); !strings.Contains(req.System, "No section of this lesson matches") {
		t.Fatalf("the prompt does not say no section matched:\n%s", req.System)
	}
	typo := ParseReceipt(f.ask(u, c, "What do trunk portz carry between swiches?").Metadata)
	if len(typo.Citations) == 0 || typo.Citations[0].Heading != "Trunk ports" {
		t.Fatalf("a question with typos cited %+v, want Trunk ports first", typo.Citations)
	}
}
