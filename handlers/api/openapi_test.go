package api_test

import (
	"encoding/json"
	"mime"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// openAPIDoc is the part of the served document the test walks.
type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage
}

type openAPIOp struct {
	Security    *[]any `json:"security"`
	RequestBody *struct {
		Content map[string]struct {
			Example json.RawMessage `json:"example"`
		}
	} `json:"requestBody"`
	Parameters []struct {
		Name, In string
		Example  any
	}
	Responses map[string]struct {
		Content map[string]json.RawMessage
	}
}

// routeParam is a path parameter as echo writes it (:id); OpenAPI writes {id}.
var routeParam = regexp.MustCompile(`:(\w+)`)

// Every route the document lists answers, with a live token and with
// none, with a status and content type the document gives; and every
// API route the server has is in the document.
func TestOpenAPIDocumentMatchesRoutes(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "doc@example.com", "doc-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)
	answer := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"}, 200)
	started := apptest.APIJSON(t, s, tok, "POST", "/checks", map[string]any{"lessonId": "vlan-basics"}, 201)
	// The /org routes answer an organization's admin; the PRO user is refused them.
	s.Org(t, "doc-org", "doc-admin@example.com", "doc-member@example.com")
	adminTok := apptest.APIToken(t, s, s.UserID(t, "doc-admin@example.com"))
	assigned := apptest.APIJSON(t, s, adminTok, "POST", "/org/assignments", map[string]any{"lessonIds": []string{"subnetting"}}, 201)
	ids := map[string]string{"{id}": answer["conversationId"].(string), "{answerId}": answer["messageId"].(string), "{n}": "1",
		"{checkId}":      started["id"].(string),
		"{assignmentId}": strconv.Itoa(int(assigned["items"].([]any)[0].(map[string]any)["id"].(float64)))}

	resp, b := apptest.APICall(t, s, "", "GET", "/openapi.json", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("openapi.json: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var doc openAPIDoc
	if err := json.Unmarshal(b, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("not an OpenAPI 3 document: %v", err)
	}

	documented := map[string]bool{}
	// DELETE last, so the conversation exists for the other operations.
	var keys []string
	for path, item := range doc.Paths {
		for method := range item {
			if method != "parameters" {
				keys = append(keys, method+" "+path)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return !strings.HasPrefix(keys[i], "delete") && strings.HasPrefix(keys[j], "delete") ||
			strings.HasPrefix(keys[i], "delete") == strings.HasPrefix(keys[j], "delete") && keys[i] < keys[j]
	})
	for _, key := range keys {
		method, path, _ := strings.Cut(key, " ")
		var op openAPIOp
		if err := json.Unmarshal(doc.Paths[path][method], &op); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		documented[strings.ToUpper(method)+" /api/v1"+path] = true
		url := path
		for k, v := range ids {
			url = strings.ReplaceAll(url, k, v)
		}
		var query []string
		for _, p := range op.Parameters {
			if p.In == "query" && p.Example != nil {
				query = append(query, p.Name+"="+p.Example.(string))
			}
		}
		if len(query) > 0 {
			url += "?" + strings.Join(query, "&")
		}
		var body any
		if op.RequestBody != nil {
			ex := string(op.RequestBody.Content["application/json"].Example)
			if ex == "" {
				t.Fatalf("%s: the request body has no example", key)
			}
			for k, v := range ids {
				ex = strings.ReplaceAll(ex, k, v)
			}
			body = ex
		}
		check := func(token string) int {
			resp, b := apptest.APICall(t, s, token, strings.ToUpper(method), url, body)
			r, ok := op.Responses[strconv.Itoa(resp.StatusCode)]
			if !ok {
				t.Errorf("%s: status %d is not documented: %s", key, resp.StatusCode, b)
				return resp.StatusCode
			}
			ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if len(r.Content) == 0 {
				if len(b) != 0 {
					t.Errorf("%s: %d has a body the document does not give", key, resp.StatusCode)
				}
			} else if _, ok := r.Content[ct]; !ok {
				t.Errorf("%s: %d answered %q, documented %v", key, resp.StatusCode, ct, r.Content)
			}
			return resp.StatusCode
		}
		owner := tok
		if strings.HasPrefix(path, "/org/") {
			if st := check(tok); st != 403 {
				t.Errorf("%s with a token of no organization's admin: %d", key, st)
			}
			owner = adminTok
		}
		if st := check(owner); st >= 300 {
			t.Errorf("%s: the documented example answers %d", key, st)
		}
		if op.Security == nil || len(*op.Security) > 0 {
			if st := check(""); st != 401 {
				t.Errorf("%s without a token: %d", key, st)
			}
		}
	}
	for _, r := range s.Handler.Routes() {
		if strings.HasPrefix(r.Path, "/api/v1/") && !strings.HasSuffix(r.Path, "*") {
			key := r.Method + " " + routeParam.ReplaceAllString(r.Path, "{$1}")
			if !documented[key] {
				t.Errorf("route %s is not in the OpenAPI document", key)
			}
		}
	}
}
