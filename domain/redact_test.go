package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRedactPathHidesTheStoreItself: the element that marks a credential
// store is itself sensitive, so neither it nor anything below it is shown.
func TestRedactPathHidesTheStoreItself(t *testing.T) {
	for _, p := range []string{"/home/u/.ssh/id_rsa", "/home/u/.ssh", "/root/.aws/credentials", "/w/.env.local", "/h/.config/gcloud/adc.json"} {
		got := RedactPath(p)
		for _, seg := range []string{".ssh", ".aws", ".env", "gcloud", "id_rsa", "credentials", "adc.json"} {
			if strings.Contains(got, seg) {
				t.Errorf("RedactPath(%q) = %q keeps %q", p, got, seg)
			}
		}
		if !strings.Contains(got, "[redacted:") {
			t.Errorf("RedactPath(%q) = %q: no marker", p, got)
		}
	}
	// Control: an ordinary path is unchanged, the location above the store is kept.
	if got := RedactPath("/home/u/src/main.go"); got != "/home/u/src/main.go" {
		t.Errorf("ordinary path changed: %q", got)
	}
	if got := RedactPath("/home/u/.ssh/id_rsa"); !strings.HasPrefix(got, "/home/u/[redacted:") {
		t.Errorf("location lost: %q", got)
	}
}

// TestRedactSecretsInCommands covers each secret shape a command can carry,
// with controls that ordinary arguments stay readable.
func TestRedactSecretsInCommands(t *testing.T) {
	secrets := []string{"S3cretBearer", "Qtoken99", "hunter2pw", "C00kieVal", "userpw42", "ghp_abcdefghijklmnopqrstuvwxyz0123", "github_pat_11ABCDEFG0123456789_abcdefghij",
		"sk-proj-abcdefghijklmnop1234", "xoxb-1234567890-abcdef", "AKIAABCDEFGHIJKLMNOP", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "apikeyval7", "envtok123", "sepPass77"}
	argv := []string{"curl", "-H", "Authorization: Bearer S3cretBearer", "https://user:userpw42@h.example/p?token=Qtoken99&x=1",
		"--password=hunter2pw", "-H", "Cookie: sid=C00kieVal", "-H", "X-Api-Key: apikeyval7", "ghp_abcdefghijklmnopqrstuvwxyz0123",
		"github_pat_11ABCDEFG0123456789_abcdefghij", "sk-proj-abcdefghijklmnop1234", "xoxb-1234567890-abcdef", "AKIAABCDEFGHIJKLMNOP",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "--token", "sepPass77", "-o", "out.txt"}
	cmd := ShellJoin(argv)
	shell := `GITHUB_TOKEN=envtok123 curl -H "Authorization: Bearer S3cretBearer" --password hunter2pw -u bob:userpw42 "https://h/?token=Qtoken99"`
	argvJSON, _ := json.Marshal(RedactArgv(argv))
	for name, got := range map[string]string{"command": RedactText(cmd), "shell": RedactText(shell), "argv": string(argvJSON)} {
		for _, sec := range secrets {
			if strings.Contains(got, sec) {
				t.Errorf("%s keeps %q: %s", name, sec, got)
			}
		}
		for _, keep := range []string{"curl", "Authorization"} {
			if !strings.Contains(got, keep) {
				t.Errorf("%s lost %q: %s", name, keep, got)
			}
		}
	}
	if got := RedactText(cmd); !strings.Contains(got, "h.example/p?token=") || !strings.Contains(got, "out.txt") {
		t.Errorf("command lost its shape: %s", got)
	}
	// Controls: ordinary commands are untouched.
	for _, s := range []string{"ls -la /usr/bin", "Read /w/basic notes.txt", "echo token counts", "git commit -m 'fix: the parser'", "echo a=b", "go test ./... -run TestX", "https://example.com/a/b"} {
		if got := RedactText(s); got != s {
			t.Errorf("RedactText(%q) = %q", s, got)
		}
	}
	// A token in a URL path is hidden from the scope's display too.
	if v, _ := (Scope{{"url_path", "/hooks/xoxb-1234567890-abcdef"}}).Redacted().Get("url_path"); strings.Contains(v, "xoxb") {
		t.Errorf("url_path %s", v)
	}
	// The scope hash is computed over the exact argv; only its display is redacted.
	sc := NewScope(ScopeEntry{"argv", jsonList(argv)}, ScopeEntry{"command", cmd}, ScopeEntry{"tool_name", "exec_command"})
	red := sc.Redacted()
	if sc.Hash() == red.Hash() {
		t.Error("redaction changed nothing")
	}
	if v, _ := red.Get("argv"); strings.Contains(v, "S3cretBearer") || !strings.Contains(v, "curl") {
		t.Errorf("redacted argv %s", v)
	}
}

func BenchmarkRedactText(b *testing.B) {
	for _, s := range []string{"/work/repo/src/main_test.go", "Run go test ./... -run TestX_y", `curl -H "Authorization: Bearer abcdefgh" https://h/?token=x`,
		"Read /home/alice/project/src/main.go", "/tmp/BenchmarkDurableDecisionsturns=643080162484/001/src/main.go"} {
		b.Run(s[:8], func(b *testing.B) {
			for b.Loop() {
				RedactText(s)
			}
		})
	}
}
