package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLIWith runs the binary with args and extra environment entries
// (KEY=VALUE), with TURNSTILE_URL and TURNSTILE_TOKEN cleared unless given.
func runCLIWith(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIEnv(t, append(cleanEnv(), env...), args...)
}

// cleanEnv is this process's environment without turnstile's variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TURNSTILE_") {
			env = append(env, kv)
		}
	}
	return env
}

// closedURL is the URL of a local port nothing listens on.
func closedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

// TestCLIFollowsTurnstileURL runs every client command with TURNSTILE_URL
// naming a closed port: each reports that it cannot reach that URL, and
// how to point it elsewhere. The control: the same commands with
// TURNSTILE_URL naming the server succeed, and --server wins over it.
func TestCLIFollowsTurnstileURL(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("url", "ws", "supervised", workspace(t))
	dead := closedURL(t)
	commands := [][]string{
		{"replay", "url"},
		{"audit", "verify", "url"},
		{"approvals", "list"},
		{"approvals", "show", "nope"},
		{"approvals", "respond", "nope", "deny"},
		{"approvals", "watch"},
		{"exec", "--turn", "url", "--", "true"},
		{"token", "list"},
		{"bench", "--turns", "1", "--decisions", "1"},
	}
	want := "cannot reach turnstile at " + dead + ": is `serve` running? (--server / TURNSTILE_URL)"
	tok := "TURNSTILE_TOKEN=" + s.Token
	for _, args := range commands {
		_, errOut, code := runCLIWith(t, []string{"TURNSTILE_URL=" + dead, tok}, args...)
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%v with TURNSTILE_URL=%s: exit %d, want an error containing %q:\n%s", args, dead, code, want, errOut)
		}
		// --server names the live server: whatever else happens, the
		// command reaches it.
		full := append(append([]string{}, args[:cmdLen(args)]...), "--server", s.URL)
		full = append(full, args[cmdLen(args):]...)
		if args[0] == "approvals" && args[1] == "watch" {
			continue // runs until stopped; the live case is TestCLIApprovalsWatch
		}
		_, errOut, _ = runCLIWith(t, []string{"TURNSTILE_URL=" + dead, tok}, full...)
		if strings.Contains(errOut, "cannot reach") {
			t.Errorf("%v: --server %s did not win over TURNSTILE_URL:\n%s", full, s.URL, errOut)
		}
	}
	// TURNSTILE_URL alone reaches the server.
	if out, errOut, code := runCLIWith(t, []string{"TURNSTILE_URL=" + s.URL, tok}, "replay", "url"); code != 0 || !strings.Contains(out, "turn url") {
		t.Fatalf("replay through TURNSTILE_URL: %d %s%s", code, out, errOut)
	}
	if out, errOut, code := runCLIWith(t, []string{"TURNSTILE_URL=" + s.URL, tok}, "audit", "verify", "url"); code != 0 {
		t.Fatalf("audit verify through TURNSTILE_URL: %d %s%s", code, out, errOut)
	}
}

// cmdLen is how many leading words of args name the command.
func cmdLen(args []string) int {
	switch args[0] {
	case "audit", "approvals", "token":
		return 2
	}
	return 1
}

