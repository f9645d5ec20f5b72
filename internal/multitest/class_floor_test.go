package multitest

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"aula/internal/fakellm"
)

// The class benchmark's floor: the same class asks at once through the
// relay (internal/bench/relay), a program that only passes the provider's
// stream through langchaingo to the student, with no account, database or
// prompt. Its first token is what any program on this stack gets on this
// machine under the same load, so aula's own share is aula's figure less
// the relay's, both measured in the same run.

// The floor's rows: the relay through langchaingo, and the relay that
// copies the provider's stream unparsed (RELAY_MODE=pipe).
const (
	doorFloor = "relay floor"
	doorPipe  = "pipe floor"
)

var (
	relayOnce   sync.Once
	relayBinary string
	relayErr    error
)

// buildRelay builds the relay once per test binary.
func buildRelay(b *testing.B) string {
	b.Helper()
	relayOnce.Do(func() {
		relayBinary = filepath.Join(tmpDir, "relay")
		build := exec.Command("go", "build", "-o", relayBinary, "./internal/bench/relay")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			relayErr = fmt.Errorf("build the relay: %w\n%s", err, out)
		}
	})
	if relayErr != nil {
		b.Fatal(relayErr)
	}
	return relayBinary
}

// floorRun measures n students asking at once through the relay; door
// says which.
func floorRun(b *testing.B, n int, door string) classRow {
	b.Helper()
	fake := fakellm.Start(b, fakellm.OpenAI, fakellm.Options{Tokens: classAnswer, TokensPerSecond: 50, LimitTokens: true})
	row := classRow{Door: door, N: n}
	row.ProvFirst50, row.ProvFirst99 = providerFirstTokens(b, fake.URL, n)

	cmd := exec.Command(buildRelay(b))
	cmd.Env = []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-fake"}
	if door == doorPipe {
		cmd.Env = append(cmd.Env, "RELAY_MODE=pipe")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "relay is ready at ")
	if err != nil || !ok {
		b.Fatalf("the relay did not start: %q, %v", line, err)
	}

	pid := cmd.Process.Pid
	before := cpuOf(pid, false)
	got := askAtOnce(base+"/", make([]string, n))
	row.AulaCPU = cpuOf(pid, false) - before
	row.PeakRSS = peakRSS(pid)
	row.timed(got)
	row.Asked50 = asked(fake, got.At)
	return row
}
