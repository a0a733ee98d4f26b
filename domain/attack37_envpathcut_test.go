package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack37EnvPathTailPastCutUnseen: b86d9ce shows the value of PATH
// (every variable a restricted mode passes) because a shell runs its
// subcommands through it — but cut past MaxEnvironmentValue (512 bytes).
// PATH is searched left to right, and a directory that does not exist is
// skipped: 520 bytes of honest-looking, absent directories and then the
// agent's w/.bin (relative to the cwd, before /usr/bin) show the person
// only the honest part, "… [N more bytes not shown]", while env_sha256
// binds, and /bin/sh -c ls runs, the agent's ls. The part of PATH that
// decides what runs must be in view (or the request refused).
func TestAttack37EnvPathTailPastCutUnseen(t *testing.T) {
	shown := func(path string) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"argv": []string{"/bin/sh", "-c", "ls"}, "executable": "/bin/sh", "env": map[string]string{"PATH": path}})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Details {
			if d.Label == "Environment" {
				return d.Value
			}
		}
		return ""
	}
	// Control: a short PATH with the agent's directory shows it.
	if got := shown("/opt/go/bin:w/.bin:/usr/bin:/bin"); !strings.Contains(got, "w/.bin") {
		t.Fatalf("control: %q", got)
	}
	var honest []string
	for n := 0; len(strings.Join(honest, ":")) < 520; n++ {
		honest = append(honest, "/opt/toolchains/sdk-"+strings.Repeat("x", 2)+string(rune('a'+n%26))+"/bin")
	}
	path := strings.Join(honest, ":") + ":w/.bin:/usr/bin:/bin"
	if got := shown(path); !strings.Contains(got, "w/.bin") {
		t.Errorf("the PATH entry that picks the program is past the cut, the request shows %q", got)
	}
}
