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

// TestAttack200_PlantedPubBlocksHookInstall (review 200, Low: denial): hook
// install, with no --server-key and no --data, reads the default data
// directory's server-key.pub, which belongs to Claude Code's user (the
// agent's reach), and any error there ends the install: a file that is no
// key, or a key owned by another user than the one install learned at
// --server. The key of that directory is only used once the live server
// proves it (review 199), so a bad file there has nothing to protect; the
// agent makes the default install fail with exit 2 against the real,
// running server, pushing the person to --http (fails open) or to skip the
// hook.
//
// Control: with no such file the same install learns the server's key.
func TestAttack200_PlantedPubBlocksHookInstall(t *testing.T) {
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
	install := func() (int, string) {
		var out, errb bytes.Buffer
		rc := hookInstall([]string{"--print", "--project", t.TempDir(), "--server", server}, &out, &errb)
		return rc, out.String() + errb.String()
	}
	if rc, out := install(); rc != 0 || !strings.Contains(out, realKey) {
		t.Fatalf("control: install did not learn the server's key: exit %d %s", rc, out)
	}
	dir := filepath.Join(state, "turnstile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, serverid.PubFile), []byte("not a key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rc, out := install(); rc != 0 || !strings.Contains(out, realKey) {
		t.Errorf("a file the agent wrote in the default data directory stops hook install against the running server: exit %d\n%s", rc, out)
	}
}
