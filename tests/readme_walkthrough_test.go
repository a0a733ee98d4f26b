package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeSection returns the text of the README's section titled title, up
// to the next section.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README has no section %q", title)
	}
	sec, _, _ := strings.Cut(rest, "\n## ")
	return sec
}

// shBlocks returns the ```sh blocks of a Markdown text.
func shBlocks(md string) []string {
	var blocks []string
	for {
		_, rest, ok := strings.Cut(md, "```sh\n")
		if !ok {
			return blocks
		}
		block, after, _ := strings.Cut(rest, "```")
		blocks = append(blocks, block)
		md = after
	}
}

// expectations returns what the script's "# →" comments say its output
// holds, each split at its "…" elisions into fragments, in order.
func expectations(script string) []string {
	var frags []string
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "# →") {
			continue
		}
		exp := strings.TrimSpace(strings.TrimPrefix(l, "# →"))
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "#    ") {
			i++
			exp += strings.TrimSpace(strings.TrimPrefix(lines[i], "#"))
		}
		for _, f := range strings.Split(exp, "…") {
			if f = strings.TrimSpace(f); f != "" {
				frags = append(frags, f)
			}
		}
	}
	return frags
}

// TestREADMEWalkthrough runs the sh blocks of the README's walkthrough, as
// written, with bash against a server on a free port found through
// TURNSTILE_URL, the `turnstile` binary on PATH and the data directory at
// its default place (under XDG_STATE_HOME). Every "# →" comment's
// fragments must appear in the output, in order, so the README cannot rot.
func TestREADMEWalkthrough(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's walkthrough needs %s: %v", tool, err)
		}
	}
	blocks := shBlocks(readmeSection(t, "One approval, from request to resolution"))
	if len(blocks) == 0 {
		t.Fatal("the walkthrough has no sh block")
	}
	script := strings.Join(blocks, "\n")
	state := t.TempDir()
	s := StartServer(t, filepath.Join(state, "turnstile"))
	work := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = work
	var env []string
	for _, kv := range cleanEnv() {
		if !strings.HasPrefix(kv, "STATE_DIRECTORY=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "XDG_STATE_HOME="+state, "TURNSTILE_URL="+s.URL, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s\nserver:\n%s", err, out, s.Output())
	}
	frags := expectations(script)
	if len(frags) < 15 {
		t.Fatalf("the walkthrough claims only %d output fragments: %q", len(frags), frags)
	}
	rest := string(out)
	for _, f := range frags {
		i := strings.Index(rest, f)
		if i < 0 {
			t.Fatalf("the walkthrough's output lacks %q (in order) in what follows the fragment before it:\n%.3000s", f, rest)
		}
		rest = rest[i+len(f):]
	}
	// The walkthrough's audit verify wrote the heads file where it ran.
	if _, err := os.Stat(filepath.Join(work, "audit-heads.json")); err != nil {
		t.Fatalf("audit verify --heads wrote no file: %v\n%s", err, out)
	}
}
