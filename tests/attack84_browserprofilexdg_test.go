package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack84_BrowserProfileOtherPlaces (eighty-fourth review): the
// eighty-third review's fix lists browser profiles under a sensitive home
// (domain.SensitiveHomeNames: .mozilla, .config/chromium, …) because they
// hold the approver's console session cookie and CSRF token (the
// eighty-third review's test shows the two answer a request of the
// agent's). It misses the places where current browsers keep the same
// profile:
//
//   - Firefox 147 and later follow the XDG base directories: a new profile
//     lives in ~/.config/mozilla/firefox (cookies.sqlite,
//     sessionstore-backups), no ~/.mozilla at all;
//   - GNOME Web (Epiphany), the GNOME default: ~/.local/share/epiphany
//     (cookies.sqlite);
//   - qutebrowser: ~/.local/share/qutebrowser/webengine (Cookies);
//   - Brave's snap: ~/snap/brave/<rev>/.config/BraveSoftware.
//
// A turn whose roots hold the person's home reads them, as it read
// .mozilla before the fix.
//
// Control: the listed ones (~/.mozilla, ~/.config/chromium) are denied
// under the same turn.
func TestAttack84_BrowserProfileOtherPlaces(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	agent := roAs(s, roCreate(t, s, "agent84", "runtime", "ws"))
	home, err := os.MkdirTemp("/home", "a84-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	agent.startTurn("home", "ws", "supervised", home)
	listed := []string{
		home + "/.mozilla/firefox/abcd1234.default-release/cookies.sqlite",
		home + "/.config/chromium/Default/Cookies",
	}
	missed := []string{
		home + "/.config/mozilla/firefox/abcd1234.default-release/cookies.sqlite",
		home + "/.config/mozilla/firefox/abcd1234.default-release/sessionstore-backups/recovery.jsonlz4",
		home + "/.local/share/epiphany/cookies.sqlite",
		home + "/.local/share/qutebrowser/webengine/Cookies",
		home + "/snap/brave/current/.config/BraveSoftware/Brave-Browser/Default/Cookies",
	}
	for _, p := range append(listed, missed...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("turnstile_session=x turnstile_csrf=y"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range listed {
		wantDecision(t, "control: read "+p, agent.decide("home", "ctl"+string(rune('a'+i)), "read_file", map[string]any{"path": p}), "deny", "sandbox_denied", "sensitive_path")
	}
	for i, p := range missed {
		d := agent.decide("home", "b"+string(rune('a'+i)), "read_file", map[string]any{"path": p})
		if d.Decision != "deny" {
			t.Errorf("read_file %s (a browser profile's cookie or session store): %s %s; want deny (sensitive_path), as ~/.mozilla", p, d.Decision, d.Reason)
		}
	}
}
