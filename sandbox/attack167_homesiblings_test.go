package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// attack167HomeSiblings are home files that run a program at the
// person's next terminal, shell, REPL or build, without the person
// choosing to run project code: siblings the protected list
// (domain/protected.go DefaultProtectedPaths) still lacks of the items
// review 166 added (.config/kitty, .config/alacritty, .wezterm.lua,
// .gradle/init.d) and of older ones (.config/fish, .ghci, .iex.exs,
// .ocamlinit, .local/bin, .cargo/bin).
var attack167HomeSiblings = map[string]string{
	".config/ghostty/config":             "ghostty runs its `command` at the person's next terminal (kitty's `shell` is listed)",
	".config/foot/foot.ini":              "foot runs its `shell` at the person's next terminal",
	".config/zellij/config.kdl":          "zellij runs its `default_shell` in every new pane",
	".config/rio/config.toml":            "rio runs its [shell] program at the person's next terminal",
	".hyper.js":                          "Hyper runs its `shell` at the person's next terminal",
	".config/terminator/config":          "terminator runs its profile's custom_command at the person's next terminal",
	".local/share/konsole/agent.profile": "Konsole runs a profile's Command= at the person's next terminal",
	".config/nushell/config.nu":          "nushell runs config.nu and env.nu at every start (fish's config is listed)",
	".xonshrc":                           "xonsh runs ~/.xonshrc at every start",
	".config/xonsh/rc.xsh":               "xonsh runs its XDG rc at every start",
	".lein/profiles.clj":                 "Leiningen merges the :user profile (its :injections run) into every project",
	".ghc/ghci.conf":                     "ghci runs ~/.ghc/ghci.conf's commands (:! runs a shell) at every start (.ghci is listed)",
	".sbclrc":                            "SBCL loads ~/.sbclrc at every start",
	".sbt/1.0/plugins/agent.sbt":         "sbt loads the global plugins at every build of any project (Gradle's init.d is listed)",
	".sbt/1.0/global.sbt":                "sbt applies the global settings at every build of any project",
	".nix-profile/bin/git":               "Nix's profile script puts ~/.nix-profile/bin first in PATH (.local/bin and .cargo/bin are listed)",
}

// TestAttack167HomeSiblingsLeftByACommand (review 167): the command writes
// each of attack167HomeSiblings at the writable root (a root may be the
// person's home, as the protected list assumes); they stay after it, where
// the listed .config/kitty/kitty.conf and .gradle/init.d are set aside. A
// file tool's write of them is allowed too, where the listed ones' are
// refused. Controls: the listed siblings set aside and refused; notes.txt
// stays.
func TestAttack167HomeSiblingsLeftByACommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	listed := []string{".config/kitty/kitty.conf", ".gradle/init.d/agent.gradle", ".ghci"}
	names := append(slices167(listed), "notes.txt")
	for n := range attack167HomeSiblings {
		names = append(names, n)
	}
	isListed := func(n string) bool {
		for _, l := range listed {
			if l == n {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		_, err := (DecisionChecker{}).ResolveFile(s, ws+"/"+n, domain.AccessWrite, false)
		switch {
		case n == "notes.txt" && err != nil:
			t.Fatalf("control: a file tool's write of notes.txt was refused: %v", err)
		case isListed(n) && err == nil:
			t.Fatalf("control: a file tool's write of %s (listed) was allowed", n)
		case attack167HomeSiblings[n] != "" && err == nil:
			t.Errorf("a file tool's write of %s at the root was allowed (%s)", n, attack167HomeSiblings[n])
		}
	}
	r := sh(t, s, "for n in "+strings.Join(names, " ")+"; do mkdir -p \"$(dirname \"$n\")\" && echo 'touch /tmp/pwned' > \"$n\" || exit 1; done; echo ok")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range listed {
		if exists(ws + "/" + n) {
			t.Fatalf("control: %s, a listed file the command made at the root, was not set aside (%+v)", n, r.Quarantined)
		}
	}
	for n, why := range attack167HomeSiblings {
		if exists(ws + "/" + n) {
			t.Errorf("%s was left at the root by the command (not set aside as .config/kitty/kitty.conf is): %s", n, why)
		}
	}
}

func slices167(s []string) []string { return append([]string(nil), s...) }
