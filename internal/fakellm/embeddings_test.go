package fakellm_test

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"aula/internal/fakellm"
)

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

// The fake answers OpenAI's POST /v1/embeddings in OpenAI's shape, one
// unit vector per input in order, the same text always the same vector
// and texts sharing words nearer than texts that do not.
func TestEmbeddingsWireFormat(t *testing.T) {
	s := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{})
	texts := []string{"Trunk ports carry many VLANs", "a trunk port carries VLAN traffic", "goroutines are cheap threads"}
	body, _ := json.Marshal(map[string]any{"model": "m", "input": texts})
	resp, err := http.Post(s.URL+"/v1/embeddings", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Object string `json:"object"`
		Data   []struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Model string `json:"model"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || out.Object != "list" || len(out.Data) != 3 || out.Model != "m" || out.Usage.PromptTokens == 0 {
		t.Fatalf("status %d, %+v", resp.StatusCode, out)
	}
	for i, d := range out.Data {
		if d.Index != i || d.Object != "embedding" || len(d.Embedding) != fakellm.DefaultEmbedDims ||
			math.Abs(cosine(d.Embedding, d.Embedding)-1) > 1e-5 {
			t.Fatalf("item %d: index %d, %d dims, length² %f", i, d.Index, len(d.Embedding), cosine(d.Embedding, d.Embedding))
		}
		if cosine(d.Embedding, fakellm.Embedding(texts[i], 0)) < 0.9999 {
			t.Fatalf("item %d is not the text's deterministic vector", i)
		}
	}
	near, far := cosine(out.Data[0].Embedding, out.Data[1].Embedding), cosine(out.Data[0].Embedding, out.Data[2].Embedding)
	if near <= far {
		t.Fatalf("similar texts at %f, unrelated ones at %f", near, far)
	}
	if r, _ := s.LastRequest(); len(r.Inputs) != 3 || r.Path != "/v1/embeddings" {
		t.Fatalf("recorded %q at %s", r.Inputs, r.Path)
	}
	s.SetEmbed(fakellm.EmbedOptions{Status: http.StatusTooManyRequests})
	resp2, err := http.Post(s.URL+"/v1/embeddings", "application/json", strings.NewReader(`{"model":"m","input":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("scripted status: %d", resp2.StatusCode)
	}
}