// TestCLIExecHintKeepsServer checks that the hint `exec` prints for a call
// waiting for approval names the --server it was given, by running the
// hint's command as printed; that re-running the approved call runs it;
// and that running it once more is refused with exit 4, not the
// "denied" 126.
func TestCLIExecHintKeepsServer(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("hint", "ws", "supervised", root)
	env := []string{"TURNSTILE_TOKEN=" + s.Token} // no TURNSTILE_URL: only --server reaches it
	_, errOut, code := runCLIWith(t, env, "exec", "--server", s.URL, "--turn", "hint", "--tool-call-id", "h1", "--", "cat", "a.txt")
	if code != 3 {
		t.Fatalf("exec in a supervised turn: exit %d, want 3 (waiting):\n%s", code, errOut)
	}
	var hint string
	for _, l := range strings.Split(errOut, "\n") {
		if _, rest, ok := strings.Cut(l, "approve: "); ok {
			hint = rest
		}
	}
	if !strings.Contains(hint, "--server "+s.URL) {
		t.Fatalf("the approve hint drops --server:\n%s", errOut)
	}
	hint = strings.Replace(hint, "turnstile ", bin+" ", 1)
	sh := exec.Command("bash", "-c", hint)
	sh.Env = append(append(cleanEnv(), env...), "TURNSTILE_SERVER_KEY="+s.Key())
	if out, err := sh.CombinedOutput(); err != nil || !strings.Contains(string(out), "allow_once") {
		t.Fatalf("running the hint %q: %v\n%s", hint, err, out)
	}
	out, errOut, code := runCLIWith(t, env, "exec", "--server", s.URL, "--turn", "hint", "--tool-call-id", "h1", "--", "cat", "a.txt")
	if code != 0 || out != "hello\n" {
		t.Fatalf("the approved call: exit %d %q %s", code, out, errOut)
	}
	_, errOut, code = runCLIWith(t, env, "exec", "--server", s.URL, "--turn", "hint", "--tool-call-id", "h1", "--", "cat", "a.txt")
	if code != 4 || !strings.Contains(errOut, "already ran") {
		t.Fatalf("re-running a call that ran: exit %d, want 4 naming it:\n%s", code, errOut)
	}
	// The same id with another command is no re-run: the server's
	// tool_call_reused, exit 1, never "already ran".
	_, errOut, code = runCLIWith(t, env, "exec", "--server", s.URL, "--turn", "hint", "--tool-call-id", "h1", "--", "cat", "b.txt")
	if code != 1 || !strings.Contains(errOut, "tool_call_reused") || strings.Contains(errOut, "already ran") {
		t.Fatalf("the same id with another command: exit %d:\n%s", code, errOut)
	}
	if _, errOut, _ := runCLIWith(t, nil, "exec", "--help"); !strings.Contains(errOut, "4 when this tool call id") {
		t.Fatalf("exec --help does not document exit 4:\n%s", errOut)
	}
}

// TestCLIErrorsNameWhatIsMissing checks each usage error names what is
// missing, and the help texts the issue found wanting.
func TestCLIErrorsNameWhatIsMissing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "missing TURN_ID"},
		{[]string{"approvals"}, "missing the subcommand"},
		{[]string{"approvals", "respond", "abc"}, "missing the resolution after abc"},
		{[]string{"approvals", "respond"}, "missing the request ID"},
		{[]string{"approvals", "show"}, "missing the request ID"},
		{[]string{"exec", "--", "ls"}, "missing --turn ID"},
		{[]string{"exec", "--turn", "t1"}, "missing the command to run"},
		{[]string{"sandbox", "--", "ls"}, "missing --root DIR"},
		{[]string{"sandbox", "--root", "/tmp"}, "missing the command to run"},
		{[]string{"audit"}, "missing the subcommand (verify)"},
		{[]string{"audit", "verify"}, "missing what to verify: --all or TURN_ID"},
	} {
		_, errOut, code := runCLIWith(t, nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "usage") {
			t.Errorf("%v: exit %d, want 2 with %q and the usage:\n%s", c.args, code, c.want, errOut)
		}
	}
	// respond --help lists respond's flags, not list's.
	_, errOut, code := runCLIWith(t, nil, "approvals", "respond", "--help")
	if code != 0 || !strings.Contains(errOut, "approvals respond ID RESOLUTION") || strings.Contains(errOut, "-status") || !strings.Contains(errOut, "-server") {
		t.Errorf("approvals respond --help: %d\n%s", code, errOut)
	}
	if strings.Contains(errOut, "|expired") || strings.Contains(errOut, "expired,") || strings.Contains(errOut, " expired ") {
		t.Errorf("approvals respond --help offers expired:\n%s", errOut)
	}
	_, errOut, _ = runCLIWith(t, nil, "approvals", "list", "--help")
	if !strings.Contains(errOut, "-status") {
		t.Errorf("approvals list --help lacks --status:\n%s", errOut)
	}
	if out, _, code := runCLIWith(t, nil, "--help"); code != 0 || !strings.Contains(out, "TURNSTILE_URL") {
		t.Errorf("--help does not say where client commands go: %d\n%s", code, out)
	}
	out, _, code := runCLIWith(t, nil, "audit", "--help")
	if code != 0 || strings.Count(out, "\n") < 5 || !strings.Contains(out, "--heads") || !strings.Contains(out, "TURNSTILE_URL") {
		t.Errorf("audit --help: %d\n%s", code, out)
	}
}

