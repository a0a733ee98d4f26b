package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// attack166HomeSourced are home files a person's shell, terminal, build
// tool or git runs without the person choosing to run project code,
// siblings of the protected list's .cargo/env, .bun/bin, .deno/bin and
// .oh-my-zsh/custom that the list lacks (domain/protected.go
// DefaultProtectedPaths), each with what sources or runs it.
var attack166HomeSourced = map[string]string{
	".deno/env":                        "deno's installer adds `. \"$HOME/.deno/env\"` to .bashrc/.zshrc",
	".bun/_bun":                        "bun's installer adds `[ -s ~/.bun/_bun ] && source ~/.bun/_bun` to .zshrc",
	".ghcup/env":                       "ghcup's installer adds `. ~/.ghcup/env` to .bashrc",
	".elan/env":                        "elan's (Lean) installer adds `. \"$HOME/.elan/env\"` to .profile",
	".opam/opam-init/init.sh":          "opam init adds `. ~/.opam/opam-init/init.sh` to .profile",
	".fzf.bash":                        "fzf's install adds `[ -f ~/.fzf.bash ] && source ~/.fzf.bash` to .bashrc",
	".fzf.zsh":                         "fzf's install adds `source ~/.fzf.zsh` to .zshrc",
	".p10k.zsh":                        "powerlevel10k's .zshrc line sources ~/.p10k.zsh",
	".oh-my-zsh/oh-my-zsh.sh":          "every oh-my-zsh .zshrc sources $ZSH/oh-my-zsh.sh (only .oh-my-zsh/custom is protected)",
	".bashrc.d/agent.sh":               "Fedora's and RHEL's default .bashrc sources every ~/.bashrc.d/* file",
	".gradle/init.d/agent.gradle":      "Gradle runs every ~/.gradle/init.d script at every build of any project",
	".config/alacritty/alacritty.toml": "alacritty runs [terminal.shell] program at the person's next terminal",
	".config/kitty/kitty.conf":         "kitty runs its `shell` at the person's next terminal",
	".wezterm.lua":                     "wezterm runs its Lua config at the person's next terminal",
}

// TestAttack166HomeSourcedFilesLeftByACommand (review 166): the command
// writes each of attack166HomeSourced at the writable root (a root may be
// the person's home, as the protected list assumes); they stay after it,
// where the listed .bashrc and .cargo/env are set aside. A file tool's
// write of them is allowed too, where .cargo/env's is refused.
// Controls: .bashrc and .cargo/env set aside and refused; notes.txt stays.
func TestAttack166HomeSourcedFilesLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	names := []string{".bashrc", ".cargo/env", "notes.txt"}
	for n := range attack166HomeSourced {
		names = append(names, n)
	}
	for _, n := range names {
		_, err := (DecisionChecker{}).ResolveFile(s, ws+"/"+n, domain.AccessWrite, false)
		switch {
		case n == "notes.txt" && err != nil:
			t.Fatalf("control: a file tool's write of notes.txt was refused: %v", err)
		case (n == ".bashrc" || n == ".cargo/env") && err == nil:
			t.Fatalf("control: a file tool's write of %s (listed) was allowed", n)
		case attack166HomeSourced[n] != "" && err == nil:
			t.Errorf("a file tool's write of %s at the root was allowed (%s)", n, attack166HomeSourced[n])
		}
	}
	r := sh(t, s, "for n in "+strings.Join(names, " ")+"; do mkdir -p \"$(dirname \"$n\")\" && echo 'touch /tmp/pwned' > \"$n\" || exit 1; done; echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range []string{".bashrc", ".cargo/env"} {
		if exists(ws + "/" + n) {
			t.Fatalf("control: %s, a listed file the command made at the root, was not set aside (%+v)", n, r.Quarantined)
		}
	}
	for n, why := range attack166HomeSourced {
		if exists(ws + "/" + n) {
			t.Errorf("%s was left at the root by the command (not set aside as .cargo/env is): %s", n, why)
		}
	}
}
