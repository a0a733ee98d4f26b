package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack6CredentialStoresOutsideTheListReadable (fixed: they are in
// domain.SensitiveHomeNames now): a restricted turn is
// denied the credential stores of domain.SensitiveHomeNames under /root and
// /home/* (masked in the command's view), but the list misses stores that
// hold live credentials just as well, among them the agent CLIs' own: the
// Codex CLI's ~/.codex/auth.json (an OpenAI API key or ChatGPT tokens; the
// directory is even held read-only as a protected name, yet its contents
// are readable), GitHub Copilot's ~/.config/github-copilot/apps.json, the
// Gemini CLI's ~/.gemini/oauth_creds.json, and the package registries'
// publish tokens (~/.npmrc, ~/.pypirc, ~/.cargo/credentials.toml). A
// command of a turn whose workspace (or an app read root) is a home
// directory reads them all and hands them to the agent in its output.
//
// Control: ~/.ssh/id_rsa and ~/.aws/credentials of the same home are
// refused.
func TestAttack6CredentialStoresOutsideTheListReadable(t *testing.T) {
	f := requireKernel(t, true)
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a home directory under /home")
	}
	home, err := os.MkdirTemp("/home", "turnstile-attack6-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) string {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	listed := []string{
		write(".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n"),
		write(".aws/credentials", "[default]\naws_secret_access_key = listed\n"),
	}
	unlisted := []string{
		write(".codex/auth.json", `{"OPENAI_API_KEY":"sk-attack6"}`+"\n"),
		write(".config/github-copilot/apps.json", `{"github.com:Iv1":{"oauth_token":"ghu_attack6"}}`+"\n"),
		write(".gemini/oauth_creds.json", `{"refresh_token":"1//attack6"}`+"\n"),
		write(".npmrc", "//registry.npmjs.org/:_authToken=npm_attack6\n"),
		write(".pypirc", "[pypi]\nusername = __token__\npassword = pypi-attack6\n"),
		write(".cargo/credentials.toml", "[registry]\ntoken = \"cio_attack6\"\n"),
	}
	s := snapshotFor(t, domain.ModeSupervised, home, f.Kernel, filepathDir(testExe(t)))
	for _, p := range listed {
		if r := probeIn(t, s, "read", p); r.ExitCode != 1 {
			t.Fatalf("control: the listed credential store %s was read: exit %d %s", p, r.ExitCode, r.Stdout)
		}
	}
	// Control: what is not a credential store in the same home is read.
	if r := probeIn(t, s, "read", write(".config/editor/settings.json", "{}\n")); r.ExitCode != 0 {
		t.Fatalf("control: a plain file of the home was not read: exit %d %s", r.ExitCode, r.Stdout)
	}
	var read []string
	for _, p := range unlisted {
		if r := probeIn(t, s, "read", p); r.ExitCode == 0 {
			read = append(read, strings.TrimPrefix(p, home+"/"))
		}
	}
	if len(read) > 0 {
		t.Errorf("a supervised command whose workspace is a home directory read these credential stores: %s", strings.Join(read, ", "))
	}
}
