// Command relay is the class benchmark's floor: the least a Go server
// can do to stream a model's answer to many students at once on this
// machine. It reads the question, asks the provider through langchaingo's
// OpenAI client with aula's transport settings, and writes each token as
// a server-sent `data:` line as aula's API stream does, with no account,
// no database, no prompt and no stored answer. BenchmarkClass runs it
// beside aula, so aula's first token can be read against what any
// program on the same stack gets from the same load.
//
//	OPENAI_BASE_URL=http://127.0.0.1:8080/v1 go run ./internal/bench/relay
//
// It listens on RELAY_ADDR (default 127.0.0.1:0) and prints its URL.
// With RELAY_MODE=pipe it does even less: it posts the question to the
// provider itself and copies the provider's event stream to the student
// line by line, unparsed, which is the least any relay can do.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"slices"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

func main() {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ReadBufferSize, transport.WriteBufferSize = 1<<10, 1<<10
	client := &http.Client{Transport: transport}
	base := os.Getenv("OPENAI_BASE_URL")
	var h http.Handler = pipe{base: base, client: client}
	if os.Getenv("RELAY_MODE") != "pipe" {
		llm, err := openai.New(openai.WithToken(cmp.Or(os.Getenv("OPENAI_API_KEY"), "sk-none")),
			openai.WithBaseURL(base), openai.WithModel("fake-model"), openai.WithHTTPClient(client))
		if err != nil {
			log.Fatal(err)
		}
		h = relay{llm}
	}
	ln, err := net.Listen("tcp", cmp.Or(os.Getenv("RELAY_ADDR"), "127.0.0.1:0"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("relay is ready at http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}

// relay answers every POST holding {"message": ...} with the model's
// answer as an event stream.
type relay struct{ llm llms.Model }

func (r relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	question, ok := readQuestion(w, req)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	_, err := r.llm.GenerateContent(req.Context(),
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, question)},
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			writeData(w, map[string]string{"type": "chunk", "text": string(chunk)})
			flusher.Flush()
			return nil
		}))
	if err != nil {
		writeData(w, map[string]string{"type": "error", "reason": err.Error()})
	} else {
		writeData(w, map[string]string{"type": "done"})
	}
	flusher.Flush()
}

// readQuestion reads the request's {"message": ...}; a request without
// one is answered 400 and ok is false.
func readQuestion(w http.ResponseWriter, req *http.Request) (question string, ok bool) {
	var q struct{ Message string }
	if err := json.NewDecoder(req.Body).Decode(&q); err != nil || q.Message == "" {
		http.Error(w, "want {\"message\": ...}", http.StatusBadRequest)
		return "", false
	}
	return q.Message, true
}

// writeData writes one `data:` line of JSON.
func writeData(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	_, _ = w.Write(append(append([]byte("data: "), b...), '\n', '\n'))
}

// pipe answers every POST holding {"message": ...} with the provider's
// own event stream, copied line by line.
type pipe struct {
	base   string
	client *http.Client
}

func (p pipe) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	question, ok := readQuestion(w, req)
	if !ok {
		return
	}
	body, _ := json.Marshal(map[string]any{"model": "fake-model", "stream": true,
		"messages": []map[string]string{{"role": "user", "content": question}}})
	up, _ := http.NewRequestWithContext(req.Context(), http.MethodPost, p.base+"/chat/completions", bytes.NewReader(body))
	up.Header.Set("Content-Type", "application/json")
	up.Header.Set("Authorization", "Bearer "+cmp.Or(os.Getenv("OPENAI_API_KEY"), "sk-none"))
	res, err := p.client.Do(up)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	lines := bufio.NewScanner(res.Body)
	for lines.Scan() {
		line := lines.Bytes()
		var out []byte
		switch {
		case bytes.HasPrefix(line, []byte("data: [DONE]")):
			out = []byte(`data: {"type":"done"}` + "\n")
		case bytes.Contains(line, []byte(`"content":"`)) && !bytes.Contains(line, []byte(`"content":""`)):
			// The student's reader looks for "type":"chunk" in an event with text.
			out = append(append(slices.Clip(line), ` {"type":"chunk"}`...), '\n')
		default:
			out = append(slices.Clip(line), '\n')
		}
		_, _ = w.Write(out)
		if len(line) == 0 { // an event ends with an empty line
			flusher.Flush()
		}
	}
}
