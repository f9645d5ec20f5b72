package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// sse writes one Server-Sent Event; event may be empty (OpenAI sends none).
func sse(w io.Writer, event string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if event != "" {
		if _, err := fmt.Fprintf(w, "event: %s\n", event); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "data: %s\n\n", b)
	return err
}

type obj = map[string]any

// --- OpenAI chat completions ---

type openaiEncoder struct{}

func (openaiEncoder) contentType() string { return "text/event-stream" }

func openaiChunk(model string, delta obj, finish any) obj {
	return obj{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
		"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}},
	}
}

// start sends the role-only first delta real servers send; clients see it
// as an empty chunk.
func (openaiEncoder) start(w io.Writer, model string, _ int) error {
	return sse(w, "", openaiChunk(model, obj{"role": "assistant", "content": ""}, nil))
}

func (openaiEncoder) token(w io.Writer, model, text string, _ int, _ bool, _ [2]int) error {
	return sse(w, "", openaiChunk(model, obj{"content": text}, nil))
}

func (openaiEncoder) end(w io.Writer, model string, usage [2]int) error {
	if err := sse(w, "", openaiChunk(model, obj{}, "stop")); err != nil {
		return err
	}
	// Sent because clients ask for stream_options.include_usage.
	u := obj{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
		"choices": []obj{},
		"usage":   obj{"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[0] + usage[1]},
	}
	if err := sse(w, "", u); err != nil {
		return err
	}
	_, err := io.WriteString(w, "data: [DONE]\n\n")
	return err
}

func (openaiEncoder) malformed(w io.Writer) error {
	_, err := io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\n\n")
	return err
}

func (openaiEncoder) errorBody(status int) any {
	typ, msg := "server_error", "The server had an error while processing your request."
	switch status {
	case http.StatusTooManyRequests:
		typ, msg = "rate_limit_exceeded", "Rate limit reached for requests"
	case http.StatusUnauthorized:
		typ, msg = "invalid_api_key", "Incorrect API key provided."
	}
	return obj{"error": obj{"message": msg, "type": typ, "param": nil, "code": typ}}
}

func parseOpenAI(body []byte, req *Request) error {
	var in struct {
		Model       string  `json:"model"`
		Temperature float64 `json:"temperature"`
		MaxTokens   int     `json:"max_tokens"`
		MaxCompl    int     `json:"max_completion_tokens"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return err
	}
	if len(in.Messages) == 0 {
		return errNoMessages
	}
	req.Model, req.Temperature, req.MaxTokens = in.Model, in.Temperature, max(in.MaxTokens, in.MaxCompl)
	for _, m := range in.Messages {
		text, err := textOf(m.Content)
		if err != nil {
			return err
		}
		if m.Role == "system" || m.Role == "developer" {
			req.System += text
			continue
		}
		req.Messages = append(req.Messages, Message{Role: normaliseRole(m.Role), Content: text})
	}
	return nil
}

// --- Anthropic Messages ---

type anthropicEncoder struct{}

func (anthropicEncoder) contentType() string { return "text/event-stream" }

func (anthropicEncoder) start(w io.Writer, model string, promptTokens int) error {
	err := sse(w, "message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []obj{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": promptTokens, "output_tokens": 1},
	}})
	if err != nil {
		return err
	}
	err = sse(w, "content_block_start", obj{"type": "content_block_start", "index": 0,
		"content_block": obj{"type": "text", "text": ""}})
	if err != nil {
		return err
	}
	return sse(w, "ping", obj{"type": "ping"})
}

func (anthropicEncoder) token(w io.Writer, _, text string, _ int, _ bool, _ [2]int) error {
	return sse(w, "content_block_delta", obj{"type": "content_block_delta", "index": 0,
		"delta": obj{"type": "text_delta", "text": text}})
}

func (anthropicEncoder) end(w io.Writer, _ string, usage [2]int) error {
	if err := sse(w, "content_block_stop", obj{"type": "content_block_stop", "index": 0}); err != nil {
		return err
	}
	err := sse(w, "message_delta", obj{"type": "message_delta",
		"delta": obj{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": obj{"output_tokens": usage[1]}})
	if err != nil {
		return err
	}
	return sse(w, "message_stop", obj{"type": "message_stop"})
}

func (anthropicEncoder) malformed(w io.Writer) error {
	_, err := io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\n\n")
	return err
}

func (anthropicEncoder) errorBody(status int) any {
	typ, msg := "api_error", "Internal server error"
	switch status {
	case http.StatusTooManyRequests:
		typ, msg = "rate_limit_error", "Number of request tokens has exceeded your rate limit."
	case http.StatusUnauthorized:
		typ, msg = "authentication_error", "invalid x-api-key"
	}
	return obj{"type": "error", "error": obj{"type": typ, "message": msg}}
}

func parseAnthropic(body []byte, req *Request) error {
	var in struct {
		Model       string          `json:"model"`
		System      json.RawMessage `json:"system"`
		Temperature float64         `json:"temperature"`
		MaxTokens   int             `json:"max_tokens"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return err
	}
	if len(in.Messages) == 0 {
		return errNoMessages
	}
	system, err := textOf(in.System)
	if err != nil {
		return err
	}
	req.Model, req.System, req.Temperature, req.MaxTokens = in.Model, system, in.Temperature, in.MaxTokens
	for _, m := range in.Messages {
		text, err := textOf(m.Content)
		if err != nil {
			return err
		}
		req.Messages = append(req.Messages, Message{Role: normaliseRole(m.Role), Content: text})
	}
	return nil
}

// --- Gemini's OpenAI-compatible chat completions ---
//
// POST /v1beta/openai/chat/completions takes OpenAI's request body and
// bearer key and streams OpenAI chunks, with the differences of Google's
// server: no role-only first chunk (every delta carries the role), the
// finish reason and the usage ride on the last text chunk rather than
// chunks of their own, and an error body is a JSON array of Google's error
// objects instead of OpenAI's {"error": …}.

type geminiEncoder struct{}

func (geminiEncoder) contentType() string { return "text/event-stream" }

func (geminiEncoder) start(io.Writer, string, int) error { return nil }

func (geminiEncoder) token(w io.Writer, model, text string, _ int, last bool, usage [2]int) error {
	choice := obj{"delta": obj{"content": text, "role": "assistant"}, "index": 0}
	chunk := obj{"choices": []obj{choice}, "created": 1700000000, "id": "gemini-fake", "model": model,
		"object": "chat.completion.chunk"}
	if last {
		choice["finish_reason"] = "stop"
		chunk["usage"] = obj{"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": usage[0] + usage[1]}
	}
	return sse(w, "", chunk)
}

func (geminiEncoder) end(w io.Writer, _ string, _ [2]int) error {
	_, err := io.WriteString(w, "data: [DONE]\n\n")
	return err
}

func (geminiEncoder) malformed(w io.Writer) error { return openaiEncoder{}.malformed(w) }

func (geminiEncoder) errorBody(status int) any {
	st, msg := "INTERNAL", "Internal error encountered."
	switch status {
	case http.StatusTooManyRequests:
		st, msg = "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
	case http.StatusUnauthorized:
		st, msg = "UNAUTHENTICATED", "API key not valid. Please pass a valid API key."
	}
	return []obj{{"error": obj{"code": status, "message": msg, "status": st}}}
}

// --- Ollama /api/chat ---

type ollamaEncoder struct{}

func (ollamaEncoder) contentType() string { return "application/x-ndjson" }

func (ollamaEncoder) start(io.Writer, string, int) error { return nil }

func ndjson(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func (ollamaEncoder) token(w io.Writer, model, text string, _ int, _ bool, _ [2]int) error {
	return ndjson(w, obj{"model": model, "created_at": "2024-01-01T00:00:00Z",
		"message": obj{"role": "assistant", "content": text}, "done": false})
}

func (ollamaEncoder) end(w io.Writer, model string, usage [2]int) error {
	return ndjson(w, obj{"model": model, "created_at": "2024-01-01T00:00:00Z",
		"message": obj{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
		"total_duration": 1000000, "load_duration": 1000, "prompt_eval_count": usage[0],
		"prompt_eval_duration": 1000, "eval_count": usage[1], "eval_duration": 1000})
}

func (ollamaEncoder) malformed(w io.Writer) error {
	_, err := io.WriteString(w, "{\"model\":\"x\",\"message\":{\"role\":\"assistant\",\"content\":\"Hel\n")
	return err
}

func (ollamaEncoder) errorBody(status int) any {
	switch status {
	case http.StatusTooManyRequests:
		return obj{"error": "too many requests"}
	case http.StatusUnauthorized:
		return obj{"error": "unauthorized"}
	}
	return obj{"error": "llama runner process has terminated"}
}

func parseOllama(body []byte, req *Request) error {
	var in struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Options struct {
			Temperature float64 `json:"temperature"`
			NumPredict  int     `json:"num_predict"`
		} `json:"options"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return err
	}
	if len(in.Messages) == 0 {
		return errNoMessages
	}
	req.Model, req.Temperature, req.MaxTokens = in.Model, in.Options.Temperature, in.Options.NumPredict
	for _, m := range in.Messages {
		if m.Role == "system" {
			req.System += m.Content
			continue
		}
		req.Messages = append(req.Messages, Message{Role: normaliseRole(m.Role), Content: m.Content})
	}
	return nil
}