// TestCLIWrongTokenNamesItsSource sends a wrong token from each source and
// checks the error names the source; the control is the right token from
// the same sources.
func TestCLIWrongTokenNamesItsSource(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	srv := "TURNSTILE_URL=" + s.URL
	_, errOut, code := runCLIWith(t, []string{srv, "TURNSTILE_TOKEN=wrong-token-0123456789"}, "approvals", "list")
	if code != 1 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "the token came from TURNSTILE_TOKEN") {
		t.Errorf("a wrong TURNSTILE_TOKEN: %d\n%s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(file, []byte("wrong-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLIWith(t, []string{srv}, "approvals", "list", "--token-file", file)
	if code != 1 || !strings.Contains(errOut, "the token came from --token-file "+file) {
		t.Errorf("a wrong --token-file: %d\n%s", code, errOut)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "token"), []byte("wrong-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLIWith(t, []string{srv}, "approvals", "list", "--data", other)
	if code != 1 || !strings.Contains(errOut, "the admin token file "+filepath.Join(other, "token")) {
		t.Errorf("a wrong token in --data: %d\n%s", code, errOut)
	}
	// Controls: the right token from each source.
	if err := os.WriteFile(file, []byte(s.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{[]string{srv, "TURNSTILE_TOKEN=" + s.Token}, nil},
		{[]string{srv}, []string{"--token-file", file}},
		{[]string{srv}, []string{"--data", s.Data}},
	} {
		if out, errOut, code := runCLIWith(t, c.env, append([]string{"approvals", "list"}, c.args...)...); code != 0 || !strings.Contains(out, "no approval requests") {
			t.Errorf("the right token %v: %d %s%s", c.args, code, out, errOut)
		}
	}
}

// TestCLIExpiredIsNotAClientResolution checks the server refuses expired
// from a client naming only the resolutions a client may give.
func TestCLIExpiredIsNotAClientResolution(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("exp", "ws", "supervised", workspace(t))
	id := s.decide("exp", "c1", "exec_command", map[string]any{"cmd": "make deploy"}).Request.RequestID
	status, body := s.Request("POST", "/v1/approvals/"+id+"/respond", map[string]string{"resolution": "expired"})
	e := wantError(t, status, body, 400, "invalid_enum")
	allowed := fmt.Sprint(e.Details["allowed"])
	if strings.Contains(allowed, "expired") || !strings.Contains(allowed, "allow_for_turn") {
		t.Fatalf("expired refused, but allowed lists %s: %s", allowed, body)
	}
	_, errOut, code := s.CLI("approvals", "respond", id, "expired")
	if code != 1 || strings.Contains(errOut, "expired]") || !strings.Contains(errOut, "allow_once") {
		t.Fatalf("approvals respond expired: %d\n%s", code, errOut)
	}
	// Control: the request is still pending, and deny resolves it.
	if out, errOut, code := s.CLI("approvals", "respond", id, "deny"); code != 0 || !strings.HasPrefix(out, id+": deny") {
		t.Fatalf("deny after a refused expired: %d %s%s", code, out, errOut)
	}
}

// TestCLIApprovalsShowAndPrefixes opens enough requests that two share a
// first character, then shows and resolves requests by prefix.
func TestCLIApprovalsShowAndPrefixes(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("pre", "ws", "supervised", root)
	byFirst := map[byte][]string{}
	var shared []string
	for i := 0; shared == nil; i++ {
		if i > 16 { // 17 hex ids: two share a first character
			t.Fatal("no two request ids share a first character")
		}
		id := s.decide("pre", fmt.Sprintf("c%d", i), "exec_command", map[string]any{"cmd": fmt.Sprintf("make step%d", i)}).Request.RequestID
		byFirst[id[0]] = append(byFirst[id[0]], id)
		if len(byFirst[id[0]]) == 2 {
			shared = byFirst[id[0]]
		}
	}
	a, b := shared[0], shared[1]
	n := 0
	for n < len(a) && a[n] == b[n] {
		n++
	}
	ambiguous := a[:n]
	_, errOut, code := s.CLI("approvals", "show", ambiguous)
	if code != 1 || !strings.Contains(errOut, "ambiguous") || !strings.Contains(errOut, a) || !strings.Contains(errOut, b) {
		t.Fatalf("show %q (ambiguous): %d\n%s", ambiguous, code, errOut)
	}
	if _, errOut, code := s.CLI("approvals", "respond", "", "deny"); code != 1 || !strings.Contains(errOut, "empty request id") {
		t.Fatalf("respond with an empty id: %d\n%s", code, errOut)
	}
	if _, errOut, code := s.CLI("approvals", "respond", ambiguous, "deny"); code != 1 || !strings.Contains(errOut, "ambiguous") {
		t.Fatalf("respond %q (ambiguous): %d\n%s", ambiguous, code, errOut)
	}
	// Nothing was resolved by the ambiguous respond.
	if out, _, _ := s.CLI("approvals", "list", "--status", "resolved"); !strings.Contains(out, "no approval requests") {
		t.Fatalf("an ambiguous respond resolved something:\n%s", out)
	}
	unique := a[:n+1]
	out, errOut, code := s.CLI("approvals", "show", unique)
	for _, want := range []string{"request " + a, "status     pending, expires ", "turn       pre (workspace ws", "exec_command (shell_command)", "Run make step", "allow_for_turn allows, until turn pre ends, every later exec_command call with the same arguments, command line, working directory, terminal use as this one (Run make step"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("show %q lacks %q: %d\n%s%s", unique, want, code, out, errOut)
		}
	}
	if !strings.Contains(out, "working directory "+root) {
		t.Fatalf("show lacks the cwd:\n%s", out)
	}
	// Without a terminal to confirm it on, a prefix resolves nothing
	// (TestApprovalsRespondConfirmsAPrefix answers on one); the full id
	// does.
	if _, errOut, code := s.CLI("approvals", "respond", unique, "allow_for_turn"); code != 1 || !strings.Contains(errOut, "give the full request id") {
		t.Fatalf("respond by prefix without a terminal: %d\n%s", code, errOut)
	}
	out, errOut, code = s.CLI("approvals", "respond", a, "allow_for_turn")
	if code != 0 || !strings.HasPrefix(out, a+": allow_for_turn") || !strings.Contains(out, "turn pre, exec_command: Run make step") || !strings.Contains(out, "allowed for the rest of turn pre") {
		t.Fatalf("respond by id: %d\n%s%s", code, out, errOut)
	}
	// b is still pending.
	if out, _, _ := s.CLI("approvals", "show", b); !strings.Contains(out, "status     pending") {
		t.Fatalf("respond by prefix touched %s:\n%s", b, out)
	}
}

// TestCLIApprovalsWatch starts `approvals watch` with one request pending,
// then opens and resolves another: watch prints the pending one, the new
// one with its details, and the resolution.
func TestCLIApprovalsWatch(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("w", "ws", "supervised", workspace(t))
	first := s.decide("w", "c1", "exec_command", map[string]any{"cmd": "make before"}).Request.RequestID
	cmd := exec.Command(bin, "approvals", "watch", "--server", s.URL)
	cmd.Env = append(cleanEnv(), "TURNSTILE_TOKEN="+s.Token, "TURNSTILE_SERVER_KEY="+s.Key())
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitFor := func(want string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before %q: %s", want, errBuf.String())
				}
				if strings.Contains(l, want) {
					return
				}
			case <-timeout:
				t.Fatalf("watch never printed %q", want)
			}
		}
	}
	waitFor("(1 pending)")
	waitFor("request " + first)
	waitFor("Run make before")
	second := s.decide("w", "c2", "exec_command", map[string]any{"cmd": "make after"}).Request.RequestID
	waitFor("request " + second)
	waitFor("status     pending, expires ")
	waitFor("Run make after")
	waitFor("working directory ")
	s.respond(second, "deny")
	waitFor("resolved " + second + ": deny by ")
}

// TestCLIApprovalsWatchJSON checks watch --json prints one JSON-RPC
// notification per line: the pending request first, then a resolution.
func TestCLIApprovalsWatchJSON(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("wj", "ws", "supervised", workspace(t))
	id := s.decide("wj", "c1", "exec_command", map[string]any{"cmd": "make json"}).Request.RequestID
	cmd := exec.Command(bin, "approvals", "watch", "--json", "--server", s.URL, "--server-key", s.Key())
	cmd.Env = append(cleanEnv(), "TURNSTILE_TOKEN="+s.Token)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatal("watch --json ended")
		}
		var n map[string]any
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatalf("watch --json printed %q: %v", sc.Text(), err)
		}
		return n
	}
	n := next()
	p, _ := n["params"].(map[string]any)
	req, _ := p["request"].(map[string]any)
	if n["method"] != "turn/permission/request/opened" || req["request_id"] != id {
		t.Fatalf("first line: %v", n)
	}
	s.respond(id, "deny")
	n = next()
	p, _ = n["params"].(map[string]any)
	if n["method"] != "turn/permission/request/resolved" || p["request_id"] != id || p["resolution"] != "deny" {
		t.Fatalf("second line: %v", n)
	}
}
