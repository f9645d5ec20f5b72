package webtest

import (
	"strings"
	"testing"
)

// TestSSEReaderFollowsTheStandard pins the parser the fuzz target relies on
// to the examples of the standard.
func TestSSEReaderFollowsTheStandard(t *testing.T) {
	cases := []struct {
		name, stream string
		want         []SSEEvent
	}{
		{"joined data lines", "data: YHOO\ndata: +2\ndata: 10\n\n", []SSEEvent{{Type: "message", Data: "YHOO\n+2\n10"}}},
		{"comment and named event", ": test stream\n\nevent: add\ndata: 73857293\n\n", []SSEEvent{{Type: "add", Data: "73857293"}}},
		{"id persists", "id: 1\ndata: a\n\ndata: b\n\n", []SSEEvent{{Type: "message", ID: "1", Data: "a"}, {Type: "message", ID: "1", Data: "b"}}},
		{"one space stripped", "data:test\n\ndata:  test\n\n", []SSEEvent{{Type: "message", Data: "test"}, {Type: "message", Data: " test"}}},
		{"empty data dispatches", "data\n\ndata\ndata\n\n", []SSEEvent{{Type: "message", Data: ""}, {Type: "message", Data: "\n"}}},
		{"CR and CRLF end lines", "data: a\r\rdata: b\r\n\r\n", []SSEEvent{{Type: "message", Data: "a"}, {Type: "message", Data: "b"}}},
		{"no data, no event", "event: x\n\ndata: y\n\n", []SSEEvent{{Type: "message", Data: "y"}}},
		{"retry", "retry: 1000\n\nretry: x\ndata: z\n\n", []SSEEvent{{Type: "message", Data: "z", Retry: 1000}}},
		{"unterminated event dropped", "data: a\n\ndata: b", []SSEEvent{{Type: "message", Data: "a"}}},
		{"BOM dropped", "\uFEFFdata: a\n\n", []SSEEvent{{Type: "message", Data: "a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewSSEReader(strings.NewReader(tc.stream))
			var got []SSEEvent
			for {
				ev, err := r.Next()
				if err != nil {
					break
				}
				got = append(got, ev)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
