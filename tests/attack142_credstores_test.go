package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// attack142Home makes a home directory under /home (the homes whose
// credential stores are sensitive: domain.SensitiveHomes) with files.
func attack142Home(t *testing.T, files map[string]string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a home directory under /home")
	}
	home, err := os.MkdirTemp("/home", "turnstile-attack142-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// attack142HookRead sends Claude Code's PreToolUse of a Read of rel (below
// home) through the http hook and returns its permissionDecision.
func attack142HookRead(t *testing.T, s *Server, home, session string, i int, rel string) string {
	t.Helper()
	p := ccEdit(t, ccPayload(t, "pre_read", session, home), map[string]any{
		"tool_input":  map[string]any{"file_path": home + "/" + rel},
		"tool_use_id": "toolu_142r_" + string(rune('a'+i)),
	})
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	body := s.hookHTTP(p)
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("hook answer %q: %v", body, err)
	}
	t.Logf("%s: %s (%s)", rel, out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason)
	return out.HookSpecificOutput.PermissionDecision
}

// attack142Unlisted are credential stores of a home directory that
// domain.SensitiveHomeNames does not hold, each with a live secret of the
// kind it keeps.
var attack142Unlisted = map[string]string{
	".m2/settings.xml":             `<settings><servers><server><id>corp</id><password>m2-attack142</password></server></servers></settings>`,
	".gradle/gradle.properties":    "signing.password=attack142\nmavenCentralPassword=gradle-attack142\n",
	".vault-token":                 "hvs.attack142\n",
	".config/containers/auth.json": `{"auths":{"ghcr.io":{"auth":"YXR0YWNrOjE0Mg=="}}}`,
	".my.cnf":                      "[client]\nuser=root\npassword=mysql-attack142\n",
	".config/sops/age/keys.txt":    "AGE-SECRET-KEY-1ATTACK142\n",
	".gem/credentials":             "---\n:rubygems_api_key: rubygems_attack142\n",
	".config/composer/auth.json":   `{"github-oauth":{"github.com":"ghp_attack142"}}`,
	".cache/huggingface/token":     "hf_attack142\n",
	".config/rclone/rclone.conf":   "[s3]\ntype = s3\nsecret_access_key = rclone-attack142\n",
	".kaggle/kaggle.json":          `{"username":"u","key":"kaggle-attack142"}`,
	".config/git/credentials":      "https://u:ghp_attack142@github.com\n",
	".pulumi/credentials.json":     `{"accessTokens":{"https://api.pulumi.com":"pul-attack142"}}`,
	".config/glab-cli/config.yml":  "hosts:\n  gitlab.com:\n    token: glpat-attack142\n",
	".terraformrc":                 "credentials \"app.terraform.io\" { token = \"tf-attack142\" }\n",
}

// TestAttack142_HookReadCredentialStoresOutsideTheList: review 6's fix
// (domain.SensitiveHomeNames: ~/.ssh, ~/.aws, ~/.netrc, ~/.docker/config.json,
// ~/.git-credentials, the registries' tokens, the agent CLIs' logins…,
// denied to every restricted turn under /root and /home/*) leaves out
// stores that hold live credentials as well: Maven's settings.xml (server
// passwords), Gradle's gradle.properties (signing and repository
// passwords), Vault's token, Podman's and Buildah's registry logins, the
// MySQL client's password, SOPS's age keys, RubyGems' and Composer's API
// tokens, Hugging Face's token, rclone's cloud keys, Kaggle's key, git's
// XDG credential store (~/.config/git/credentials, which credential.helper
// store writes when that directory exists), Pulumi's, GitLab CLI's and
// Terraform's tokens. In a Claude Code session rooted at a home directory,
// in auto_accept_edits, a Read of each is answered "allow" without a
// question, and its secret is in the agent's context; the listed stores of
// the same home are denied (TestAttack142_HookReadCredentialStoresControl).
func TestAttack142_HookReadCredentialStoresOutsideTheList(t *testing.T) {
	files := attack142Unlisted
	home := attack142Home(t, files)
	s := ccServer(t, home, "auto_accept_edits", nil)
	i := 0
	for rel := range files {
		if got := attack142HookRead(t, s, home, "sess-142cs", i, rel); got != "deny" {
			t.Errorf("Claude Code's Read of ~/%s: %s, want deny (as ~/.netrc and ~/.git-credentials): a live credential in the agent's context", rel, got)
		}
		i++
	}
}

// TestAttack142_HookReadCredentialStoresControl: the listed stores of the
// same kind of home are denied; an ordinary file of it is allowed.
func TestAttack142_HookReadCredentialStoresControl(t *testing.T) {
	home := attack142Home(t, map[string]string{
		".ssh/id_ed25519":     "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		".netrc":              "machine github.com login u password ghp_listed\n",
		".git-credentials":    "https://u:ghp_listed@github.com\n",
		".docker/config.json": `{"auths":{"ghcr.io":{"auth":"bGlzdGVk"}}}`,
		".npmrc":              "//registry.npmjs.org/:_authToken=npm_listed\n",
		"notes/todo.txt":      "buy milk\n",
	})
	s := ccServer(t, home, "auto_accept_edits", nil)
	for i, c := range []struct{ rel, want string }{
		{".ssh/id_ed25519", "deny"}, {".netrc", "deny"}, {".git-credentials", "deny"}, {".docker/config.json", "deny"}, {".npmrc", "deny"},
		{"notes/todo.txt", "allow"},
	} {
		if got := attack142HookRead(t, s, home, "sess-142csc", i, c.rel); got != c.want {
			t.Errorf("control: Claude Code's Read of ~/%s: %s, want %s", c.rel, got, c.want)
		}
	}
}
