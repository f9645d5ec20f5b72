package api_test

import (
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// TestAPIRegenerateKeepsVersions: regenerating through the API keeps the
// earlier version, counts a question, and either version can be put on
// display; someone else's answer is a 404.
func TestAPIRegenerateKeepsVersions(t *testing.T) {
	p := apptest.Numbered()
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "regen@example.com", "regen-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)
	other := apptest.APIToken(t, s, s.User(t, "other@example.com", "other-pass-1", models.PlanPro).ID)
	first := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"}, 200)
	mid := first["messageId"].(string)
	regen := apptest.APIJSON(t, s, tok, "POST", "/messages/"+mid+"/regenerate", nil, 200)
	if regen["content"] != "Version 2." || regen["version"].(float64) != 2 || regen["versions"].(float64) != 2 {
		t.Fatalf("regenerated: %v", regen)
	}
	back := apptest.APIJSON(t, s, tok, "POST", "/messages/"+mid+"/versions/1", nil, 200)
	if back["content"] != "Version 1." || back["version"].(float64) != 1 || back["versions"].(float64) != 2 {
		t.Fatalf("version 1: %v", back)
	}
	if usage := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200); usage["used"].(float64) != 2 {
		t.Fatalf("questions counted %v, want 2", usage["used"])
	}
	apptest.APIJSON(t, s, other, "POST", "/messages/"+mid+"/regenerate", nil, 404)
	apptest.APIJSON(t, s, other, "POST", "/messages/"+mid+"/versions/2", nil, 404)
	apptest.APIJSON(t, s, tok, "POST", "/messages/"+mid+"/versions/7", nil, 404)
}
