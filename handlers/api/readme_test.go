package api_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// readmeBase is the address the README's examples call.
const readmeBase = "http://127.0.0.1:8080"

// TestREADMECurlExamples runs every curl command of the README's shell
// blocks as written (its method, path, headers and -d body, the header
// curl adds to -d included) against the server with a real token: each
// must succeed.
func TestREADMECurlExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds := curlCommands(string(readme))
	if len(cmds) == 0 {
		t.Fatal("no curl example in the README")
	}
	s := apptest.New(t)
	token := apptest.APIToken(t, s, s.User(t, "readme@example.com", "a-long-password-1", models.PlanPro).ID)
	// The organization's examples are run with its admin's token.
	s.Org(t, "readme-org", "readme-admin@example.com", "readme-member@example.com")
	adminToken := apptest.APIToken(t, s, s.UserID(t, "readme-admin@example.com"))
	for _, cmd := range cmds {
		req := curlRequest(t, cmd, map[string]string{"TOKEN": token})
		if strings.HasPrefix(req.URL.Path, "/api/v1/org/") {
			req = curlRequest(t, cmd, map[string]string{"TOKEN": adminToken})
		}
		t.Run(req.Method+" "+req.URL.RequestURI(), func(t *testing.T) {
			req.URL.Scheme, req.URL.Host = "http", strings.TrimPrefix(s.URL, "http://")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode/100 != 2 || strings.Contains(string(body), `"type":"error"`) {
				t.Fatalf("%s answered %d: %s", cmd, resp.StatusCode, body)
			}
		})
	}
}

// curlCommands are the curl commands of the text's sh code blocks, each
// on one line (continuation backslashes joined).
func curlCommands(text string) []string {
	var out []string
	inBlock := false
	for block := range strings.SplitSeq(strings.ReplaceAll(text, "\\\n", " "), "\n") {
		line := strings.TrimSpace(block)
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock && (line == "```sh" || line == "```bash" || line == "```shell")
		case inBlock && strings.HasPrefix(line, "curl "):
			out = append(out, line)
		}
	}
	return out
}

// curlRequest is the request curl would send for cmd, with vars standing
// for the shell's variables. Only the options the examples use are known;
// any other fails the test, so a new kind of example gets a look.
func curlRequest(t *testing.T, cmd string, vars map[string]string) *http.Request {
	t.Helper()
	args := shellWords(t, cmd, vars)[1:]
	method, header, body, target := "", http.Header{}, "", ""
	hasBody := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-N" || a == "-s" || a == "-sS":
		case a == "-o" && i+1 < len(args):
			i++ // where curl saves the answer: the test reads it instead
		case (a == "-H" || a == "-d" || a == "-X") && i+1 < len(args):
			i++
			switch a {
			case "-H":
				k, v, _ := strings.Cut(args[i], ":")
				header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			case "-d":
				body, hasBody = args[i], true
			case "-X":
				method = args[i]
			}
		case !strings.HasPrefix(a, "-") && target == "":
			target = a
		default:
			t.Fatalf("curl option %q in %s is not understood by this test", a, cmd)
		}
	}
	if method == "" {
		method = http.MethodGet
		if hasBody {
			method = http.MethodPost
		}
	}
	if hasBody && header.Get("Content-Type") == "" {
		header.Set("Content-Type", "application/x-www-form-urlencoded") // what curl -d sends
	}
	u, err := url.Parse(target)
	if err != nil || !strings.HasPrefix(target, readmeBase+"/") {
		t.Fatalf("%s: the address %q is not under %s", cmd, target, readmeBase)
	}
	req, _ := http.NewRequest(method, u.String(), strings.NewReader(body))
	req.Header = header
	return req
}

// shellWords splits a command line as sh does for the examples: words
// apart at blanks, 'single quotes' literal, "double quotes" and bare
// words with $NAME replaced from vars.
func shellWords(t *testing.T, line string, vars map[string]string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == ' ' || ch == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				t.Fatalf("unclosed ' in %s", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			i, inWord = i+1+end, true
		case ch == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				t.Fatalf("unclosed \" in %s", line)
			}
			w.WriteString(expandVars(line[i+1:i+1+end], vars))
			i, inWord = i+1+end, true
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t'\"", rune(line[j])) {
				j++
			}
			w.WriteString(expandVars(line[i:j], vars))
			i, inWord = j-1, true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// expandVars replaces $NAME in s with vars[NAME].
func expandVars(s string, vars map[string]string) string {
	return os.Expand(s, func(name string) string { return vars[name] })
}
