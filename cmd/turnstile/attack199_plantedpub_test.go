package main

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/internal/serverid"
)

// TestAttack199_HookInstallPinsAPlantedKey (review 199): hook install, with
// no --server-key and no --data, takes the key from the default data
// directory of the user who runs it: the Claude Code user's
// ~/.local/state/turnstile/server-key.pub (or $XDG_STATE_HOME's), a
// directory the agent (the same user) writes. The file's owner is not
// checked, and the key is written into the hook's command without asking the
// server that answers at --server whether it holds it. The agent plants its
// own key there:
//
//   - with the server up, the hook is pinned to the agent's key (and the
//     server's uid): the real server fails every proof, and whatever holds
//     the port with a socket of the server's user (review 198) while it is
//     restarted is the only "server" the hook accepts;
//   - with the server down, install succeeds instead of refusing ("nothing
//     answers"), with no --server-user, so the hook trusts root and its own
//     user (the agent's): the agent's own listener on 127.0.0.1:8740 proves
//     the planted key and answers the hook "allow".
//
// Wanted: a key read from a file the installing user owns (the agent's) is
// not taken blindly: when a server answers it must prove that key (else
// refuse), and with none answering the install does not trust it.
// Control: with no planted file, install learns the server's key.
func TestAttack199_HookInstallPinsAPlantedKey(t *testing.T) {
	state := t.TempDir()
	t.Setenv("STATE_DIRECTORY", "")
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("TURNSTILE_URL", "")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, realKey := proving(t, ln, http.NotFoundHandler())
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	server := "http://" + ln.Addr().String()
	install := func(server string) (int, string) {
		var out, errb bytes.Buffer
		rc := hookInstall([]string{"--print", "--project", t.TempDir(), "--server", server}, &out, &errb)
		o := out.String()
		if i := strings.Index(o, "--server-key "); i >= 0 {
			o = strings.Fields(o[i:])[1] // the key written into the hook's command
		}
		return rc, o + "\n" + errb.String()
	}
	if rc, out := install(server); rc != 0 || !strings.Contains(out, realKey) {
		t.Fatalf("control: install against the server did not pin its key: exit %d %s", rc, out)
	}

	agent, _, err := serverid.LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(state, "turnstile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, serverid.PubFile), []byte(agent.Key()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, out := install(server); rc == 0 && strings.Contains(out, agent.Key()) {
		t.Errorf("with the server up, install pinned the planted key %s, not the key %s the server proves:\n%s", agent.Key(), realKey, out)
	}
	// Nothing answers at this address.
	dead, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + dead.Addr().String()
	dead.Close()
	if rc, out := install(deadURL); rc == 0 && strings.Contains(out, agent.Key()) {
		t.Errorf("with no server answering, install succeeded with the planted key %s (no --server-user: the hook trusts its own user):\n%s", agent.Key(), out)
	}
}
