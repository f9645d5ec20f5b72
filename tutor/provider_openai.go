package tutor

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// chatCompletions streams from OpenAI's chat completions API, or a server
// speaking it (Gemini's compatible endpoint). It stands in for
// langchaingo's OpenAI client, whose request and stream it reproduces,
// because that client costs a class of a thousand answers dearly: it
// decodes each stream in a goroutine of its own (one more stack per
// answer), through a new json.Decoder for every line, rebuilds the whole
// text by string concatenation at every chunk and compiles its model
// regexps on every call. At 1,000 answers at once that was over half of
// the process's allocations. Here the answer's own goroutine reads the
// stream, each line is decoded into a small struct, and the text is not
// kept: it reaches the caller through the streaming function only.
type chatCompletions struct {
	url    string // the API base with /chat/completions
	token  string
	model  string
	client *http.Client
}

// maxChatLine bounds one line of the stream, as langchaingo's scanner did;
// a longer line is a malformed stream (bufio.ErrTooLong).
const maxChatLine = 64 << 10

// noSystemRole matches the models that take no system message (its text
// goes before the first user turn), as langchaingo decides it.
var noSystemRole = regexp.MustCompile(`(?i)^o[13](-mini|-preview)?$`)

// chatLineReaders recycles the stream readers: a class's worth of answers
// would otherwise leave one buffer each to the collector.
var chatLineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1024) }}

// Call implements llms.Model for a single prompt.
func (c *chatCompletions) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, options...)
}

// GenerateContent sends the messages and streams the answer to the
// options' streaming function. The choice it returns carries the finish
// reason and the reported token counts; its Content is empty when a
// streaming function received the text.
func (c *chatCompletions) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	body, err := json.Marshal(newChatRequest(cmp.Or(opts.Model, c.model), messages, opts))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, chatStatusError(resp)
	}
	r := chatLineReaders.Get().(*bufio.Reader)
	r.Reset(resp.Body)
	defer func() {
		r.Reset(nil)
		chatLineReaders.Put(r)
	}()
	return readChatStream(ctx, r, opts.StreamingFunc)
}

// chatMessage is one message of the request, its text as one string.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatStreamOptions asks for the usage chunk at the end of the stream.
type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatRequest is the body langchaingo sent: temperature always, except
// to the reasoning models that refuse any but their own; the token cap
// as max_completion_tokens.
type chatRequest struct {
	Model               string            `json:"model"`
	Messages            []chatMessage     `json:"messages"`
	Temperature         *float64          `json:"temperature,omitempty"`
	MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
	Stream              bool              `json:"stream"`
	StreamOptions       chatStreamOptions `json:"stream_options"`
}

func newChatRequest(model string, messages []llms.MessageContent, opts llms.CallOptions) chatRequest {
	req := chatRequest{Model: model, MaxCompletionTokens: opts.MaxTokens, Stream: true,
		StreamOptions: chatStreamOptions{IncludeUsage: true}}
	if !reasoningModel(model) {
		req.Temperature = &opts.Temperature
	}
	system := ""
	for _, m := range messages {
		text := partsText(m.Parts)
		switch m.Role {
		case llms.ChatMessageTypeSystem:
			if noSystemRole.MatchString(model) {
				if system != "" {
					system += "\n\n"
				}
				system += text
				continue
			}
			req.Messages = append(req.Messages, chatMessage{Role: "system", Content: text})
		case llms.ChatMessageTypeAI:
			req.Messages = append(req.Messages, chatMessage{Role: "assistant", Content: text})
		default:
			if system != "" {
				text, system = system+"\n\n"+text, ""
			}
			req.Messages = append(req.Messages, chatMessage{Role: "user", Content: text})
		}
	}
	return req
}

// reasoningModel reports the models that only accept their default
// temperature (langchaingo's list).
func reasoningModel(model string) bool {
	return strings.HasPrefix(model, "o1-") || model == "o3" || strings.HasPrefix(model, "o3-") ||
		strings.HasPrefix(model, "gpt-5")
}

// partsText is the text of a message's parts (buildMessages gives one).
func partsText(parts []llms.ContentPart) string {
	if len(parts) == 1 {
		if t, ok := parts[0].(llms.TextContent); ok {
			return t.Text
		}
	}
	var b strings.Builder
	for _, p := range parts {
		if t, ok := p.(llms.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// chatStatusError names a refused request with the server's own message
// when its body has one; the status itself is read by statusTransport.
func chatStatusError(resp *http.Response) error {
	msg := fmt.Sprintf("API returned unexpected status code: %d", resp.StatusCode)
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxChatLine)).Decode(&body); err != nil {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %s", msg, body.Error.Message)
}

// chatChunk is what the stream's lines say that aula uses.
type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// readChatStream reads the stream's data lines until [DONE] or its end,
// handing each delta's text to onChunk (collected instead when there is
// none), with langchaingo's reading: lines that are not JSON are
// skipped, and the finish reason is the last chunk's with choices, so a
// stream cut before its end has none (llmProvider.truncated).
func readChatStream(ctx context.Context, r *bufio.Reader, onChunk func(context.Context, []byte) error) (*llms.ContentResponse, error) {
	choice := &llms.ContentChoice{}
	var text strings.Builder
	var prompt, completion int
	for {
		line, err := chatLine(r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("error reading streaming response: %w", err)
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // blank lines, comments and other fields
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			break
		}
		var chunk chatChunk
		if json.Unmarshal(data, &chunk) != nil {
			continue
		}
		if chunk.Usage != nil {
			prompt, completion = chunk.Usage.PromptTokens, chunk.Usage.CompletionTokens
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		delta := chunk.Choices[0].Delta.Content
		choice.StopReason = chunk.Choices[0].FinishReason
		if onChunk == nil {
			text.WriteString(delta)
		} else if err := onChunk(ctx, []byte(delta)); err != nil {
			return nil, fmt.Errorf("streaming func returned an error: %w", err)
		}
	}
	choice.Content = text.String()
	choice.GenerationInfo = map[string]any{"PromptTokens": prompt, "CompletionTokens": completion}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

// chatLine is the next line without its end of line, valid until the
// next read; io.EOF once the stream is over.
func chatLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxChatLine {
			line, err = r.ReadSlice('\n')
			long = append(long, line...)
		}
		if len(long) > maxChatLine {
			return nil, bufio.ErrTooLong
		}
		line = long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil // the last line had no end of line
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}
