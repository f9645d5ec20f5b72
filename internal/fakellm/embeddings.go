package fakellm

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"
)

// DefaultEmbedDims is the length of the fake's vectors unless
// EmbedOptions.Dims says otherwise.
const DefaultEmbedDims = 256

// EmbedOptions script the OpenAI embeddings endpoint (POST …/embeddings)
// of a fake speaking OpenAI.
type EmbedOptions struct {
	// Dims is the vectors' length (0: DefaultEmbedDims).
	Dims int
	// Delay holds every answer this long (the client may give up first).
	Delay time.Duration
	// Status, when non-zero, answers with this HTTP status and OpenAI's
	// JSON error body instead of vectors.
	Status int
	// Hang sends nothing until the client goes away.
	Hang bool
}

// SetEmbed changes how the embeddings endpoint answers from the next
// request on (a test embeds the sections, then makes the question's
// call fail).
func (s *Server) SetEmbed(o EmbedOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Embed = o
}

// embeddingRequest is OpenAI's request body: input is one string or a
// list of them.
type embeddingRequest struct {
	Model string          `json:"model"`
	Input json.RawMessage `json:"input"`
}

// serveEmbeddings answers an embeddings request with Embedding's
// deterministic vectors, in OpenAI's response shape.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request, body []byte) {
	var in embeddingRequest
	inputs, err := parseEmbedding(body, &in)
	if err != nil {
		http.Error(w, "fakellm: cannot parse request: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Model: in.Model, Inputs: inputs})
	opts := s.opts.Embed
	s.mu.Unlock()
	wait := opts.Delay
	if opts.Hang {
		wait = time.Hour
	}
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			s.markDisconnected()
			return
		case <-s.done:
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if opts.Status != 0 {
		w.WriteHeader(opts.Status)
		_ = json.NewEncoder(w).Encode(openaiEncoder{}.errorBody(opts.Status))
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(inputs))
	words := 0
	for i, text := range inputs {
		data[i] = item{Object: "embedding", Index: i, Embedding: Embedding(text, opts.Dims)}
		words += wordCount(text)
	}
	_ = json.NewEncoder(w).Encode(obj{"object": "list", "data": data, "model": in.Model,
		"usage": obj{"prompt_tokens": words, "total_tokens": words}})
}

// parseEmbedding decodes an embeddings request and its input texts.
func parseEmbedding(body []byte, in *embeddingRequest) ([]string, error) {
	if err := json.Unmarshal(body, in); err != nil {
		return nil, err
	}
	var one string
	if err := json.Unmarshal(in.Input, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(in.Input, &many); err != nil {
		return nil, fmt.Errorf("input is neither a string nor a list of strings: %w", err)
	}
	if len(many) == 0 {
		return nil, fmt.Errorf("input is empty")
	}
	return many, nil
}

// Embedding is the fake's vector of text: a hashed bag of words, so
// texts sharing words are near and the same text always gets the same
// vector. Each word of three letters or more counts by its first six
// letters (subnet, subnets and subnetting share one), in one of dims
// dimensions with a sign, both from its hash; the vector has length 1
// (all zeros for a text without such a word).
func Embedding(text string, dims int) []float32 {
	if dims <= 0 {
		dims = DefaultEmbedDims
	}
	v := make([]float64, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		r := []rune(w)
		if len(r) < 3 || fakeStopwords[w] {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(string(r[:min(len(r), 6)])))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%uint64(dims)] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// fakeStopwords are English and Spanish words too common to place a text.
var fakeStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and are for with that this what how why can you your not from into its has have was
		does one two but all any when which who there their then them use used using
		los las una uno del con por para que qué como cómo por sus son está están eso esto esta este ese esa pero más
		hay puede tiene entre sin sobre cuando donde dónde cuál`) {
		m[w] = true
	}
	return m
}()
