package tutor

import (
	"testing"

	"aula/models"
)

// TestReceiptMarksCitedSections: of the sections given to the tutor, the
// receipt marks cited those the answer links (§ links) or quotes.
func TestReceiptMarksCitedSections(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(testLessons...)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	f.prov.set(emit("A VLAN splits a switch [§ What is a VLAN](#what-is-a-vlan). As the lesson says, " +
		"\"a trunk port carries the traffic of many VLANs between switches\"."))
	r := ParseReceipt(f.ask(u, c, "What is a VLAN and what is a trunk port?").Metadata)
	cited := map[string]bool{}
	for _, cit := range r.Citations {
		cited[cit.Heading] = cit.Cited
	}
	if len(r.Citations) < 3 || !cited["What is a VLAN"] || !cited["Trunk ports"] {
		t.Fatalf("citations %+v: the linked and the quoted sections should be cited", r.Citations)
	}
	n := 0
	for _, v := range cited {
		if v {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d sections marked cited, want 2: %+v", n, r.Citations)
	}
}
