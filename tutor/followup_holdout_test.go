package tutor

import (
	"context"
	"strings"
	"testing"

	"aula/models"
)

// followUpDialogues are held out from the condensation's design (none of
// its markers or examples were tuned on them): a first question, a
// follow-up that leans on it, and the section the follow-up needs.
var followUpDialogues = []struct{ first, followUp, want string }{
	{"What is a VLAN?", "How do trunk ports carry them between switches?", "Trunk ports"},
	{"Tell me about VLANs.", "so how are they tagged between switches?", "Trunk ports"},
	{"How do I create a VLAN on a Cisco switch?", "What does it do to broadcast domains?", "What is a VLAN"},
	{"What is a subnet mask?", "how many usable hosts does a /26 have then?", "Counting hosts"},
	{"How do I count hosts in a /26?", "and what does the mask 255.255.255.0 mean?", "Subnet masks"},
	{"How do I set an IP address on a Cisco router?", "what about bringing the interface up?", "Configuring an IP address on a Cisco router"},
	{"What is a goroutine?", "how do I start one?", "Goroutines"},
	{"Where does go env -w store settings?", "and GOPROXY, how do I set it?", "Configuring the Go toolchain"},
	{"¿Qué es una VLAN?", "¿y los puertos troncales qué hacen?", "Puertos troncales"},
	{"¿Cómo configuro una VLAN en Cisco?", "¿eso separa los dominios de difusión?", "Qué es una VLAN"},
	{"¿Qué es una máscara de subred?", "¿y cómo se asigna una dirección IP en un router Cisco?", "Configurar una dirección IP en un router Cisco"},
	{"¿Qué es una gorrutina?", "¿cómo se inicia?", "Gorrutinas"},
}

// TestFollowUpHoldout: on held-out dialogues the keyword condensation (the
// only one on the path to the first token) puts the needed section among
// the first three sources given to the tutor for at least 11 of 12
// follow-ups (at the time of writing: 11/12 in the first three, 5/12
// first; the follow-up alone finds fewer, see the log).
func TestFollowUpHoldout(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(testLessons...)
	u := f.user(models.PlanPro)
	top1, top3, alone3 := 0, 0, 0
	for _, d := range followUpDialogues {
		c := f.conv(u, models.ModeTutor, "", "")
		f.ask(u, c, d.first)
		r := ParseReceipt(f.ask(u, c, d.followUp).Metadata)
		var got []string
		for _, cit := range r.Citations {
			got = append(got, cit.Heading)
		}
		plain, err := f.svc.retr.Search(context.Background(), d.followUp, Scope{Mode: models.ModeTutor, Lang: r.Lang}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if indexOf(headings(plain), d.want) >= 0 {
			alone3++
		}
		switch i := indexOf(got, d.want); {
		case i == 0:
			top1++
			top3++
		case i > 0 && i < 3:
			top3++
		default:
			t.Logf("%q → %q (query %q) cited %q, want %q", d.first, d.followUp, r.RetrievalQuery, strings.Join(got, " | "), d.want)
		}
	}
	n := len(followUpDialogues)
	t.Logf("held-out follow-ups: %d/%d first, %d/%d in the first three; the follow-up alone: %d/%d in the first three", top1, n, top3, n, alone3, n)
	if top3 < 11 {
		t.Fatalf("only %d of %d follow-ups found their section in the first three", top3, len(followUpDialogues))
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
